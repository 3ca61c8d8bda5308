import type { Executor } from './executor.js';

/** Transactions read by the wallet follower's walk and not yet processed (see chainWalk.ts). */

/** 20 digits hold any 64-bit lt, so text order is chain order. */
export function ltKey(lt: bigint): string {
  return lt.toString().padStart(20, '0');
}

/** Keeps a page's transactions; one read twice (pages overlap or repeat) is kept once. */
export async function keepWalkTransactions(
  db: Executor,
  rows: { hash: string; lt: bigint; boc: string }[],
): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('chain_walk_transactions')
    .values(rows.map((r) => ({ hash: r.hash, lt: ltKey(r.lt), boc: r.boc })))
    .onConflict((oc) => oc.column('hash').doNothing())
    .execute();
}

/** The oldest `limit` kept transactions, oldest first. */
export function oldestWalkTransactions(db: Executor, limit: number) {
  return db
    .selectFrom('chain_walk_transactions')
    .select(['hash', 'lt', 'boc'])
    .orderBy('lt')
    .orderBy('hash')
    .limit(limit)
    .execute();
}

export async function countWalkTransactions(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('chain_walk_transactions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Forgets the kept transactions up to `lt` (inclusive): they are processed. */
export async function dropWalkTransactionsUpTo(db: Executor, lt: bigint): Promise<void> {
  await db.deleteFrom('chain_walk_transactions').where('lt', '<=', ltKey(lt)).execute();
}

export async function dropAllWalkTransactions(db: Executor): Promise<void> {
  await db.deleteFrom('chain_walk_transactions').execute();
}
