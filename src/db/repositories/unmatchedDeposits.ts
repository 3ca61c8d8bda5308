import type { Insertable, Selectable } from 'kysely';
import type { Database } from '../schema.js';
import type { Executor } from './executor.js';

export type UnmatchedDepositRow = Selectable<Database['unmatched_deposits']>;

/**
 * Keeps a deposit nobody could be credited for; a replay of the same transaction changes nothing.
 * `currency` defaults to TON (the jetton columns are for jetton notifications only).
 */
export async function insertUnmatchedDeposit(
  db: Executor,
  row: Insertable<Database['unmatched_deposits']>,
): Promise<void> {
  await db
    .insertInto('unmatched_deposits')
    .values(row)
    .onConflict((oc) => oc.column('tx_hash').doNothing())
    .execute();
}

export function listUnmatchedDeposits(db: Executor, status: UnmatchedDepositRow['status'], limit: number) {
  return db
    .selectFrom('unmatched_deposits')
    .selectAll()
    .where('status', '=', status)
    .orderBy('created_at')
    .orderBy('tx_hash')
    .limit(limit)
    .execute();
}

export function findUnmatchedDeposit(db: Executor, txHash: string) {
  return db.selectFrom('unmatched_deposits').selectAll().where('tx_hash', '=', txHash).executeTakeFirst();
}

/** Compare-and-set from open; returns the row when this call resolved it. */
export function resolveUnmatchedDeposit(
  db: Executor,
  txHash: string,
  to: 'assigned' | 'returned',
  agentId: string | null,
  now: string,
) {
  return db
    .updateTable('unmatched_deposits')
    .set({ status: to, agent_id: agentId, resolved_at: now })
    .where('tx_hash', '=', txHash)
    .where('status', '=', 'open')
    .returningAll()
    .executeTakeFirst();
}
