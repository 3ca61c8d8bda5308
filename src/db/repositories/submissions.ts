import type { SubmissionStatus } from '../schema.js';
import type { Executor, SubmissionRow } from './executor.js';

export async function insertSubmission(db: Executor, row: SubmissionRow): Promise<void> {
  await db.insertInto('submissions').values(row).execute();
}

/** A task's submissions, newest first (a task has at most 4: one per revision plus the first). */
export function listTaskSubmissions(db: Executor, taskId: string, limit: number): Promise<SubmissionRow[]> {
  return db
    .selectFrom('submissions')
    .selectAll()
    .where('task_id', '=', taskId)
    .orderBy('number', 'desc')
    .limit(limit)
    .execute();
}

export function latestSubmission(db: Executor, taskId: string): Promise<SubmissionRow | undefined> {
  return db
    .selectFrom('submissions')
    .selectAll()
    .where('task_id', '=', taskId)
    .orderBy('number', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** The latest submission of each task, in one query (task lists). */
export async function latestSubmissions(
  db: Executor,
  taskIds: string[],
): Promise<Map<string, SubmissionRow>> {
  if (taskIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('submissions')
    .selectAll()
    .where('task_id', 'in', taskIds)
    .orderBy('number', 'desc')
    .execute();
  const latest = new Map<string, SubmissionRow>();
  for (const row of rows) if (!latest.has(row.task_id)) latest.set(row.task_id, row);
  return latest;
}

/**
 * Compare-and-set on the task's waiting submission: PENDING -> `to`. Returns the updated row,
 * or undefined when no submission of the task waits any more (another decision came first).
 */
export function decidePendingSubmission(
  db: Executor,
  taskId: string,
  to: Exclude<SubmissionStatus, 'PENDING'>,
  now: string,
  revisionReason: string | null = null,
): Promise<SubmissionRow | undefined> {
  return db
    .updateTable('submissions')
    .set({ status: to, decided_at: now, updated_at: now, revision_reason: revisionReason })
    .where('task_id', '=', taskId)
    .where('status', '=', 'PENDING')
    .returningAll()
    .executeTakeFirst();
}

export function findPendingSubmission(db: Executor, taskId: string): Promise<SubmissionRow | undefined> {
  return db
    .selectFrom('submissions')
    .selectAll()
    .where('task_id', '=', taskId)
    .where('status', '=', 'PENDING')
    .executeTakeFirst();
}

/**
 * How long the agent took over its newest decided submissions, in milliseconds (for the
 * median a worker sees). Bounded: the newest `limit` decisions say enough about a habit.
 */
export async function reviewDurations(db: Executor, agentId: string, limit: number): Promise<number[]> {
  const rows = await db
    .selectFrom('submissions')
    .innerJoin('tasks', 'tasks.id', 'submissions.task_id')
    .select(['submissions.created_at', 'submissions.decided_at'])
    .where('tasks.agent_id', '=', agentId)
    .where('submissions.decided_at', 'is not', null)
    .orderBy('submissions.decided_at', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => Date.parse(r.decided_at!) - Date.parse(r.created_at));
}
