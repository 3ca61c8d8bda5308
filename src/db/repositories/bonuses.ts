import { sql } from 'kysely';
import type { Executor, TaskBonusRow, TaskRow } from './executor.js';

/** Bonuses (migration 0041, src/domain/money/bonuses.ts): one row per bonus paid. */
export async function insertBonus(db: Executor, row: TaskBonusRow): Promise<void> {
  await db.insertInto('task_bonuses').values(row).execute();
}

/** The bonus an agent already paid under this Idempotency-Key, if any (unique per agent). */
export function findBonusByKey(db: Executor, agentId: string, key: string) {
  return db
    .selectFrom('task_bonuses')
    .selectAll()
    .where('agent_id', '=', agentId)
    .where('idempotency_key', '=', key)
    .executeTakeFirst();
}

/** A task's bonuses, oldest first (at most a handful: the domain bounds them per task). */
export function listBonusesOfTask(db: Executor, taskId: string) {
  return db
    .selectFrom('task_bonuses')
    .selectAll()
    .where('task_id', '=', taskId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/**
 * The compare-and-set that admits one more bonus on a task: still COMPLETED, completed at or after
 * `completedSince`, fewer than `maxCount` bonuses so far. It raises the count and the sums the
 * task's money view shows; undefined when another bonus took the last place first (or the task
 * is no longer what the caller read).
 */
export function recordBonusOnTask(
  db: Executor,
  taskId: string,
  bonus: { amountNano: bigint; feeNano: bigint; maxCount: number; completedSince: string; at: string },
): Promise<TaskRow | undefined> {
  return db
    .updateTable('tasks')
    .set({
      bonus_count: sql`bonus_count + 1`,
      bonus_nano: sql`bonus_nano + ${bonus.amountNano}`,
      bonus_fee_nano: sql`bonus_fee_nano + ${bonus.feeNano}`,
      updated_at: bonus.at,
    })
    .where('id', '=', taskId)
    .where('status', '=', 'COMPLETED')
    .where('completed_at', '>=', bonus.completedSince)
    .where('bonus_count', '<', bonus.maxCount)
    .returningAll()
    .executeTakeFirst();
}
