import { findTaskApplicationIn, setApplicationStatus } from '../../db/repositories/applications.js';
import { closeChat } from '../../db/repositories/chats.js';
import { expireIfOverdue, listOverdueAssigned } from '../../db/repositories/tasks.js';
import type { DomainContext } from '../context.js';
import { recordEvent } from '../events/events.js';
import { inTransaction } from '../transaction.js';
import { notifyWorker } from '../workers/notifications.js';

const BATCH = 50;

/**
 * Returns ASSIGNED tasks whose worker missed the execution deadline to FUNDED (docs/decisions/tasks-and-money.md):
 * the worker's application becomes REJECTED, the chat closes (readable, no new messages), the
 * agent hears task.expired and the worker is told. The money stays locked: the task is open to
 * applicants again. Safe to run on several instances at once (compare-and-set per task).
 */
export async function expireOverdueTasks(ctx: DomainContext): Promise<number> {
  const overdue = await listOverdueAssigned(ctx.db, ctx.clock.now().toISOString(), BATCH);
  let expired = 0;
  for (const { id, worker_id } of overdue) {
    if (worker_id && (await expireTask(ctx, id, worker_id))) expired++;
  }
  return expired;
}

async function expireTask(ctx: DomainContext, taskId: string, workerId: string): Promise<boolean> {
  return inTransaction(ctx.db, async (trx) => {
    const now = ctx.clock.now();
    const at = now.toISOString();
    const task = await expireIfOverdue(trx, taskId, workerId, at);
    if (!task) return false;
    const accepted = await findTaskApplicationIn(trx, taskId, ['ACCEPTED']);
    if (accepted) await setApplicationStatus(trx, accepted.id, ['ACCEPTED'], 'REJECTED', at);
    await closeChat(trx, taskId, at);
    await recordEvent(trx, {
      agentId: task.agent_id,
      taskId,
      type: 'task.expired',
      data: { taskId, workerId },
      now,
    });
    await notifyWorker(trx, {
      workerId,
      taskId,
      kind: 'task_expired',
      data: { taskId, title: task.title },
      now,
    });
    return true;
  });
}
