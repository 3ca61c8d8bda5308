import { formatAddress } from '../../chain/address.js';
import type { JettonGateway } from '../../chain/jetton/gateway.js';
import type { LiveChain } from '../../chain/liveChain.js';
import { detachFailedJetton, listSentJettons, noteJettonCheck } from '../../db/repositories/chainBatches.js';
import { readChainState, writeChainState } from '../../db/repositories/chainState.js';
import type { ChainTransferRow } from '../../db/repositories/executor.js';
import type { DomainContext } from '../context.js';
import { MAX_TRANSFER_FAILURES, onTransferFailed } from '../money/failedTransfers.js';
import { confirmTransfer } from '../money/payouts.js';
import { clipText } from '../text.js';
import { inTransaction } from '../transaction.js';
import type { LeaseGuard } from './lease.js';
import { LeaseLost } from './lease.js';

/**
 * Network mode, the last step of a USDT payout. The follower saw the jetton transfer leave the hot
 * wallet in a landed batch (chain_transfers.sent_lt); whether it was PAID is for the jetton wallets
 * to say: the hot jetton wallet takes the transfer and debits, the recipient's jetton wallet takes
 * the internal_transfer and credits (src/chain/jetton/confirm.ts). Each follower round asks about
 * a few of them, round-robin (a cursor on txn_id), so the provider's shared request budget is
 * spent in small bites and a transfer whose check throws never holds up the others:
 * - succeeded: the transfer is confirmed (payment.sent in USDT) with the hot jetton wallet's
 *   transaction hash as the ledger row's hash (unique per payout; reconciliation keys by it);
 * - failed (final: nothing moved, the attached TON came back): it leaves its batch and goes into
 *   a new one after a back-off (failedRetryMs); the same query id is searched for again from the
 *   new batch's lt. After MAX_TRANSFER_FAILURES failures it is failed for good, still owed, and
 *   the worker told (src/domain/money/failedTransfers.ts): a cause that lasts (a wallet the jetton
 *   refuses) must not burn one attempt's gas every 10 minutes forever;
 * - pending: asked again on a later round.
 */
export const JETTON_CHECKS_PER_ROUND = 4;
/** The round-robin cursor: the last txn_id checked (wraps to the start after the last one). */
export const JETTON_CHECK_CURSOR_KEY = 'jetton_check_cursor';
const MAX_NOTE_LENGTH = 300;
/**
 * A failed jetton transfer goes into a new batch after 30 s, doubling with each failure up to
 * 10 minutes: a passing cause (the hot USDT moved away, then funded) costs half a minute, a lasting
 * one (a locked jetton wallet, gas above what is attached) one attempt's gas per 10 minutes.
 */
export function failedRetryMs(failures: number): number {
  return Math.min(10 * 60_000, 30_000 * 2 ** Math.min(failures - 1, 10));
}

export async function confirmJettonPayouts(
  ctx: DomainContext,
  live: LiveChain,
  lease: LeaseGuard | null = null,
): Promise<number> {
  const jetton = ctx.chain.jetton;
  if (!jetton || (lease && !lease.held())) return 0;
  const after = (await readChainState(ctx.db, JETTON_CHECK_CURSOR_KEY)) ?? '';
  let rows = await listSentJettons(ctx.db, after, JETTON_CHECKS_PER_ROUND);
  // Past the last one: start over from the first (which may be the same rows when there are few).
  if (rows.length < JETTON_CHECKS_PER_ROUND && after !== '') {
    const seen = new Set(rows.map((r) => r.txn_id));
    const wrapped = await listSentJettons(ctx.db, '', JETTON_CHECKS_PER_ROUND - rows.length);
    rows = [...rows, ...wrapped.filter((r) => !seen.has(r.txn_id))];
  }
  let checked = 0;
  for (const row of rows) {
    if (lease && !lease.held()) break;
    try {
      await checkOne(ctx, live, jetton, row, lease);
    } catch (error) {
      if (error instanceof LeaseLost) break;
      // A provider error or a poisoned row: noted on the row, asked again on a later round.
      const note = `confirmation check failed: ${error instanceof Error ? error.message : String(error)}`;
      await noteJettonCheck(
        ctx.db,
        row.txn_id,
        clipText(note, MAX_NOTE_LENGTH),
        ctx.clock.now().toISOString(),
      );
    }
    checked += 1;
    await writeChainState(ctx.db, JETTON_CHECK_CURSOR_KEY, row.txn_id, ctx.clock.now().toISOString());
  }
  return checked;
}

async function checkOne(
  ctx: DomainContext,
  live: LiveChain,
  jetton: JettonGateway,
  row: ChainTransferRow,
  lease: LeaseGuard | null,
): Promise<void> {
  const sentLt = row.sent_lt!;
  const outcome = await jetton.confirmTransfer({ transferId: row.txn_id, sentLt: BigInt(sentLt) });
  const now = ctx.clock.now().toISOString();
  if (outcome.status === 'pending') {
    await noteJettonCheck(ctx.db, row.txn_id, clipText(outcome.reason, MAX_NOTE_LENGTH), now);
    return;
  }
  await inTransaction(ctx.db, async (trx) => {
    await lease?.fence(trx);
    if (outcome.status === 'failed') {
      const failures = row.attempts + 1;
      const final = failures >= MAX_TRANSFER_FAILURES;
      const retryAt = new Date(ctx.clock.now().getTime() + failedRetryMs(failures)).toISOString();
      const reason = clipText(
        final
          ? `jetton transfer failed ${failures} times, given up (still owed): ${outcome.reason}`
          : `jetton transfer failed (${failures} times), sent again from ${retryAt}: ${outcome.reason}`,
        MAX_NOTE_LENGTH,
      );
      const detached = await detachFailedJetton(trx, row.txn_id, sentLt, { reason, retryAt, final }, now);
      if (detached && final) await onTransferFailed(trx, row.txn_id, outcome.reason, ctx.clock.now());
      return;
    }
    // The query id is ours and carried this transfer's amount: anything else is a bug to see.
    if (outcome.amount !== row.amount_nano) {
      throw new Error(
        `the jetton wallets show ${outcome.amount} for transfer ${row.txn_id} of ${row.amount_nano}`,
      );
    }
    await confirmTransfer(ctx, trx, row.txn_id, row.to_address, {
      txHash: outcome.senderTxHash,
      fromAddress: formatAddress(live.wallet.address, ctx.chain.network),
      toAddress: row.to_address,
    });
  });
}
