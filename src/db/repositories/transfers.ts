import type { Insertable } from 'kysely';
import type { Currency } from '../../domain/money/currency.js';
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

/**
 * Compare-and-set: a worker's `failed` payout transfers back to pending, to `address` (the ledger
 * row's recipient too), due now with no attempts. Returns how many.
 */
export async function requeueFailedPayouts(
  db: Executor,
  workerId: string,
  address: string,
  now: string,
): Promise<number> {
  const payouts = db
    .selectFrom('transactions')
    .innerJoin('tasks', 'tasks.id', 'transactions.task_id')
    .select('transactions.id')
    .where('transactions.type', '=', 'PAYOUT')
    .where('tasks.worker_id', '=', workerId);
  const requeued = await db
    .updateTable('chain_transfers')
    .set({
      status: 'pending',
      to_address: address,
      attempts: 0,
      next_attempt_at: now,
      batch_id: null,
      sent_lt: null,
      chain_tx_hash: null,
      updated_at: now,
    })
    .where('status', '=', 'failed')
    .where('txn_id', 'in', payouts)
    .returning('txn_id')
    .execute();
  if (requeued.length > 0) {
    await db
      .updateTable('transactions')
      .set({ to_address: address, updated_at: now })
      .where(
        'id',
        'in',
        requeued.map((r) => r.txn_id),
      )
      .where('status', '=', 'pending')
      .execute();
  }
  return requeued.length;
}
