import type { Selectable } from 'kysely';
import type { Currency } from '../../domain/money/currency.js';
import type { Database } from '../schema.js';
import type { ChainTransferRow, Executor } from './executor.js';

export type ChainBatchRow = Selectable<Database['chain_batches']>;

/**
 * Pending transfers of `currency` that no batch carries yet, oldest first. TON goes out as plain
 * transfers, USDT as jetton transfers from the hot jetton wallet, in the same batches; each
 * currency is listed on its own so one that waits (paused) never hides the other's due rows.
 */
export function listUnbatchedTransfers(
  db: Executor,
  limit: number,
  currency: Currency = 'TON',
  /** USDT: only rows due by then (a jetton transfer that failed on chain waits before it goes again). */
  now?: string,
): Promise<ChainTransferRow[]> {
  let query = db
    .selectFrom('chain_transfers')
    .selectAll()
    .where('status', '=', 'pending')
    .where('currency', '=', currency)
    .where('batch_id', 'is', null);
  if (now) query = query.where('next_attempt_at', '<=', now);
  return query.orderBy('created_at').orderBy('txn_id').limit(limit).execute();
}

export async function nextBatchSeq(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('chain_batches')
    .select((eb) => eb.fn.max('seq').as('max_seq'))
    .executeTakeFirst();
  return Number(row?.max_seq ?? 0) + 1;
}

export async function insertBatch(db: Executor, row: ChainBatchRow): Promise<void> {
  await db.insertInto('chain_batches').values(row).execute();
}

/** Compare-and-set: attaches transfers to a batch only if no batch carries them; returns how many. */
export async function attachTransfers(db: Executor, batchId: string, txnIds: string[], now: string) {
  const result = await db
    .updateTable('chain_transfers')
    .set({ batch_id: batchId, updated_at: now })
    .where('txn_id', 'in', txnIds)
    .where('status', '=', 'pending')
    .where('batch_id', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Detaches a batch's unconfirmed transfers so a new batch (with a new query id) carries them. */
export async function detachTransfers(db: Executor, batchId: string, txnIds: string[] | null, now: string) {
  let query = db
    .updateTable('chain_transfers')
    .set({ batch_id: null, updated_at: now })
    .where('batch_id', '=', batchId)
    .where('status', '=', 'pending');
  if (txnIds) query = query.where('txn_id', 'in', txnIds);
  await query.execute();
}

export function listBatchTransfers(db: Executor, batchId: string): Promise<ChainTransferRow[]> {
  return db.selectFrom('chain_transfers').selectAll().where('batch_id', '=', batchId).execute();
}

/** Batches that may still land whose next send (or expiry check) is due at `now`, oldest first. */
export function listDueBatches(db: Executor, now: string, limit: number): Promise<ChainBatchRow[]> {
  return db
    .selectFrom('chain_batches')
    .selectAll()
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .orderBy('seq')
    .limit(limit)
    .execute();
}

export function findBatchBySeq(db: Executor, seq: number) {
  return db.selectFrom('chain_batches').selectAll().where('seq', '=', seq).executeTakeFirst();
}

export function findBatchByMessageHash(db: Executor, messageHash: string) {
  return db
    .selectFrom('chain_batches')
    .selectAll()
    .where('message_hash', '=', messageHash)
    .executeTakeFirst();
}

/**
 * Compare-and-set: the follower saw the batch on chain (again, with the wallet transaction's
 * hash). Returns the row when this call made the change. Expiry is the outbox runner's settle.
 */
export function markBatchLanded(db: Executor, id: string, now: string, txHash?: string) {
  return db
    .updateTable('chain_batches')
    .set({ status: 'landed', updated_at: now, ...(txHash ? { tx_hash: txHash } : {}) })
    .where('id', '=', id)
    .where('status', 'in', ['pending', 'landed'])
    .returningAll()
    .executeTakeFirst();
}

/** Value carried by batches that may still land: it is not yet spent, but it is promised. */
export async function inFlightNano(db: Executor): Promise<bigint> {
  const row = await db
    .selectFrom('chain_batches')
    .select((eb) => eb.fn.sum('total_nano').as('total_nano'))
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return BigInt(row?.total_nano ?? 0);
}

export async function setChainTxHash(db: Executor, txnId: string, txHash: string): Promise<void> {
  await db
    .updateTable('chain_transfers')
    .set({ chain_tx_hash: txHash })
    .where('txn_id', '=', txnId)
    .execute();
}

/**
 * Micro-USDT promised to jetton transfers that a batch carries and the chain has not yet shown
 * paid. Counted until confirmed, even once the hot jetton wallet has debited them (its balance
 * then no longer holds them either): the sender errs on waiting, never on promising USDT twice.
 */
export async function inFlightUsdt(db: Executor): Promise<bigint> {
  const row = await db
    .selectFrom('chain_transfers')
    // `*_nano`: read as bigint on both drivers, exact past 2^53 (see bigintPlugin.ts).
    .select((eb) => eb.fn.sum<bigint>('amount_nano').as('total_nano'))
    .where('status', '=', 'pending')
    .where('currency', '=', 'USDT')
    .where('batch_id', 'is not', null)
    .executeTakeFirst();
  return BigInt(row?.total_nano ?? 0);
}

/**
 * Compare-and-set: a jetton transfer of `batchId` left the hot wallet in its transaction at `sentLt`
 * (it stays pending: the jetton wallets say whether it was paid). Again for the same batch is a no-op.
 */
export async function markJettonSent(
  db: Executor,
  txnId: string,
  batchId: string,
  sent: { lt: bigint; txHash: string },
  now: string,
): Promise<void> {
  await db
    .updateTable('chain_transfers')
    .set({ sent_lt: sent.lt.toString(), chain_tx_hash: sent.txHash, updated_at: now })
    .where('txn_id', '=', txnId)
    .where('batch_id', '=', batchId)
    .where('status', '=', 'pending')
    .execute();
}

/**
 * Jetton transfers sent in a landed batch and not yet confirmed, in txn_id order after `after`
 * (a round-robin cursor: the confirmation pass takes a few a round and goes on from the last one).
 */
export function listSentJettons(db: Executor, after: string, limit: number): Promise<ChainTransferRow[]> {
  return db
    .selectFrom('chain_transfers')
    .selectAll()
    .where('status', '=', 'pending')
    .where('currency', '=', 'USDT')
    .where('sent_lt', 'is not', null)
    .where('txn_id', '>', after)
    .orderBy('txn_id')
    .limit(limit)
    .execute();
}

/**
 * Compare-and-set: the jetton transfer sent at `sentLt` failed (nothing moved): it leaves its batch
 * so a new batch carries it from `retryAt`. Returns whether this call made the change.
 */
export async function detachFailedJetton(
  db: Executor,
  txnId: string,
  sentLt: string,
  failure: { reason: string; retryAt: string; final?: boolean },
  now: string,
): Promise<boolean> {
  const result = await db
    .updateTable('chain_transfers')
    .set((eb) => ({
      // Final (the attempts are spent): failed, never batched again; still owed.
      status: failure.final ? 'failed' : 'pending',
      batch_id: null,
      sent_lt: null,
      chain_tx_hash: null,
      last_error: failure.reason,
      // Counted, and the next batch waits: a failure that repeats (a locked jetton wallet, gas
      // above what is attached) costs the gas of one attempt per back-off, not one per round.
      attempts: eb('attempts', '+', 1),
      next_attempt_at: failure.retryAt,
      updated_at: now,
    }))
    .where('txn_id', '=', txnId)
    .where('status', '=', 'pending')
    .where('sent_lt', '=', sentLt)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Notes why a sent jetton transfer is not confirmed yet (still in flight, or the provider failed). */
export async function noteJettonCheck(db: Executor, txnId: string, note: string, now: string): Promise<void> {
  await db
    .updateTable('chain_transfers')
    .set({ last_error: note, updated_at: now })
    .where('txn_id', '=', txnId)
    .where('status', '=', 'pending')
    .execute();
}
