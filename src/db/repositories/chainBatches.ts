import type { Selectable } from 'kysely';
import type { Database } from '../schema.js';
import type { ChainTransferRow, Executor } from './executor.js';

export type ChainBatchRow = Selectable<Database['chain_batches']>;

/**
 * Pending TON transfers that no batch carries yet, oldest first. USDT (jetton) transfers are not
 * batched as TON: they wait for the jetton sender ("Jetton sender" in src/domain/payouts.ts).
 */
export function listUnbatchedTransfers(db: Executor, limit: number): Promise<ChainTransferRow[]> {
  return db
    .selectFrom('chain_transfers')
    .selectAll()
    .where('status', '=', 'pending')
    .where('currency', '=', 'TON')
    .where('batch_id', 'is', null)
    .orderBy('created_at')
    .orderBy('txn_id')
    .limit(limit)
    .execute();
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
