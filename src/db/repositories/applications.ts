import type { ApplicationStatus } from '../../domain/tasks/states.js';
import { compiledOnce } from '../compiledQuery.js';
import type { ApplicationRow, Executor, Position } from './executor.js';
import { olderThan } from './pagination.js';

export async function insertApplication(db: Executor, row: ApplicationRow): Promise<void> {
  await db.insertInto('applications').values(row).execute();
}

export function findApplication(db: Executor, id: string): Promise<ApplicationRow | undefined> {
  return db.selectFrom('applications').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findApplicationOf(db: Executor, taskId: string, workerId: string) {
  return db
    .selectFrom('applications')
    .selectAll()
    .where('task_id', '=', taskId)
    .where('worker_id', '=', workerId)
    .executeTakeFirst();
}

/** The task's application in one of `statuses` (at most one is ACCEPTED or OFFERED at a time). */
export function findTaskApplicationIn(db: Executor, taskId: string, statuses: ApplicationStatus[]) {
  return db
    .selectFrom('applications')
    .selectAll()
    .where('task_id', '=', taskId)
    .where('status', 'in', statuses)
    .executeTakeFirst();
}

/** Compare-and-set on the application's status. */
export function setApplicationStatus(
  db: Executor,
  id: string,
  from: ApplicationStatus[],
  to: ApplicationStatus,
  now: string,
): Promise<ApplicationRow | undefined> {
  return db
    .updateTable('applications')
    .set({ status: to, updated_at: now })
    .where('id', '=', id)
    .where('status', 'in', from)
    .returningAll()
    .executeTakeFirst();
}

/** Rejects every other PENDING application of the task and returns them (for their events). */
export function rejectOtherPending(db: Executor, taskId: string, exceptId: string, now: string) {
  return db
    .updateTable('applications')
    .set({ status: 'REJECTED', updated_at: now })
    .where('task_id', '=', taskId)
    .where('id', '!=', exceptId)
    .where('status', '=', 'PENDING')
    .returningAll()
    .execute();
}

/**
 * Applications of a task with their applicants, newest first. Exported for bench/readFloor.ts,
 * which runs the first page's SQL without the app around it.
 */
export function taskApplications(db: Executor, taskId: string, after: Position | null, limit: number) {
  let query = db
    .selectFrom('applications')
    .innerJoin('workers', 'workers.id', 'applications.worker_id')
    .selectAll('applications')
    .select([
      'workers.username as worker_username',
      'workers.first_name as worker_first_name',
      'workers.last_name as worker_last_name',
      'workers.wallet_address as worker_wallet_address',
      'workers.show_telegram as worker_show_telegram',
    ])
    .where('applications.task_id', '=', taskId);
  if (after) query = query.where(olderThan(after, 'applications'));
  return query.orderBy('applications.created_at', 'desc').orderBy('applications.id', 'desc').limit(limit);
}

type FirstPage = (db: Executor, taskId: string) => Promise<Awaited<ReturnType<typeof listFirstPage>>>;
const listFirstPage = (db: Executor, taskId: string, limit: number) =>
  taskApplications(db, taskId, null, limit).execute();

/**
 * The first page (GET /tasks/:id shows it on every read) is compiled once per page size, with
 * the size in the SQL text rather than a parameter (see src/db/literalLimits.ts). Page sizes are
 * bounded by the routes (at most 101); the map is bounded all the same.
 */
const firstPages = new Map<number, FirstPage>();
const MAX_FIRST_PAGES = 128;

function firstTaskApplications(limit: number): FirstPage {
  let run = firstPages.get(limit);
  if (!run) {
    if (firstPages.size >= MAX_FIRST_PAGES) return (db, taskId) => listFirstPage(db, taskId, limit);
    run = compiledOnce((db: Executor, taskId: string) => taskApplications(db, taskId, null, limit));
    firstPages.set(limit, run);
  }
  return run;
}

export function listTaskApplications(db: Executor, taskId: string, after: Position | null, limit: number) {
  if (!after) return firstTaskApplications(limit)(db, taskId);
  return taskApplications(db, taskId, after, limit).execute();
}

/** A worker's own applications with their tasks, newest first. */
export function listWorkerApplications(
  db: Executor,
  workerId: string,
  after: Position | null,
  limit: number,
) {
  let query = db
    .selectFrom('applications')
    .innerJoin('tasks', 'tasks.id', 'applications.task_id')
    .selectAll('applications')
    .select([
      'tasks.title as task_title',
      'tasks.status as task_status',
      'tasks.reward_nano as task_reward_nano',
      'tasks.currency as task_currency',
    ])
    .where('applications.worker_id', '=', workerId);
  if (after) query = query.where(olderThan(after, 'applications'));
  return query
    .orderBy('applications.created_at', 'desc')
    .orderBy('applications.id', 'desc')
    .limit(limit)
    .execute();
}

/** PENDING and OFFERED applications of a cancelled task can no longer win. */
/** Rejects the applications and offer still waiting; returns whose they were. */
export function rejectWaitingApplications(db: Executor, taskId: string, now: string) {
  return db
    .updateTable('applications')
    .set({ status: 'REJECTED', updated_at: now })
    .where('task_id', '=', taskId)
    .where('status', 'in', ['PENDING', 'OFFERED'])
    .returning(['id', 'worker_id'])
    .execute();
}

/** How many applications each of these tasks has (any state), for a page of task rows. */
export async function countApplicationsByTask(db: Executor, taskIds: string[]): Promise<Map<string, number>> {
  if (taskIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('applications')
    .select(['task_id', (eb) => eb.fn.countAll<number | string | bigint>().as('n')])
    .where('task_id', 'in', taskIds)
    .groupBy('task_id')
    .execute();
  // PostgreSQL's count is a bigint, read back as a string.
  return new Map(rows.map((r) => [r.task_id, Number(r.n)]));
}
