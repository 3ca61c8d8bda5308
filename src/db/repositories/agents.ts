import { sql } from 'kysely';
import type { AgentRow, Executor } from './executor.js';

export async function insertAgent(db: Executor, row: { id: string; name: string | null; now: string }) {
  await db
    .insertInto('agents')
    .values({ id: row.id, name: row.name, webhook_url: null, created_at: row.now, updated_at: row.now })
    .execute();
}

export function findAgent(db: Executor, id: string): Promise<AgentRow | undefined> {
  return db.selectFrom('agents').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateAgentProfile(
  db: Executor,
  id: string,
  patch: { name?: string; webhook_url?: string | null },
  now: string,
): Promise<AgentRow | undefined> {
  return db
    .updateTable('agents')
    .set({ ...patch, updated_at: now })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/**
 * The four balance moves. Each is one compare-and-set UPDATE: the WHERE clause refuses the move
 * when the money is not there, and the table's CHECK constraints refuse any result that breaks
 * conservation. Each returns the updated row, or undefined when the guard refused.
 */
export function creditDeposit(db: Executor, id: string, amountNano: bigint, now: string) {
  return db
    .updateTable('agents')
    .set({
      balance_nano: sql`balance_nano + ${amountNano}`,
      deposited_nano: sql`deposited_nano + ${amountNano}`,
      updated_at: now,
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** Moves `amountNano` from balance to locked, only if the balance covers it. */
export function lockFunds(db: Executor, id: string, amountNano: bigint, now: string) {
  return db
    .updateTable('agents')
    .set({
      balance_nano: sql`balance_nano - ${amountNano}`,
      locked_nano: sql`locked_nano + ${amountNano}`,
      updated_at: now,
    })
    .where('id', '=', id)
    .where('balance_nano', '>=', amountNano)
    .returningAll()
    .executeTakeFirst();
}

/** Returns locked money to the balance (cancel, refund). */
export function unlockFunds(db: Executor, id: string, amountNano: bigint, now: string) {
  return db
    .updateTable('agents')
    .set({
      balance_nano: sql`balance_nano + ${amountNano}`,
      locked_nano: sql`locked_nano - ${amountNano}`,
      updated_at: now,
    })
    .where('id', '=', id)
    .where('locked_nano', '>=', amountNano)
    .returningAll()
    .executeTakeFirst();
}

/** Locked money leaves the agent for good (completion: reward to the worker, fee to the platform). */
export function spendLockedFunds(db: Executor, id: string, amountNano: bigint, now: string) {
  return db
    .updateTable('agents')
    .set({
      locked_nano: sql`locked_nano - ${amountNano}`,
      spent_nano: sql`spent_nano + ${amountNano}`,
      updated_at: now,
    })
    .where('id', '=', id)
    .where('locked_nano', '>=', amountNano)
    .returningAll()
    .executeTakeFirst();
}

export async function addAgentRating(db: Executor, id: string, score: number): Promise<void> {
  await db
    .updateTable('agents')
    .set({ rating_sum: sql`rating_sum + ${score}`, rating_count: sql`rating_count + 1` })
    .where('id', '=', id)
    .execute();
}

export async function countAgentTasks(db: Executor, agentId: string): Promise<number> {
  const row = await db
    .selectFrom('tasks')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('agent_id', '=', agentId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
