import type { Kysely } from 'kysely';
import type { TransferResult } from '../../chain/gateway.js';
import type { TransactionRow } from '../../db/repositories/executor.js';
import { findLedgerRow } from '../../db/repositories/ledger.js';
import { findTransfer, markTransferSent } from '../../db/repositories/transfers.js';
import type { Database } from '../../db/schema.js';
import type { OutboxKind } from '../../outbox/kind.js';
import { attemptRow, runDue } from '../../outbox/runner.js';
import type { DomainContext } from '../context.js';
import { assertInvariant } from '../errors.js';
import { jettonTransferKind } from './jettonTransfers.js';
import { type DueTransfer, recordSentTransfer, sandboxSenderKind } from './sentTransfers.js';

/**
 * Every chain transfer row carries its currency, and the TON paths here and in chainSender.ts
 * take only TON rows (the sandbox sender lists and accepts its own currency only, and
 * listUnbatchedTransfers builds USDT rows as jetton transfers), so a USDT payout or fee is never
 * sent as TON. USDT rows go out as TEP-74 jetton transfers: in the sandbox by jettonTransferKind
 * (./jettonTransfers.ts), on testnet/mainnet in the chain sender's Highload batches.
 * recordSentTransfer and confirmTransfer write payment.sent in the row's currency.
 *
 * Sandbox TON transfers (payouts and fees) as outbox work (sandboxSenderKind in
 * ./sentTransfers.ts). On testnet/mainnet transfers go out in batches, a kind of their own
 * (`chainBatchKind`).
 */
export function chainTransferKind(ctx: DomainContext): OutboxKind<DueTransfer, TransferResult> {
  return sandboxSenderKind(ctx, {
    name: 'chain transfer',
    currency: 'TON',
    send: (transfer) =>
      ctx.chain.transfer({
        transferId: transfer.txn_id,
        toAddress: transfer.to_address,
        amountNano: transfer.amount_nano,
        comment: transfer.comment,
      }),
  });
}

/**
 * One attempt to send a pending chain transfer now (the payout's first send, inline with the
 * completion). Returns the ledger row as it stands afterwards: confirmed with its hash, or still
 * pending (claimed elsewhere, or the send failed and the background runner retries it). The row
 * is read outside a due listing, so it may be claimed by a runner mid-send: the claim takes only
 * a row due now (`claimDue`), never one whose `next_attempt_at` is another runner's lease.
 */
export async function attemptTransfer(ctx: DomainContext, txnId: string): Promise<TransactionRow> {
  const transfer = await findTransfer(ctx.db, txnId);
  assertInvariant(transfer, `ledger row ${txnId} has a chain transfer`);
  // Sandbox only (network mode batches its transfers): a USDT row is a jetton transfer, never TON.
  if (transfer.status === 'pending' && !ctx.chain.live) {
    const due = { ...transfer, id: transfer.txn_id };
    const claimed =
      transfer.currency === 'TON'
        ? await attemptRow(ctx, chainTransferKind(ctx), due)
        : await attemptRow(ctx, jettonTransferKind(ctx), due);
    // The background sender took it between the completion's commit and this attempt: its send
    // takes a moment, so wait for it briefly rather than answer "not on chain yet" for a
    // transfer that is a few milliseconds from confirmed.
    if (!claimed) await settledElsewhere(ctx, txnId);
  }
  const row = await findLedgerRow(ctx.db, txnId);
  assertInvariant(row, `ledger row ${txnId} exists`);
  return row;
}

const SETTLE_WAIT_MS = 2_000;
const SETTLE_POLL_MS = 50;

/** Waits (bounded, in real time) while another sender's claimed attempt at `txnId` is in flight. */
async function settledElsewhere(ctx: DomainContext, txnId: string): Promise<void> {
  for (let waited = 0; waited < SETTLE_WAIT_MS; waited += SETTLE_POLL_MS) {
    const transfer = await findTransfer(ctx.db, txnId);
    if (transfer?.status !== 'pending') return;
    // Pending and due now: nobody holds it, and the background runner owns it from here. (A
    // failed attempt also leaves it pending, due later: then this waits out its bound.)
    if (transfer.next_attempt_at <= ctx.clock.now().toISOString()) return;
    await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS));
  }
}

/**
 * Records a transfer the chain shows as sent: the transfer is marked sent and its ledger row
 * confirmed with the chain's hash (compare-and-set, so a second report is a no-op), with the
 * payment.sent event and the worker's notification, all in the caller's transaction.
 */
export async function confirmTransfer(
  ctx: DomainContext,
  trx: Kysely<Database>,
  txnId: string,
  toAddress: string,
  result: TransferResult,
): Promise<boolean> {
  const sent = await markTransferSent(trx, txnId, ctx.clock.now().toISOString());
  // Another attempt recorded the same (idempotent) send first: nothing more to write.
  if (!sent) return false;
  await recordSentTransfer(ctx, trx, txnId, toAddress, result);
  return true;
}

/** One pass of the sandbox transfer runner: sends every due pending transfer once; returns how many were due. */
export function sendDueTransfers(ctx: DomainContext): Promise<number> {
  return runDue(ctx, chainTransferKind(ctx));
}
