import type { TaskStatus } from '../../domain/tasks/states.js';
import type { BatchRow, Executor, Position, TaskRow, TransactionRow } from './executor.js';
import { olderThan } from './pagination.js';

/**
 * Rows per multi-row INSERT of a batch's tasks: 200 rows of a task's ~45 columns stay far below
 * both databases' limits on bound parameters (PostgreSQL 65,535; SQLite 32,766), and a 500-task
 * batch is three statements instead of 500.
 */
const TASK_ROWS_PER_INSERT = 200;
/** A ledger row has 12 columns: 500 of them fit one statement on both databases. */
const LEDGER_ROWS_PER_INSERT = 500;

export async function insertBatch(db: Executor, row: BatchRow): Promise<void> {
  await db.insertInto('batches').values(row).execute();
}

/** The tasks of a new batch, in order, in as few statements as the parameter limits allow. */
export async function insertTasks(db: Executor, rows: TaskRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += TASK_ROWS_PER_INSERT) {
    await db
      .insertInto('tasks')
      .values(rows.slice(i, i + TASK_ROWS_PER_INSERT))
      .execute();
  }
}

export async function insertLedgerRows(db: Executor, rows: TransactionRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += LEDGER_ROWS_PER_INSERT) {
    await db
      .insertInto('transactions')
      .values(rows.slice(i, i + LEDGER_ROWS_PER_INSERT))
      .execute();
  }
}

export function findBatch(db: Executor, id: string): Promise<BatchRow | undefined> {
  return db.selectFrom('batches').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Locks the batch row for the rest of the transaction (a no-op UPDATE is the portable FOR
 * UPDATE) and returns it: applications to one batch count its places one after the other, and
 * of two transactions ending its last two tasks the second sees the first's.
 */
export function lockBatch(db: Executor, id: string): Promise<BatchRow | undefined> {
  return db
    .updateTable('batches')
    .set((eb) => ({ updated_at: eb.ref('updated_at') }))
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** An agent's batches, newest first. */
export function listAgentBatches(db: Executor, agentId: string, after: Position | null, limit: number) {
  let query = db.selectFrom('batches').selectAll().where('agent_id', '=', agentId);
  if (after) query = query.where(olderThan(after));
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** How many tasks of each batch are in each status: batch id -> status -> count. */
export async function countBatchTasksByStatus(
  db: Executor,
  batchIds: string[],
): Promise<Map<string, Map<TaskStatus, number>>> {
  const out = new Map<string, Map<TaskStatus, number>>();
  if (batchIds.length === 0) return out;
  const rows = await db
    .selectFrom('tasks')
    .select(['batch_id', 'status', (eb) => eb.fn.countAll<number>().as('n')])
    .where('batch_id', 'in', batchIds)
    .groupBy(['batch_id', 'status'])
    .execute();
  for (const row of rows) {
    if (!row.batch_id) continue;
    const counts = out.get(row.batch_id) ?? new Map<TaskStatus, number>();
    counts.set(row.status, Number(row.n));
    out.set(row.batch_id, counts);
  }
  return out;
}

/** Tasks of the batch not yet COMPLETED or CANCELLED. */
export async function countUnendedTasksOfBatch(db: Executor, batchId: string): Promise<number> {
  const row = await db
    .selectFrom('tasks')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('batch_id', '=', batchId)
    .where('status', 'not in', ['COMPLETED', 'CANCELLED'])
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Every task of the batch, oldest first (the order they were given in). */
export function listTasksOfBatch(db: Executor, batchId: string): Promise<TaskRow[]> {
  return db
    .selectFrom('tasks')
    .selectAll()
    .where('batch_id', '=', batchId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** Compare-and-set: marks the batch completed once; undefined when it already was. */
export function markBatchCompleted(db: Executor, id: string, now: string) {
  return db
    .updateTable('batches')
    .set({ completed_at: now, updated_at: now })
    .where('id', '=', id)
    .where('completed_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/**
 * The tasks of the batch this worker holds, held or is waiting for: applications of theirs that
 * are pending, offered or accepted (an accepted one stays ACCEPTED after the task expired back to
 * FUNDED, so a place once held keeps counting; a rejected or declined one does not).
 */
export async function countWorkerPlacesInBatch(db: Executor, batchId: string, workerId: string) {
  const row = await db
    .selectFrom('applications')
    .innerJoin('tasks', 'tasks.id', 'applications.task_id')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tasks.batch_id', '=', batchId)
    .where('applications.worker_id', '=', workerId)
    .where('applications.status', 'in', ['PENDING', 'OFFERED', 'ACCEPTED'])
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
