import type { Insertable } from 'kysely';
import type { Currency } from '../../domain/currency.js';
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
 * Pending transfers of one currency whose next attempt is due, oldest first: each sandbox sender
 * lists its own currency only, so a USDT row (a jetton transfer) is never sent as TON, nor a TON
 * row as jettons. Network mode batches both in its chain sender instead.
 */
export function listDueTransfers(
  db: Executor,
  currency: Currency,
  now: string,
  limit: number,
): Promise<ChainTransferRow[]> {
  return db
    .selectFrom('chain_transfers')
    .selectAll()
    .where('status', '=', 'pending')
    .where('currency', '=', currency)
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
