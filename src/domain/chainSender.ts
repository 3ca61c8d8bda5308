import { Address } from '@ton/core';
import { batchReserveNano, MAX_BATCH } from '../chain/highloadWallet.js';
import type { LiveChain } from '../chain/liveChain.js';
import {
  attachTransfers,
  detachTransfers,
  inFlightNano,
  insertBatch,
  listOpenBatches,
  listUnbatchedTransfers,
  moveBatch,
  nextBatchSeq,
  recordSendAttempt,
} from '../db/repositories/chainBatches.js';
import { deleteChainState, readChainState, writeChainState } from '../db/repositories/chainState.js';
import type { ChainTransferRow } from '../db/repositories/executor.js';
import type { DomainContext } from './context.js';
import { assertInvariant } from './errors.js';
import { newId } from './ids.js';
import { inTransaction, isUniqueViolation } from './transaction.js';

/**
 * Network mode, the sending half of exactly-once payouts (the follower is the confirming half):
 *
 * 1. `prepareBatch`: due transfers are put in one Highload batch whose query id, created_at and
 *    whole signed message are committed to the database, together with the link from each
 *    transfer to the batch, before anything is sent.
 * 2. `sendOpenBatches`: every persisted batch that has not landed is sent, and sent again at
 *    intervals, until it lands or expires. Sending the same signed message again is always safe:
 *    the wallet refuses a query id it has processed.
 * 3. `expireBatches`: only once `created_at + timeout` has passed (when the message can never
 *    land), the follower has read the wallet's history past that moment, and the wallet's
 *    `processed?` says no, are the batch's transfers released to a new batch and a new query id.
 */
export const PAUSE_KEY = 'payouts_paused';
export const SYNCED_KEY = 'follower_synced_at';
/** Seconds after expiry before a batch is given up, for block time and provider lag. */
const EXPIRY_GRACE_SEC = 10;

/** Persists one batch of due transfers, if any and if the hot wallet can pay them; returns its size. */
export async function prepareBatch(ctx: DomainContext, live: LiveChain): Promise<number> {
  const due = await listUnbatchedTransfers(ctx.db, MAX_BATCH);
  if (due.length === 0) return 0;
  const account = await live.client.getAccount(live.wallet.address);
  const promised = await inFlightNano(ctx.db);
  const affordable = fitBalance(due, account.balanceNano - promised);
  const nowIso = ctx.clock.now().toISOString();
  if (affordable.length === 0) {
    const needed = due[0]!.amount_nano + batchReserveNano(1);
    const reason = `hot wallet balance ${account.balanceNano} nanoton (${promised} promised to batches in flight) cannot pay the next transfer of ${needed} nanoton with fees: fund ${live.wallet.address.toString()}`;
    await writeChainState(ctx.db, PAUSE_KEY, reason, nowIso);
    return 0;
  }
  await deleteChainState(ctx.db, PAUSE_KEY);
  const createdAt = live.nowSeconds() - live.createdAtLagSec;
  try {
    await inTransaction(ctx.db, async (trx) => {
      const seq = await nextBatchSeq(trx);
      const signed = live.wallet.signBatch({
        seq,
        createdAt,
        withInit: account.state !== 'active',
        transfers: affordable.map((t) => ({
          to: Address.parse(t.to_address),
          amountNano: t.amount_nano,
          comment: t.comment,
        })),
      });
      const id = newId('batch', ctx.clock.now().getTime());
      await insertBatch(trx, {
        id,
        seq,
        query_id: signed.queryId,
        chain_created_at: createdAt,
        chain_expires_at: createdAt + live.wallet.timeoutSec,
        boc: signed.boc,
        message_hash: signed.messageHash,
        status: 'prepared',
        transfer_count: affordable.length,
        total_nano: affordable.reduce((sum, t) => sum + t.amount_nano, 0n),
        send_count: 0,
        next_send_at: nowIso,
        tx_hash: null,
        last_error: null,
        created_at: nowIso,
        updated_at: nowIso,
      });
      const attached = await attachTransfers(
        trx,
        id,
        affordable.map((t) => t.txn_id),
        nowIso,
      );
      // Another instance batched some of them first: roll back; the next round starts afresh.
      if (attached !== affordable.length) throw new BatchRace();
    });
  } catch (error) {
    if (error instanceof BatchRace || isUniqueViolation(error)) return 0;
    throw error;
  }
  await failPoint('after-persist');
  return affordable.length;
}

class BatchRace extends Error {}

/** The oldest transfers whose sum, with the batch's fees, the available balance covers. */
function fitBalance(due: ChainTransferRow[], availableNano: bigint): ChainTransferRow[] {
  const chosen: ChainTransferRow[] = [];
  let total = 0n;
  for (const t of due) {
    if (total + t.amount_nano + batchReserveNano(chosen.length + 1) > availableNano) break;
    total += t.amount_nano;
    chosen.push(t);
  }
  return chosen;
}

/** Sends (again) every open batch that is due and not expired; returns how many were sent. */
export async function sendOpenBatches(ctx: DomainContext, live: LiveChain): Promise<number> {
  const open = await listOpenBatches(ctx.db, 50);
  const nowMs = ctx.clock.now().getTime();
  const nowSec = live.nowSeconds();
  let sent = 0;
  for (const batch of open) {
    if (batch.status !== 'prepared' && Date.parse(batch.next_send_at) > nowMs) continue;
    if (batch.chain_expires_at <= nowSec) continue;
    let error: string | null = null;
    try {
      await live.client.sendBoc(batch.boc);
    } catch (e) {
      // Possibly sent anyway (a provider can fail after passing it on): the follower decides.
      error = (e as Error).message;
    }
    const nextSendAt = new Date(nowMs + live.resendMs).toISOString();
    await recordSendAttempt(ctx.db, batch.id, nextSendAt, error, ctx.clock.now().toISOString());
    sent += 1;
    await failPoint('after-send');
  }
  return sent;
}

/** Releases the transfers of batches that can no longer land; returns how many were released. */
export async function expireBatches(ctx: DomainContext, live: LiveChain): Promise<number> {
  const open = await listOpenBatches(ctx.db, 50);
  const nowSec = live.nowSeconds();
  const syncedAt = Number((await readChainState(ctx.db, SYNCED_KEY)) ?? 0);
  let expired = 0;
  for (const batch of open) {
    const deadline = batch.chain_expires_at + EXPIRY_GRACE_SEC;
    // The follower must have read the wallet's transactions past the deadline: a batch that
    // landed is then already marked landed and never reaches this point.
    if (nowSec <= deadline || syncedAt <= deadline) continue;
    const [processed] = await live.client.runGetMethod(live.wallet.address, 'processed?', [
      BigInt(batch.query_id),
      0n,
    ]);
    if (processed !== 0n) continue; // it landed: the follower will find its transaction
    await inTransaction(ctx.db, async (trx) => {
      const now = ctx.clock.now().toISOString();
      const moved = await moveBatch(trx, batch.id, 'expired', now);
      if (!moved) return;
      await detachTransfers(trx, batch.id, null, now);
      expired += 1;
    });
  }
  return expired;
}

/** One round of the sender: prepare what is due, send what is open, expire what cannot land. */
export async function runChainSender(ctx: DomainContext, live: LiveChain): Promise<number> {
  const prepared = await prepareBatch(ctx, live);
  const sent = await sendOpenBatches(ctx, live);
  await expireBatches(ctx, live);
  assertInvariant(prepared >= 0 && sent >= 0, 'counts are not negative');
  // A full batch means more may be due: run again at once.
  return prepared >= MAX_BATCH ? prepared : 0;
}

/**
 * Fault injection for the crash tests: HANDOFF_FAIL_AT=<point> makes the process exit at once
 * (like SIGKILL: no cleanup, nothing flushed) the first time it reaches that point.
 */
async function failPoint(name: string): Promise<void> {
  if (process.env.HANDOFF_FAIL_AT === name) {
    process.kill(process.pid, 'SIGKILL');
    await new Promise(() => {});
  }
}
