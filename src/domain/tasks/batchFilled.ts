import { lockBatch } from '../../db/repositories/batches.js';
import { countFundedTasksOfBatch } from '../../db/repositories/batchPlaces.js';
import type { Executor, TaskRow } from '../../db/repositories/executor.js';

/**
 * Called by acceptApplication after it assigned a task of a batch: true when that was the batch's
 * last FUNDED task, so every place is taken for good and the applicants still waiting are told
 * the batch is full rather than "not selected". The batch row is locked before counting (the
 * task-then-batch order endTask uses), so of two acceptances of the last two tasks at once the
 * second counts after the first committed and is the one that says "full".
 */
export async function batchFilledBy(trx: Executor, task: TaskRow): Promise<boolean> {
  if (!task.batch_id) return false;
  await lockBatch(trx, task.batch_id);
  return (await countFundedTasksOfBatch(trx, task.batch_id)) === 0;
}
