import { Address } from '@ton/core';
import { batchReserveNano, entryValueNano, MAX_BATCH } from '../../chain/highloadWallet.js';
import { JETTON_TRANSFER_TON_NANO, jettonPayoutMessage } from '../../chain/jetton/payout.js';
import type { LiveChain } from '../../chain/liveChain.js';
import {
  attachTransfers,
  type ChainBatchRow,
  detachTransfers,
  inFlightNano,
  inFlightUsdt,
  insertBatch,
  listDueBatches,
  listUnbatchedTransfers,
  nextBatchSeq,
} from '../../db/repositories/chainBatches.js';
import { deleteChainState, readChainState, writeChainState } from '../../db/repositories/chainState.js';
import type { ChainTransferRow, Executor } from '../../db/repositories/executor.js';
import { claimDue } from '../../db/repositories/outbox.js';
import type { OutboxKind, Outcome } from '../../outbox/kind.js';
import { runDue } from '../../outbox/runner.js';
import type { DomainContext } from '../context.js';
import { failPoint } from '../failPoint.js';
import { newId } from '../ids.js';
import { inTransaction, isUniqueViolation } from '../transaction.js';
import { type LeaseGuard, LeaseLost } from './lease.js';

/**
 * Network mode, the sending half of exactly-once payouts (the follower is the confirming half):
 *
 * 1. `prepareBatch`: due transfers are put in one Highload batch whose query id, created_at and
 *    whole signed message are committed to the database, together with the link from each
 *    transfer to the batch, before anything is sent. The batch row is outbox work, due at once.
 *    A USDT transfer is a message to the hot wallet's jetton wallet (jettonPayoutMessage, query id
 *    from its txn_id) carrying JETTON_TRANSFER_TON_NANO for gas; each currency is paused on its
 *    own when the hot wallet cannot cover its next transfer (PAUSE_KEY, USDT_PAUSE_KEY).
 * 2. `chainBatchKind`: the outbox runner claims each pending batch (compare-and-set) and attempts
 *    it: until `created_at + timeout` an attempt sends the persisted message (again: the wallet
 *    refuses a query id it has processed, so a resend is always safe) and leaves the batch pending
 *    for the next resend; the follower marks it landed when the chain shows it, which ends the
 *    work. An attempt after the time-out sends nothing; only once the follower has read the
 *    wallet's history past that moment (plus a grace) and the wallet's `processed?` says no is the
 *    outcome final: the runner settles the batch `expired` and, in the same transaction, releases
 *    its transfers to a new batch under a new query id.
 */
export const PAUSE_KEY = 'payouts_paused';
/** Why USDT payouts wait (no USDT, or no TON for their gas), set and cleared like PAUSE_KEY. */
export const USDT_PAUSE_KEY = 'usdt_payouts_paused';
export const SYNCED_KEY = 'follower_synced_at';
/** Seconds after expiry before a batch is given up, for block time and provider lag. */
const EXPIRY_GRACE_SEC = 10;
/**
 * The longest one attempt takes: a get-method call or a sendBoc, each bounded by the provider
 * client's request time-out (10 s by default) plus waits for the request budget. An attempt that
 * overruns its claim is harmless: resending the same message is safe and the settle is a
 * compare-and-set on the claim.
 */
const ATTEMPT_TIMEOUT_MS = 30_000;

/** Persists one batch of due transfers, if any and if the hot wallet can pay them; returns its size. */
export async function prepareBatch(
  ctx: DomainContext,
  live: LiveChain,
  lease: LeaseGuard | null = null,
): Promise<number> {
  const jetton = ctx.chain.jetton ?? null;
  const tonDue = await listUnbatchedTransfers(ctx.db, MAX_BATCH, 'TON');
  const nowIso = ctx.clock.now().toISOString();
  const usdtDue = await listUnbatchedTransfers(ctx.db, MAX_BATCH, 'USDT', nowIso);
  if (tonDue.length === 0 && usdtDue.length === 0) return 0;
  // A currency with nothing due is not paused (a pause is lifted when its transfers went out).
  if (tonDue.length === 0) await deleteChainState(ctx.db, PAUSE_KEY);
  if (usdtDue.length === 0) await deleteChainState(ctx.db, USDT_PAUSE_KEY);
  const account = await live.client.getAccount(live.wallet.address);
  const promised = await inFlightNano(ctx.db);
  const hot = live.wallet.address;
  // The USDT side is read only when USDT is due: two get-methods (the jetton wallet's address is
  // cached). A failure to read it holds back USDT payouts this round, never TON ones.
  let usdtError: string | null = null;
  let usdt: { hotJettonWallet: Address; balance: bigint; promised: bigint } | null = null;
  if (usdtDue.length > 0 && jetton) {
    try {
      usdt = {
        hotJettonWallet: Address.parse(await jetton.walletAddress(hot.toString())),
        balance: await jetton.balance(hot.toString()),
        promised: await inFlightUsdt(ctx.db),
      };
    } catch (error) {
      usdtError = `USDT payouts wait: the hot wallet's USDT could not be read (${(error as Error).message})`;
    }
  }
  const fit = fitBalances(
    mergeOldestFirst(tonDue, usdt ? usdtDue : []),
    account.balanceNano - promised,
    usdt ? usdt.balance - usdt.promised : 0n,
  );
  const tonReason = `hot wallet balance ${account.balanceNano} nanoton (${promised} promised to batches in flight)`;
  if (tonDue.length > 0) {
    if (fit.tonBlocked && !fit.chosen.some((t) => t.currency === 'TON')) {
      const needed = tonDue[0]!.amount_nano + batchReserveNano(1);
      const reason = `${tonReason} cannot pay the next transfer of ${needed} nanoton with fees: fund ${hot.toString()}`;
      await writeChainState(ctx.db, PAUSE_KEY, reason, nowIso);
    } else await deleteChainState(ctx.db, PAUSE_KEY);
  }
  if (usdtDue.length > 0) {
    // Per currency: a USDT shortage pauses USDT payouts only, and TON payouts go on (and back).
    const reason = !usdt
      ? (usdtError ?? 'USDT payouts wait: this instance has no USDT jetton configured (TON_USDT_MASTER)')
      : fit.chosen.some((t) => t.currency === 'USDT')
        ? null
        : fit.usdtBlocked === 'usdt'
          ? `hot wallet USDT balance ${usdt.balance} micro-USDT (${usdt.promised} promised to transfers not yet confirmed) cannot pay the next USDT transfer of ${usdtDue[0]!.amount_nano} micro-USDT: send USDT to ${hot.toString()}`
          : fit.usdtBlocked === 'gas'
            ? `${tonReason} cannot pay the TON for gas of the next USDT transfer (${JETTON_TRANSFER_TON_NANO + batchReserveNano(1)} nanoton with the batch's fees): fund ${hot.toString()} with TON`
            : null;
    if (reason) await writeChainState(ctx.db, USDT_PAUSE_KEY, reason, nowIso);
    else await deleteChainState(ctx.db, USDT_PAUSE_KEY);
  }
  const affordable = fit.chosen;
  if (affordable.length === 0) return 0;
  const entries = affordable.map((t) =>
    t.currency === 'USDT'
      ? jettonPayoutMessage({
          transferId: t.txn_id,
          hotJettonWallet: usdt!.hotJettonWallet,
          hotWallet: hot,
          toOwner: Address.parse(t.to_address),
          amount: t.amount_nano,
          comment: t.comment,
        })
      : { to: Address.parse(t.to_address), amountNano: t.amount_nano, comment: t.comment },
  );
  const createdAt = live.nowSeconds() - live.createdAtLagSec;
  try {
    await inTransaction(ctx.db, async (trx) => {
      // Persisted only under the chain lease: a holder that lost it while paused writes nothing.
      await lease?.fence(trx);
      const seq = await nextBatchSeq(trx);
      const signed = live.wallet.signBatch({
        seq,
        createdAt,
        withInit: account.state !== 'active',
        transfers: entries,
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
        status: 'pending',
        transfer_count: affordable.length,
        // The TON the batch sends: TON transfers, and the TON attached to each jetton transfer.
        total_nano: entries.reduce((sum, e) => sum + entryValueNano(e), 0n),
        attempts: 0,
        next_attempt_at: nowIso,
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
    if (error instanceof BatchRace || error instanceof LeaseLost || isUniqueViolation(error)) return 0;
    throw error;
  }
  await failPoint('after-persist');
  return affordable.length;
}

class BatchRace extends Error {}

/** Both currencies' due transfers in one list, oldest first (as each list is ordered). */
function mergeOldestFirst(a: ChainTransferRow[], b: ChainTransferRow[]): ChainTransferRow[] {
  return [...a, ...b]
    .sort((x, y) =>
      x.created_at === y.created_at ? (x.txn_id < y.txn_id ? -1 : 1) : x.created_at < y.created_at ? -1 : 1,
    )
    .slice(0, MAX_BATCH);
}

/**
 * The oldest transfers the hot wallet can pay, per currency in order: TON transfers while the TON
 * balance covers them with the batch's fees; USDT transfers while the USDT balance covers their
 * amount and the TON balance their attached TON (gas) with the fees. A currency stops at its first
 * transfer that does not fit (so none overtakes an older one); the other goes on.
 */
function fitBalances(due: ChainTransferRow[], tonNano: bigint, usdtMicro: bigint) {
  const chosen: ChainTransferRow[] = [];
  let ton = 0n;
  let usdt = 0n;
  let tonBlocked = false;
  let usdtBlocked: 'usdt' | 'gas' | null = null;
  for (const t of due) {
    const reserve = batchReserveNano(chosen.length + 1);
    if (t.currency === 'USDT') {
      if (usdtBlocked) continue;
      if (usdt + t.amount_nano > usdtMicro) usdtBlocked = 'usdt';
      else if (ton + JETTON_TRANSFER_TON_NANO + reserve > tonNano) usdtBlocked = 'gas';
      else {
        usdt += t.amount_nano;
        ton += JETTON_TRANSFER_TON_NANO;
        chosen.push(t);
      }
      continue;
    }
    if (tonBlocked) continue;
    if (ton + t.amount_nano + reserve > tonNano) tonBlocked = true;
    else {
      ton += t.amount_nano;
      chosen.push(t);
    }
  }
  return { chosen, tonBlocked, usdtBlocked };
}

/**
 * Persisted batches as outbox work. Never abandoned by count (`maxAttempts: Infinity`): the only
 * final outcome is a batch that can no longer land. Every attempt waits `resendMs` for the next
 * one, whatever happened: a send that failed may have reached the chain anyway (a provider can
 * fail after passing it on), so a failure is no reason to hurry or to give up.
 */
export function chainBatchKind(
  ctx: DomainContext,
  live: LiveChain,
  lease: LeaseGuard | null = null,
): OutboxKind<ChainBatchRow> {
  return {
    name: 'chain batch',
    table: 'chain_batches',
    policy: {
      batch: 50,
      parallel: 1,
      maxAttempts: Number.POSITIVE_INFINITY,
      delayMs: () => live.resendMs,
      countAttempt: 'claimed',
    },
    // Written by the follower (markBatchLanded), never by an attempt: only the chain confirms.
    doneStatus: 'landed',
    failedStatus: 'expired',
    attemptTimeoutMs: ATTEMPT_TIMEOUT_MS,
    listDue: listDueBatches,
    // Persist-before-send under the lease: the claim (the write that precedes every send) is
    // made only in a transaction that still finds this instance's fencing token.
    ...(lease ? { claim: (db, row, listed, claim) => fencedClaim(db, lease, row, listed, claim) } : {}),
    attempt: (batch) =>
      batch.chain_expires_at > live.nowSeconds()
        ? sendBatch(live, batch, lease)
        : checkExpiry(ctx, live, batch),
    async onFailed(trx, batch) {
      await detachTransfers(trx, batch.id, null, ctx.clock.now().toISOString());
    },
  };
}

/** Claims a batch for one attempt (counted at the claim) only while the lease holds. */
async function fencedClaim(
  db: Executor,
  lease: LeaseGuard,
  row: ChainBatchRow,
  listed: { nextAttemptAt: string; attempts: number },
  claim: { leaseUntil: string; now: string },
): Promise<boolean> {
  try {
    return await inTransaction(db, async (trx) => {
      await lease.fence(trx);
      return claimDue(trx, 'chain_batches', row.id, listed, { ...claim, attempts: row.attempts + 1 });
    });
  } catch (error) {
    if (error instanceof LeaseLost) return false;
    throw error;
  }
}

/**
 * Sends the persisted message; the batch stays pending until the follower sees it land. The
 * lease is checked once more just before the send: a holder paused after its claim sends
 * nothing once its lease has run out by its own clock. (A pause between this check and the
 * provider receiving the message cannot be fenced by anything we control; it can only resend
 * this same message, which the wallet accepts at most once, and a batch's transfers go into a
 * new message only after this one has expired unprocessed.)
 */
async function sendBatch(live: LiveChain, batch: ChainBatchRow, lease: LeaseGuard | null): Promise<Outcome> {
  if (lease && !lease.held()) return { ok: false, error: 'not sent: this instance lost the chain lease' };
  let error: string | null = null;
  try {
    await live.client.sendBoc(batch.boc);
  } catch (e) {
    // Possibly sent anyway (a provider can fail after passing it on): the follower decides.
    error = (e as Error).message;
  }
  await failPoint('after-send');
  return { ok: false, error: error ? `send failed: ${error}` : 'sent, not yet seen on chain' };
}

/**
 * A batch past its `created_at + timeout` can never land any more, but may have landed before:
 * final (expired, its transfers released) only when the follower has read the wallet's history
 * past the deadline without marking it landed, and the wallet's `processed?` says no.
 */
async function checkExpiry(ctx: DomainContext, live: LiveChain, batch: ChainBatchRow): Promise<Outcome> {
  const deadline = batch.chain_expires_at + EXPIRY_GRACE_SEC;
  if (live.nowSeconds() <= deadline) return { ok: false, error: 'timed out, not yet seen on chain' };
  const syncedAt = Number((await readChainState(ctx.db, SYNCED_KEY)) ?? 0);
  // A batch that landed is marked landed by the follower once it reads past the deadline, and
  // a landed batch is not pending, so it is never claimed again.
  if (syncedAt <= deadline) return { ok: false, error: 'timed out; the follower has not read past it yet' };
  const [processed] = await live.client.runGetMethod(live.wallet.address, 'processed?', [
    BigInt(batch.query_id),
    0n,
  ]);
  if (processed !== 0n) return { ok: false, error: 'processed: the follower will confirm it' };
  return {
    ok: false,
    final: true,
    error: `expired unprocessed (query id ${batch.query_id}): its transfers go into a new batch`,
  };
}

/**
 * One round of the sender: prepare a batch of what is due, then one pass of the outbox runner
 * over the batches. Returns non-zero when more may be due at once (either was a full batch).
 */
export async function runChainSender(
  ctx: DomainContext,
  live: LiveChain,
  /** The chain lease (background jobs); null: unguarded (tests, bench). */
  lease: LeaseGuard | null = null,
): Promise<number> {
  if (lease && !lease.held()) return 0;
  const prepared = await prepareBatch(ctx, live, lease);
  if (lease && !lease.held()) return 0;
  const kind = chainBatchKind(ctx, live, lease);
  const due = await runDue(ctx, kind);
  return prepared >= MAX_BATCH || due >= kind.policy.batch ? prepared + due : 0;
}
