import type { Executor, TaskRow } from '../../db/repositories/executor.js';
import { findPendingSubmission } from '../../db/repositories/submissions.js';
import { findTask, setExecutionDeadlineDays, setWorkStatus } from '../../db/repositories/tasks.js';
import type { DomainContext } from '../context.js';
import { heldByDispute } from '../disputes/disputeGuard.js';
import { conflict, invalid } from '../errors.js';
import { inTransaction } from '../transaction.js';
import { canChangeWorkStatus, type TaskStatus, type WorkStatus } from './states.js';
import { loadAgentTask, loadWorkerTask } from './taskAccess.js';
import { DEADLINE_DAYS } from './taskCreation.js';

export interface TaskPatch {
  status?: WorkStatus;
  executionDeadlineDays?: number;
}

/** PATCH /tasks/:id by the owning agent. */
export async function patchAgentTask(ctx: DomainContext, agentId: string, taskId: string, patch: TaskPatch) {
  if (patch.status === undefined && patch.executionDeadlineDays === undefined) {
    throw invalid('status', 'give status (IN_PROGRESS or REVIEW) and/or executionDeadlineDays');
  }
  return inTransaction(ctx.db, async (trx) => {
    let task = await loadAgentTask(trx, agentId, taskId);
    const at = ctx.clock.now().toISOString();
    if (patch.executionDeadlineDays !== undefined) {
      const days = patch.executionDeadlineDays;
      if (!Number.isInteger(days) || days < DEADLINE_DAYS.min || days > DEADLINE_DAYS.max) {
        throw invalid(
          'executionDeadlineDays',
          `must be a whole number of days from ${DEADLINE_DAYS.min} to ${DEADLINE_DAYS.max}`,
        );
      }
      // Changes only OPEN/FUNDED tasks on the relative variant; otherwise ignored (docs/decisions/tasks-and-money.md).
      task = (await setExecutionDeadlineDays(trx, taskId, days, at)) ?? task;
    }
    if (patch.status !== undefined) task = await changeWorkStatus(trx, task, patch.status, at);
    return task;
  });
}

/** PATCH /worker/tasks/:id by the worker who holds the task. */
export async function patchWorkerTask(
  ctx: DomainContext,
  workerId: string,
  taskId: string,
  status: WorkStatus,
) {
  return inTransaction(ctx.db, async (trx) => {
    const task = await loadWorkerTask(trx, workerId, taskId);
    return changeWorkStatus(trx, task, status, ctx.clock.now().toISOString());
  });
}

async function changeWorkStatus(trx: Executor, task: TaskRow, to: WorkStatus, at: string): Promise<TaskRow> {
  const from = task.status as TaskStatus;
  if (!canChangeWorkStatus(from, to)) throw invalidTransition(from, to);
  // A waiting submission leaves REVIEW only by a decision (issue 25): a plain PATCH would stop
  // the review clock without one. No submission can appear meanwhile: it needs another status.
  if (from === 'REVIEW' && (await findPendingSubmission(trx, task.id))) {
    throw conflict(
      'A submission waits for review: approve it (POST /tasks/:id/complete), request a revision (POST /tasks/:id/revisions) or open a dispute (POST /tasks/:id/dispute)',
      { currentStatus: from, requestedStatus: to },
    );
  }
  const updated = await setWorkStatus(trx, task.id, from, to, at);
  if (updated) return updated;
  // Another request moved the task first; report where it is now.
  const found = await findTask(trx, task.id);
  throw heldByDispute(found) ?? invalidTransition((found?.status ?? from) as TaskStatus, to);
}

function invalidTransition(currentStatus: TaskStatus, requestedStatus: WorkStatus) {
  return conflict('Invalid status transition', { currentStatus, requestedStatus });
}
