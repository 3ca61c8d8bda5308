import type { TaskRow } from '../db/repositories/executor.js';
import { conflict, type DomainError } from './errors.js';

/**
 * The 409 for any move of a task an open dispute holds (completion, refund, cancel, status
 * changes, submissions, revisions): only the operator's resolution moves it now. Null when no
 * dispute holds the task, so the caller reports its own conflict.
 */
export function heldByDispute(task: Pick<TaskRow, 'dispute_id' | 'status'> | undefined): DomainError | null {
  if (!task?.dispute_id || task.status === 'COMPLETED' || task.status === 'CANCELLED') return null;
  return conflict(
    'A dispute is open on this task: the escrow stays locked until an operator resolves it. Add your evidence with the dispute statements route',
    { currentStatus: task.status, disputeId: task.dispute_id },
  );
}
