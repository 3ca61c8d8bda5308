import type { ExpressionBuilder, Insertable } from 'kysely';
import type { Database } from '../schema.js';
import type { Executor, TaskRow } from './executor.js';

/** Inserts the worker's report of a task; false when this worker had reported it already. */
export async function insertTaskReport(db: Executor, row: Insertable<Database['task_reports']>) {
  const result = await db
    .insertInto('task_reports')
    .values(row)
    .onConflict((oc) => oc.columns(['task_id', 'worker_id']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** How many different workers reported the task (one row each, by the unique constraint). */
export async function countTaskReports(db: Executor, taskId: string): Promise<number> {
  const row = await db
    .selectFrom('task_reports')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('task_id', '=', taskId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * Compare-and-set: hides a task workers reported until an operator decides (the queue of
 * GET /admin/moderation). Only a task no one held or decided yet and still open to workers.
 */
export function holdReportedTask(db: Executor, taskId: string, rule: string, at: string) {
  return db
    .updateTable('tasks')
    .set({ moderation_status: 'PENDING', moderation_rule: rule, updated_at: at })
    .where('id', '=', taskId)
    .where('moderation_status', 'is', null)
    .where('status', 'in', ['FUNDED', 'OFFERED'])
    .returningAll()
    .executeTakeFirst() as Promise<TaskRow | undefined>;
}

export async function insertBlock(db: Executor, workerId: string, agentId: string, at: string) {
  await db
    .insertInto('worker_blocks')
    .values({ worker_id: workerId, agent_id: agentId, created_at: at })
    .onConflict((oc) => oc.columns(['worker_id', 'agent_id']).doNothing())
    .execute();
}

export async function deleteBlock(db: Executor, workerId: string, agentId: string) {
  await db
    .deleteFrom('worker_blocks')
    .where('worker_id', '=', workerId)
    .where('agent_id', '=', agentId)
    .execute();
}

/** The agents a worker blocked, newest first, with their names (the profile's list). */
export function listBlocks(db: Executor, workerId: string, limit: number) {
  return db
    .selectFrom('worker_blocks')
    .innerJoin('agents', 'agents.id', 'worker_blocks.agent_id')
    .select(['worker_blocks.agent_id', 'agents.name', 'worker_blocks.created_at'])
    .where('worker_blocks.worker_id', '=', workerId)
    .orderBy('worker_blocks.created_at', 'desc')
    .orderBy('worker_blocks.agent_id', 'desc')
    .limit(limit)
    .execute();
}

export async function isBlocked(db: Executor, workerId: string, agentId: string): Promise<boolean> {
  const row = await db
    .selectFrom('worker_blocks')
    .select('agent_id')
    .where('worker_id', '=', workerId)
    .where('agent_id', '=', agentId)
    .executeTakeFirst();
  return row !== undefined;
}

/** For worker lists: tasks whose agent this worker has not blocked. */
export const notBlockedBy =
  (workerId: string) =>
  ({ not, exists, selectFrom }: ExpressionBuilder<Database, 'tasks'>) =>
    not(
      exists(
        selectFrom('worker_blocks')
          .select('worker_blocks.agent_id')
          .whereRef('worker_blocks.agent_id', '=', 'tasks.agent_id')
          .where('worker_blocks.worker_id', '=', workerId),
      ),
    );
