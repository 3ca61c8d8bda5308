import type { Insertable } from 'kysely';
import type { Database } from '../schema.js';
import type { ChainTransferRow, Executor } from './executor.js';

export async function insertTransfer(
  db: Executor,
  row: Insertable<Database['chain_transfers']>,
): Promise<void> {
  await db.insertInto('chain_transfers').values(row).execute();
}

export function findTransfer(db: Executor, txnId: string): Promise<ChainTransferRow | undefined> {
  return db.selectFrom('chain_transfers').selectAll().where('txn_id', '=', txnId).executeTakeFirst();
}

/**
 * Pending TON transfers whose next attempt is due, oldest first. USDT transfers are jetton
 * transfers, which the TON sender must never send (it would pay TON): they are not listed here
 * and wait, pending, for a jetton sender (listDueJettonTransfers below, and network mode's batches).
 */
export function listDueTransfers(db: Executor, now: string, limit: number): Promise<ChainTransferRow[]> {
  return db
    .selectFrom('chain_transfers')
    .selectAll()
    .where('status', '=', 'pending')
    .where('currency', '=', 'TON')
    .where('next_attempt_at', '<=', now)
    .orderBy('next_attempt_at')
    .limit(limit)
    .execute();
}

/**
 * Pending USDT transfers whose next attempt is due, oldest first: the sandbox jetton sender's work
 * (src/domain/jettonTransfers.ts). Network mode batches these in its chain sender instead.
 */
export function listDueJettonTransfers(
  db: Executor,
  now: string,
  limit: number,
): Promise<ChainTransferRow[]> {
  return db
    .selectFrom('chain_transfers')
    .selectAll()
    .where('status', '=', 'pending')
    .where('currency', '=', 'USDT')
    .where('next_attempt_at', '<=', now)
    .orderBy('next_attempt_at')
    .limit(limit)
    .execute();
}

export function markTransferSent(db: Executor, txnId: string, now: string) {
  return db
    .updateTable('chain_transfers')
    .set({ status: 'sent', last_error: null, updated_at: now })
    .where('txn_id', '=', txnId)
    .where('status', '=', 'pending')
    .returningAll()
    .executeTakeFirst();
}
