import type { ExpressionBuilder } from 'kysely';
import type { Database } from '../schema.js';
import type { Executor, TaskRow } from './executor.js';

type PlaceScope = ExpressionBuilder<Database & { place: Database['tasks'] }, 'place'>;

/**
 * A batch's place is open while its task is FUNDED, shown to workers, offered to nobody and has
 * no waiting application: the first worker to apply holds it (docs/decisions/batches.md, "One
 * card per batch"). A held place frees again when its application is rejected or the task
 * expires back to FUNDED.
 */
function isOpenPlace(eb: PlaceScope) {
  return eb.and([
    eb('place.status', '=', 'FUNDED'),
    eb('place.worker_id', 'is', null),
    eb.or([eb('place.moderation_status', 'is', null), eb('place.moderation_status', '=', 'APPROVED')]),
    eb.not(
      eb.exists(
        eb
          .selectFrom('applications as held')
          .select('held.id')
          .whereRef('held.task_id', '=', 'place.id')
          .where('held.status', 'in', ['PENDING', 'OFFERED']),
      ),
    ),
  ]);
}

/** Places this worker never applied to (any status: one application per task and worker). */
function notAppliedBy(workerId: string) {
  return (eb: PlaceScope) =>
    eb.not(
      eb.exists(
        eb
          .selectFrom('applications as mine')
          .select('mine.id')
          .whereRef('mine.task_id', '=', 'place.id')
          .where('mine.worker_id', '=', workerId),
      ),
    );
}

/**
 * The next open place of the batch this worker can take: the oldest open task they never applied
 * to (one application per task and worker). Read under the batch row's lock (applyToBatch), so
 * two workers never get the same place.
 */
export function findNextOpenPlace(
  db: Executor,
  batchId: string,
  workerId: string,
): Promise<TaskRow | undefined> {
  return db
    .selectFrom('tasks as place')
    .selectAll('place')
    .where('place.batch_id', '=', batchId)
    .where(isOpenPlace)
    .where(notAppliedBy(workerId))
    .orderBy('place.created_at')
    .orderBy('place.id')
    .limit(1)
    .executeTakeFirst();
}

/** Open places of each batch: batch id -> count (a batch with none is absent). */
export async function countOpenPlaces(db: Executor, batchIds: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (batchIds.length === 0) return out;
  const rows = await db
    .selectFrom('tasks as place')
    .select(['place.batch_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('place.batch_id', 'in', batchIds)
    .where(isOpenPlace)
    .groupBy('place.batch_id')
    .execute();
  for (const row of rows) if (row.batch_id) out.set(row.batch_id, Number(row.n));
  return out;
}

/**
 * The one task that stands for its batch in this worker's list of open tasks: its next open place
 * for them (as findNextOpenPlace). A condition on `tasks`, for listOpenTasks.
 */
export function isBatchCardFor(workerId: string) {
  return (eb: ExpressionBuilder<Database, 'tasks'>) =>
    eb.or([
      eb('tasks.batch_id', 'is', null),
      eb(
        'tasks.id',
        '=',
        eb
          .selectFrom('tasks as place')
          .select('place.id')
          .whereRef('place.batch_id', '=', 'tasks.batch_id')
          .where(isOpenPlace)
          .where(notAppliedBy(workerId))
          .orderBy('place.created_at')
          .orderBy('place.id')
          .limit(1),
      ),
    ]);
}

/** The batch row's facts a worker's card shows, for the batches of one page. */
export function findBatchesByIds(db: Executor, ids: string[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('batches')
    .select(['id', 'task_count', 'max_per_worker'])
    .where('id', 'in', ids)
    .execute();
}

/** FUNDED tasks of the batch: none left means every place is taken for good (assigned or ended). */
export async function countFundedTasksOfBatch(db: Executor, batchId: string): Promise<number> {
  const row = await db
    .selectFrom('tasks')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('batch_id', '=', batchId)
    .where('status', '=', 'FUNDED')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** This worker's places in each batch, counted as maxPerWorker counts them (countWorkerPlacesInBatch). */
export async function countWorkerPlacesInBatches(
  db: Executor,
  batchIds: string[],
  workerId: string,
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (batchIds.length === 0) return out;
  const rows = await db
    .selectFrom('applications')
    .innerJoin('tasks', 'tasks.id', 'applications.task_id')
    .select(['tasks.batch_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('tasks.batch_id', 'in', batchIds)
    .where('applications.worker_id', '=', workerId)
    .where('applications.status', 'in', ['PENDING', 'OFFERED', 'ACCEPTED'])
    .groupBy('tasks.batch_id')
    .execute();
  for (const row of rows) if (row.batch_id) out.set(row.batch_id, Number(row.n));
  return out;
}
