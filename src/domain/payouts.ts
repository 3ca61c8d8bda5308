import type { Kysely } from 'kysely';
import type { TransferResult } from '../chain/gateway.js';
import type { ChainTransferRow, TransactionRow } from '../db/repositories/executor.js';
import { confirmLedgerRow, findLedgerRow } from '../db/repositories/ledger.js';
import { findTask } from '../db/repositories/tasks.js';
import { findTransfer, listDueTransfers, markTransferSent } from '../db/repositories/transfers.js';
import type { Database } from '../db/schema.js';
import type { OutboxKind } from '../outbox/kind.js';
import { attemptRow, runDue } from '../outbox/runner.js';
import type { DomainContext } from './context.js';
import { formatAmount } from './currency.js';
import { assertInvariant } from './errors.js';
import { recordEvent } from './events.js';
import { notifyWorker } from './notifications.js';

/** Retry delays grow from 5 s and stop growing at 10 minutes; a transfer is never abandoned. */
const FIRST_RETRY_MS = 5_000;
const MAX_RETRY_MS = 10 * 60_000;
/**
 * A sandbox send is in-process and takes milliseconds; a claim holds its transfer this long (plus
 * the runner's margin), which is also the wait before a send cut off by a crash is tried again.
 */
const SEND_TIMEOUT_MS = 5_000;

/** The wait after the `failures`-th failed send (the first failure waits 5 s). */
export function retryDelayMs(failures: number): number {
  return Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.min(failures - 1, 20));
}

type DueTransfer = ChainTransferRow & { id: string };

/**
 * Jetton sender (LEAD: where it plugs in, issue 29). Every chain transfer row carries its
 * currency; the TON paths here and in chainSender.ts take only TON rows (listDueTransfers,
 * listUnbatchedTransfers, and the guards in attemptTransfer and `attempt` below), so a USDT
 * payout or fee stays `pending`, unclaimed and unfailed, until a jetton sender takes it:
 * - sandbox: an outbox kind like chainTransferKind that lists `currency = 'USDT'` rows and sends
 *   each as a TEP-74 jetton transfer from the hot wallet's jetton wallet (query id from txn_id,
 *   so a resend is idempotent), then calls recordSentTransfer as onDone does here;
 * - testnet/mainnet: the same rows batched into Highload messages (chainSender.ts prepareBatch)
 *   as jetton transfers, confirmed by the follower when the jetton wallet's transfer succeeded.
 * recordSentTransfer and confirmTransfer already write payment.sent in the row's currency.
 *
 * Sandbox chain transfers (payouts and fees) as outbox work: the runner claims a pending transfer,
 * sends it (the gateway is idempotent on the transfer id, so a resend after a crash that hid a
 * success pays nothing twice), and on success marks it sent and confirms its ledger row with the
 * chain's hash in one transaction. On testnet/mainnet transfers go out in batches, a kind of their own (`chainBatchKind`).
 */
export function chainTransferKind(ctx: DomainContext): OutboxKind<DueTransfer, TransferResult> {
  return {
    name: 'chain transfer',
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
      (await listDueTransfers(db, now, limit)).map((row) => ({ ...row, id: row.txn_id })),
    async attempt(transfer) {
      assertInvariant(
        transfer.currency === 'TON',
        `transfer ${transfer.txn_id} is TON (the TON sender sends no jettons)`,
      );
      const result = await ctx.chain.transfer({
        transferId: transfer.txn_id,
        toAddress: transfer.to_address,
        amountNano: transfer.amount_nano,
        comment: transfer.comment,
      });
      return { ok: true, result };
    },
    async onDone(trx, transfer, result) {
      assertInvariant(result, `transfer ${transfer.txn_id} was sent with a result`);
      await recordSentTransfer(ctx, trx, transfer.txn_id, transfer.to_address, result);
    },
  };
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
  // A USDT transfer waits for the jetton sender (see chainTransferKind): never sent as TON.
  if (transfer.status === 'pending' && !ctx.chain.live && transfer.currency === 'TON') {
    await attemptRow(ctx, chainTransferKind(ctx), { ...transfer, id: transfer.txn_id });
  }
  const row = await findLedgerRow(ctx.db, txnId);
  assertInvariant(row, `ledger row ${txnId} exists`);
  return row;
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

/**
 * What a sent transfer writes once its own row says `sent`: the ledger row confirmed with the
 * chain's hash, and for a payout the payment.sent event and the worker's notification.
 */
export async function recordSentTransfer(
  ctx: DomainContext,
  trx: Kysely<Database>,
  txnId: string,
  toAddress: string,
  result: TransferResult,
): Promise<void> {
  const now = ctx.clock.now();
  const row = await confirmLedgerRow(trx, txnId, result, now.toISOString());
  assertInvariant(row, `ledger row ${txnId} was pending`);
  if (row.type === 'PAYOUT' && row.task_id) {
    await recordEvent(trx, {
      agentId: row.agent_id,
      taskId: row.task_id,
      type: 'payment.sent',
      data: {
        taskId: row.task_id,
        payment: {
          amount: formatAmount(row.currency, row.amount_nano),
          toAddress,
          txHash: result.txHash,
          currency: row.currency,
        },
      },
      now,
    });
    const task = await findTask(trx, row.task_id);
    if (task?.worker_id) {
      await notifyWorker(trx, {
        workerId: task.worker_id,
        taskId: row.task_id,
        kind: 'payment_sent',
        data: {
          taskId: row.task_id,
          title: task.title,
          amount: formatAmount(row.currency, row.amount_nano),
          currency: row.currency,
          txHash: result.txHash,
        },
        now,
      });
    }
  }
}

/** One pass of the sandbox transfer runner: sends every due pending transfer once; returns how many were due. */
export function sendDueTransfers(ctx: DomainContext): Promise<number> {
  return runDue(ctx, chainTransferKind(ctx));
}
