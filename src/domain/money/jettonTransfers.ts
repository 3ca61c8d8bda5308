import type { TransferResult } from '../../chain/gateway.js';
import type { ChainTransferRow } from '../../db/repositories/executor.js';
import type { OutboxKind } from '../../outbox/kind.js';
import { runDue } from '../../outbox/runner.js';
import type { DomainContext } from '../context.js';
import { assertInvariant } from '../errors.js';
import { type DueTransfer, sandboxSenderKind } from './sentTransfers.js';

/**
 * Sandbox USDT transfers (payouts and fees, `currency = 'USDT'`) as outbox work, beside the TON
 * sender (chainTransferKind in ./payouts.ts): each pending row goes out as a TEP-74 jetton
 * transfer from the hot wallet's jetton wallet. The sandbox jetton gateway is idempotent on the
 * transfer id and keeps what it paid with the chain's saved state, so a resend after a crash that
 * hid a success (or a second attempt of the same row) returns the first payment and pays nothing
 * twice; the ledger row is confirmed with the hot wallet's transaction hash, with payment.sent in
 * USDT, as the TON sender records. Network mode never uses it: there USDT rows go out in the chain
 * sender's Highload batches.
 */
export function jettonTransferKind(ctx: DomainContext): OutboxKind<DueTransfer, TransferResult> {
  return sandboxSenderKind(ctx, {
    name: 'jetton transfer',
    currency: 'USDT',
    async send(transfer: ChainTransferRow) {
      const jetton = ctx.chain.jetton;
      // USDT rows exist only while USDT is on, which is while the gateway has its jetton.
      if (!jetton) throw new Error('the chain gateway has no USDT jetton');
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
      return result;
    },
  });
}

/** One pass of the sandbox jetton sender: sends every due pending USDT transfer once; returns how many were due. */
export function sendDueJettonTransfers(ctx: DomainContext): Promise<number> {
  return runDue(ctx, jettonTransferKind(ctx));
}
