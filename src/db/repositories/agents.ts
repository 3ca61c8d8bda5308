import { sql } from 'kysely';
import { compiledOnce } from '../compiledQuery.js';
import type { AgentRow, Executor } from './executor.js';

export async function insertAgent(
  db: Executor,
  row: { id: string; name: string | null; now: string; ownerId?: string | null },
) {
  await db
    .insertInto('agents')
    .values({
      id: row.id,
      name: row.name,
      webhook_url: null,
      owner_id: row.ownerId ?? null,
      created_at: row.now,
      updated_at: row.now,
    })
    .execute();
}

const selectAgent = compiledOnce((db: Executor, id: string) =>
  db.selectFrom('agents').selectAll().where('id', '=', id),
);

export async function findAgent(db: Executor, id: string): Promise<AgentRow | undefined> {
  return (await selectAgent(db, id))[0];
}

/** An owner's agents, newest first. */
export function listOwnerAgents(db: Executor, ownerId: string, limit: number): Promise<AgentRow[]> {
  return db
    .selectFrom('agents')
    .selectAll()
    .where('owner_id', '=', ownerId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

export async function countOwnerAgents(db: Executor, ownerId: string): Promise<number> {
  const row = await db
    .selectFrom('agents')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('owner_id', '=', ownerId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
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
/** Credits a deposit, only while the agent's deposits stay within `maxDepositedNano`. */
export function creditDeposit(
  db: Executor,
  id: string,
  amountNano: bigint,
  maxDepositedNano: bigint,
  now: string,
) {
  return db
    .updateTable('agents')
    .set({
      balance_nano: sql`balance_nano + ${amountNano}`,
      deposited_nano: sql`deposited_nano + ${amountNano}`,
      updated_at: now,
    })
    .where('id', '=', id)
    .where('deposited_nano', '<=', maxDepositedNano - amountNano)
    .returningAll()
    .executeTakeFirst();
}

/** Deposits every agent ever received: what bounds every money sum in the books. */
export async function totalDeposited(db: Executor): Promise<bigint> {
  const row = await db
    .selectFrom('agents')
    .select(sql<bigint>`coalesce(sum(deposited_nano), 0)`.as('total_nano'))
    .executeTakeFirstOrThrow();
  return row.total_nano;
}

/** Moves `amountNano` from balance to locked, only if the balance covers it. */
const lockFundsQuery = compiledOnce((db: Executor, id: string, amountNano: bigint, now: string) =>
  db
    .updateTable('agents')
    .set({
      balance_nano: sql`balance_nano - ${amountNano}`,
      locked_nano: sql`locked_nano + ${amountNano}`,
      updated_at: now,
    })
    .where('id', '=', id)
    .where('balance_nano', '>=', amountNano)
    .returningAll(),
);

export async function lockFunds(db: Executor, id: string, amountNano: bigint, now: string) {
  return (await lockFundsQuery(db, id, amountNano, now))[0];
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
