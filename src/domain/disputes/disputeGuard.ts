import type { TaskRow } from '../../db/repositories/executor.js';
import { conflict, type DomainError } from '../errors.js';

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

/**
 * A submission whose review window has ended is accepted: the auto-release (runReviewWindow, up to
 * 30 s later) must win over a revision or an agent's dispute that arrives after the deadline.
 */
export function reviewWindowEnded(
  task: Pick<TaskRow, 'status' | 'review_deadline'>,
  now: Date,
): DomainError | null {
  if (task.status !== 'REVIEW' || !task.review_deadline || task.review_deadline > now.toISOString())
    return null;
  return conflict(
    `The review window ended at ${task.review_deadline}: the submission is accepted and the reward is being released to the worker, so it can no longer be revised or disputed`,
    { currentStatus: task.status, reviewDeadline: task.review_deadline },
  );
}
