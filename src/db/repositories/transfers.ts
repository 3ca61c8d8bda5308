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

/** Pending transfers whose next attempt is due, oldest first. */
export function listDueTransfers(db: Executor, now: string, limit: number): Promise<ChainTransferRow[]> {
  return db
    .selectFrom('chain_transfers')
    .selectAll()
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .orderBy('next_attempt_at')
    .limit(limit)
    .execute();
}

/**
 * Claims a due transfer for one attempt by pushing its next attempt into the future
 * (compare-and-set on next_attempt_at), so two workers never attempt it at the same moment.
 * Sending twice is prevented anyway by the gateway's idempotency on the transfer id.
 */
export function claimTransfer(db: Executor, row: ChainTransferRow, retryAt: string, now: string) {
  return db
    .updateTable('chain_transfers')
    .set({ next_attempt_at: retryAt, attempts: row.attempts + 1, updated_at: now })
    .where('txn_id', '=', row.txn_id)
    .where('status', '=', 'pending')
    .where('next_attempt_at', '=', row.next_attempt_at)
    .returningAll()
    .executeTakeFirst();
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

export async function recordTransferError(db: Executor, txnId: string, error: string, now: string) {
  await db
    .updateTable('chain_transfers')
    .set({ last_error: error.slice(0, 500), updated_at: now })
    .where('txn_id', '=', txnId)
    .execute();
}
