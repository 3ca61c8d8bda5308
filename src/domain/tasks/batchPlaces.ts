import { findBatch } from '../../db/repositories/batches.js';
import {
  countOpenPlaces,
  countWorkerPlacesInBatches,
  findBatchesByIds,
  findNextOpenPlace,
} from '../../db/repositories/batchPlaces.js';
import { lockTaskIn } from '../../db/repositories/tasks.js';
import { agentIsLive } from '../agents/testMode.js';
import type { DomainContext } from '../context.js';
import { conflict, notFound } from '../errors.js';
import { isIdOf } from '../ids.js';
import { inTransaction, isUniqueViolation } from '../transaction.js';
import { alreadyApplied, applicantFor, recordApplication } from './applications.js';
import { lockBatchForPlace } from './batches.js';

/** What a worker's card of a batch shows (GET /worker/tasks). */
export interface BatchCardFacts {
  id: string;
  count: number;
  placesLeft: number;
  maxPerWorker: number | null;
  yourPlaces: number;
}

/**
 * POST /worker/batches/:id/applications: the worker applies to the batch and their application
 * takes its next open place (the oldest FUNDED task without a waiting application), so a batch's
 * applicants never queue on one task. The batch row is locked first (lockBatchForPlace, which
 * also holds maxPerWorker), so concurrent applications take places one after the other: of two
 * workers after the last place, one gets it and the other a 409 saying the batch is full.
 */
export async function applyToBatch(ctx: DomainContext, workerId: string, batchId: string, message: string) {
  const worker = await applicantFor(ctx, workerId, message);
  const batch = isIdOf('taskBatch', batchId) ? await findBatch(ctx.db, batchId) : undefined;
  // A test agent's batch is invisible to real workers, as its tasks are.
  if (!batch || !(await agentIsLive(ctx.db, batch.agent_id))) throw notFound('Batch');
  try {
    return await inTransaction(ctx.db, async (trx) => {
      await lockBatchForPlace(trx, batch.id, workerId);
      const place = await findNextOpenPlace(trx, batch.id, workerId);
      // A single refund locks only the task, so the place found can have ended meanwhile: full too.
      if (!place || !(await lockTaskIn(trx, place.id, ['FUNDED']))) throw batchFull(batch.id);
      const application = await recordApplication(ctx, trx, place, worker, message);
      return { application, task: place };
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw alreadyApplied();
    throw error;
  }
}

const batchFull = (batchId: string) =>
  conflict('This batch is full: every place is taken. Choose another task from the list', { batchId });

/** The card facts of the batches on a page of open tasks, for this worker: batch id -> facts. */
export async function batchCardsFor(
  ctx: DomainContext,
  workerId: string,
  batchIds: string[],
): Promise<Map<string, BatchCardFacts>> {
  const ids = [...new Set(batchIds)];
  const out = new Map<string, BatchCardFacts>();
  if (ids.length === 0) return out;
  const batches = await findBatchesByIds(ctx.db, ids);
  const open = await countOpenPlaces(ctx.db, ids);
  const mine = await countWorkerPlacesInBatches(ctx.db, ids, workerId);
  for (const b of batches) {
    out.set(b.id, {
      id: b.id,
      count: b.task_count,
      placesLeft: open.get(b.id) ?? 0,
      maxPerWorker: b.max_per_worker,
      yourPlaces: mine.get(b.id) ?? 0,
    });
  }
  return out;
}
