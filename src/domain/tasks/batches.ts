import {
  countBatchTasksByStatus,
  countWorkerPlacesInBatch,
  findBatch,
  listAgentBatches,
  listTasksOfBatch,
  lockBatch,
} from '../../db/repositories/batches.js';
import type { BatchRow, Executor, TaskRow } from '../../db/repositories/executor.js';
import type { DomainContext } from '../context.js';
import { decodePosition, page, positionCursor } from '../cursor.js';
import { accessDenied, assertInvariant, conflict, DomainError, notFound } from '../errors.js';
import { isIdOf } from '../ids.js';
import { inTransaction } from '../transaction.js';
import { cancelInTransaction, cleanRefundReason } from './cancellation.js';
import type { TaskStatus } from './states.js';

export type StatusCounts = Map<TaskStatus, number>;

/** The batch, when it exists (404) and belongs to this agent (403), as tasks are loaded. */
async function loadAgentBatch(db: Executor, agentId: string, batchId: string): Promise<BatchRow> {
  const batch = isIdOf('taskBatch', batchId) ? await findBatch(db, batchId) : undefined;
  if (!batch) throw notFound('Batch');
  if (batch.agent_id !== agentId) throw accessDenied();
  return batch;
}

/** GET /batches/:id: the batch and how many of its tasks are in each status. */
export async function getAgentBatch(ctx: DomainContext, agentId: string, batchId: string) {
  const batch = await loadAgentBatch(ctx.db, agentId, batchId);
  const counts = await countBatchTasksByStatus(ctx.db, [batch.id]);
  return { batch, counts: counts.get(batch.id) ?? new Map() };
}

/** GET /batches: the agent's batches, newest first, each with its counts by status. */
export async function listBatchesOfAgent(
  ctx: DomainContext,
  agentId: string,
  query: { cursor?: string; limit: number },
) {
  const rows = await listAgentBatches(ctx.db, agentId, decodePosition(query.cursor), query.limit + 1);
  const result = page(rows, query.limit, positionCursor);
  const counts = await countBatchTasksByStatus(
    ctx.db,
    result.items.map((b) => b.id),
  );
  return { ...result, countsOf: (id: string): StatusCounts => counts.get(id) ?? new Map() };
}

export interface BatchCancellation {
  batch: BatchRow;
  counts: StatusCounts;
  refunded: TaskRow[];
  /** Tasks left as they were, each with the sentence its single refund would have answered. */
  kept: { task: TaskRow; reason: string }[];
}

/**
 * POST /batches/:id/cancel: every task of the batch still open is refunded exactly as POST
 * /tasks/:id/refund would (cancelInTransaction, through settlement's endTask); a task the single
 * refund would refuse (work submitted, a dispute open, already ended) is left as it is and listed
 * with the refusal's sentence. One transaction: the refunds and their events commit together.
 */
export async function cancelBatch(
  ctx: DomainContext,
  agentId: string,
  batchId: string,
  reason?: string,
): Promise<BatchCancellation> {
  const cleanReason = cleanRefundReason(reason);
  return inTransaction(ctx.db, async (trx) => {
    await loadAgentBatch(trx, agentId, batchId);
    // Applications to the batch wait (they lock it too), so none lands on a task being refunded.
    const locked = await lockBatch(trx, batchId);
    assertInvariant(locked, 'a batch just read exists');
    const refunded: TaskRow[] = [];
    const kept: BatchCancellation['kept'] = [];
    for (const task of await listTasksOfBatch(trx, batchId)) {
      if (task.status === 'COMPLETED' || task.status === 'CANCELLED') {
        kept.push({ task, reason: `The task is already ${task.status}` });
        continue;
      }
      try {
        refunded.push((await cancelInTransaction(trx, ctx, task, 'refund', cleanReason)).task);
      } catch (error) {
        // Refusals are thrown before the refund writes anything (cancelInTransaction).
        if (!(error instanceof DomainError) || error.kind !== 'conflict') throw error;
        kept.push({ task, reason: error.message });
      }
    }
    const batch = await findBatch(trx, batchId);
    assertInvariant(batch, 'a batch just read exists');
    const counts = await countBatchTasksByStatus(trx, [batchId]);
    return { batch, counts: counts.get(batchId) ?? new Map(), refunded, kept };
  });
}

/**
 * Whether this worker may take one more place of the task's batch (apply to one of its tasks):
 * with a maxPerWorker, the places they hold, held or wait for must stay below it. Called in the
 * application's transaction; the batch row is locked first, so a worker's concurrent applications
 * to one batch count one after the other and at most maxPerWorker get through.
 */
export async function checkBatchPlace(trx: Executor, task: TaskRow, workerId: string): Promise<void> {
  if (task.batch_id)
    await lockBatchForPlace(trx, task.batch_id, workerId, 'This task is one of a batch that');
}

/**
 * checkBatchPlace by the batch's id: locks the batch row, refuses a worker at their maxPerWorker
 * (409, the sentence starting with `subject`) and returns the locked batch.
 */
export async function lockBatchForPlace(
  trx: Executor,
  batchId: string,
  workerId: string,
  subject = 'This batch',
): Promise<BatchRow> {
  const batch = await lockBatch(trx, batchId);
  assertInvariant(batch, `the batch ${batchId} exists`);
  if (batch.max_per_worker === null) return batch;
  const places = await countWorkerPlacesInBatch(trx, batch.id, workerId);
  if (places < batch.max_per_worker) return batch;
  throw conflict(
    batch.max_per_worker === 1
      ? `${subject} takes each person once, and you already applied for or hold one of its tasks`
      : `${subject} takes each person at most ${batch.max_per_worker} times, and you already applied for or hold ${places} of its tasks`,
    { batchId: batch.id, maxPerWorker: batch.max_per_worker },
  );
}
