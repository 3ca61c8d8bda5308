import type { JettonTransferResult } from '../chain/jetton/gateway.js';
import type { ChainTransferRow } from '../db/repositories/executor.js';
import { listDueJettonTransfers } from '../db/repositories/transfers.js';
import type { OutboxKind } from '../outbox/kind.js';
import { runDue } from '../outbox/runner.js';
import type { DomainContext } from './context.js';
import { assertInvariant } from './errors.js';
import { recordSentTransfer, retryDelayMs } from './sentTransfers.js';

/**
 * A sandbox jetton payout takes one emulated trace (hot wallet, its jetton wallet, the recipient's
 * jetton wallet): milliseconds, as a TON send. A claim holds its transfer this long plus the
 * runner's margin, which is also the wait before a send cut off by a crash is tried again.
 */
const SEND_TIMEOUT_MS = 5_000;

type DueTransfer = ChainTransferRow & { id: string };

/**
 * Sandbox USDT transfers (payouts and fees, `currency = 'USDT'`) as outbox work, beside the TON
 * sender (chainTransferKind in ./payouts.ts): the runner claims a pending row and sends it as a
 * TEP-74 jetton transfer from the hot wallet's jetton wallet. The sandbox jetton gateway is
 * idempotent on the transfer id and keeps what it paid with the chain's saved state, so a resend
 * after a crash that hid a success (or a second attempt of the same row) returns the first
 * payment and pays nothing twice. On success the row is marked sent and its ledger row confirmed
 * with the hot wallet's transaction hash in one transaction, with payment.sent in USDT, exactly as
 * the TON sender records. Network mode never uses it: there USDT rows go out in the chain
 * sender's Highload batches.
 */
export function jettonTransferKind(ctx: DomainContext): OutboxKind<DueTransfer, JettonTransferResult> {
  return {
    name: 'jetton transfer',
    table: 'chain_transfers',
    policy: {
      batch: 20,
      parallel: 1,
      maxAttempts: Number.POSITIVE_INFINITY,
      delayMs: retryDelayMs,
      countAttempt: 'claimed',
    },
    doneStatus: 'sent',
    attemptTimeoutMs: SEND_TIMEOUT_MS,
    listDue: async (db, now, limit) =>
      (await listDueJettonTransfers(db, now, limit)).map((row) => ({ ...row, id: row.txn_id })),
    async attempt(transfer) {
      assertInvariant(
        transfer.currency === 'USDT',
        `transfer ${transfer.txn_id} is USDT (the jetton sender sends no TON)`,
      );
      assertInvariant(!ctx.chain.live, 'the jetton sender runs in the sandbox only');
      const jetton = ctx.chain.jetton;
      // USDT rows exist only while USDT is on, which is while the gateway has its jetton.
      if (!jetton) return { ok: false, error: 'the chain gateway has no USDT jetton' };
      const result = await jetton.transfer({
        transferId: transfer.txn_id,
        toAddress: transfer.to_address,
        amount: transfer.amount_nano,
        comment: transfer.comment,
      });
      // The gateway answers for this id only; its amount is what the chain moved.
      assertInvariant(
        result.amount === transfer.amount_nano,
        `jetton transfer ${transfer.txn_id} moved ${result.amount}, not ${transfer.amount_nano}`,
      );
      return { ok: true, result };
    },
    async onDone(trx, transfer, result) {
      assertInvariant(result, `jetton transfer ${transfer.txn_id} was sent with a result`);
      await recordSentTransfer(ctx, trx, transfer.txn_id, transfer.to_address, result);
    },
  };
}

/** One pass of the sandbox jetton sender: sends every due pending USDT transfer once; returns how many were due. */
export function sendDueJettonTransfers(ctx: DomainContext): Promise<number> {
  return runDue(ctx, jettonTransferKind(ctx));
}
