import type { Insertable } from 'kysely';
import type { Database, ModerationAction } from '../schema.js';
import type { Executor, Position, TaskRow } from './executor.js';

export function insertModerationLog(db: Executor, row: Insertable<Database['moderation_log']>) {
  return db.insertInto('moderation_log').values(row).execute();
}

/** How many of `actions` the agent had since `since` (the freeze threshold's count). */
export async function countAgentModeration(
  db: Executor,
  agentId: string,
  actions: ModerationAction[],
  since: string,
): Promise<number> {
  const row = await db
    .selectFrom('moderation_log')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('agent_id', '=', agentId)
    .where('action', 'in', actions)
    .where('created_at', '>=', since)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** A task's log, oldest first (the operator's view of why it was held and who decided). */
export function listTaskModeration(db: Executor, taskId: string, limit: number) {
  return db
    .selectFrom('moderation_log')
    .selectAll()
    .where('task_id', '=', taskId)
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** Held tasks an operator has not decided on, oldest first (after `after`), with their agent's name. */
export function listHeldTasks(db: Executor, after: Position | null, limit: number) {
  let query = db
    .selectFrom('tasks')
    .innerJoin('agents', 'agents.id', 'tasks.agent_id')
    .selectAll('tasks')
    .select(['agents.name as agent_name'])
    .where('tasks.moderation_status', '=', 'PENDING')
    .where('tasks.status', 'in', ['FUNDED', 'OFFERED']);
  if (after) {
    query = query.where((eb) =>
      eb.or([
        eb('tasks.created_at', '>', after.createdAt),
        eb.and([eb('tasks.created_at', '=', after.createdAt), eb('tasks.id', '>', after.id)]),
      ]),
    );
  }
  return query.orderBy('tasks.created_at').orderBy('tasks.id').limit(limit).execute();
}

/** Compare-and-set PENDING -> APPROVED: the task becomes visible to workers. */
export function approveHeldTask(db: Executor, taskId: string, at: string): Promise<TaskRow | undefined> {
  return db
    .updateTable('tasks')
    .set({ moderation_status: 'APPROVED', updated_at: at })
    .where('id', '=', taskId)
    .where('moderation_status', '=', 'PENDING')
    .where('status', 'in', ['FUNDED', 'OFFERED'])
    .returningAll()
    .executeTakeFirst();
}
