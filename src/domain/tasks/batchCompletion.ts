import { countUnendedTasksOfBatch, lockBatch, markBatchCompleted } from '../../db/repositories/batches.js';
import type { Executor, TaskRow } from '../../db/repositories/executor.js';
import { assertInvariant } from '../errors.js';
import { recordEvent } from '../events/events.js';

/**
 * Called by endTask (settlement.ts) in the transaction that ended a task of a batch: when no task
 * of the batch is left open, the batch is completed once (compare-and-set) and batch.completed
 * goes out with the ending. The batch row is locked first, so of two transactions ending the last
 * two tasks at once, the second counts after the first committed and sends the event.
 */
export async function completeBatchIfDone(trx: Executor, task: TaskRow, now: Date): Promise<void> {
  if (!task.batch_id) return;
  const batch = await lockBatch(trx, task.batch_id);
  assertInvariant(batch, `the batch of task ${task.id} exists`);
  if (batch.completed_at !== null) return;
  if ((await countUnendedTasksOfBatch(trx, batch.id)) > 0) return;
  const done = await markBatchCompleted(trx, batch.id, now.toISOString());
  if (!done) return;
  await recordEvent(trx, {
    agentId: batch.agent_id,
    taskId: null,
    type: 'batch.completed',
    data: { batchId: batch.id, count: batch.task_count, completedAt: done.completed_at },
    now,
  });
}
