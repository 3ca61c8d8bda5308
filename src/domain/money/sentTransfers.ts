import type { Kysely } from 'kysely';
import type { TransferResult } from '../../chain/gateway.js';
import type { ChainTransferRow } from '../../db/repositories/executor.js';
import { confirmLedgerRow } from '../../db/repositories/ledger.js';
import { findTask } from '../../db/repositories/tasks.js';
import { findTransfer, listDueTransfers } from '../../db/repositories/transfers.js';
import type { Database } from '../../db/schema.js';
import type { OutboxKind } from '../../outbox/kind.js';
import type { DomainContext } from '../context.js';
import { assertInvariant } from '../errors.js';
import { recordEvent } from '../events/events.js';
import { notifyWorker } from '../workers/notifications.js';
import { type Currency, formatAmount } from './currency.js';
import { MAX_TRANSFER_FAILURES, onTransferFailed } from './failedTransfers.js';

// What the chain senders share, TON (./payouts.ts) and the sandbox's jettons (./jettonTransfers.ts).

/**
 * Retry delays grow from 5 s and stop growing at 10 minutes; after MAX_TRANSFER_FAILURES attempts
 * the transfer is failed, still owed (./failedTransfers.ts).
 */
const FIRST_RETRY_MS = 5_000;
const MAX_RETRY_MS = 10 * 60_000;
/** The wait after the `failures`-th failed send (the first failure waits 5 s). */
export function retryDelayMs(failures: number): number {
  return Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.min(failures - 1, 20));
}

/**
 * A sandbox send is in-process and takes milliseconds (a jetton payout one emulated trace); a claim
 * holds its transfer this long (plus the runner's margin), which is also the wait before a send cut
 * off by a crash is tried again.
 */
const SEND_TIMEOUT_MS = 5_000;

export type DueTransfer = ChainTransferRow & { id: string };

/**
 * One currency's sandbox chain transfers (payouts and fees) as outbox work: the runner claims a
 * pending row of `currency` (compare-and-set), `send` pays it (idempotent on the transfer id, so a
 * resend after a crash that hid a success pays nothing twice), and on success the row is marked
 * sent and its ledger row confirmed with the chain's hash in one transaction. Each sender lists
 * and accepts its own currency only, so no row is ever paid in the other one.
 */
export function sandboxSenderKind(
  ctx: DomainContext,
  spec: { name: string; currency: Currency; send: (transfer: ChainTransferRow) => Promise<TransferResult> },
): OutboxKind<DueTransfer, TransferResult> {
  return {
    name: spec.name,
    table: 'chain_transfers',
    policy: {
      batch: 20,
      parallel: 1,
      maxAttempts: MAX_TRANSFER_FAILURES,
      delayMs: retryDelayMs,
      countAttempt: 'claimed',
    },
    doneStatus: 'sent',
    failedStatus: 'failed',
    attemptTimeoutMs: SEND_TIMEOUT_MS,
    listDue: async (db, now, limit) =>
      (await listDueTransfers(db, spec.currency, now, limit)).map((row) => ({ ...row, id: row.txn_id })),
    async attempt(transfer) {
      assertInvariant(
        transfer.currency === spec.currency,
        `transfer ${transfer.txn_id} is ${spec.currency} (the ${spec.name} sender sends no other currency)`,
      );
      assertInvariant(!ctx.chain.live, 'the sandbox senders run in the sandbox only');
      return { ok: true, result: await spec.send(transfer) };
    },
    async onDone(trx, transfer, result) {
      assertInvariant(result, `transfer ${transfer.txn_id} was sent with a result`);
      await recordSentTransfer(ctx, trx, transfer.txn_id, transfer.to_address, result);
    },
    async onFailed(trx, transfer) {
      // Settled just before in this transaction: its last error is this attempt's.
      const settled = await findTransfer(trx, transfer.txn_id);
      const reason = settled?.last_error ?? transfer.last_error ?? 'the transfer kept failing';
      await onTransferFailed(trx, transfer.txn_id, reason, ctx.clock.now());
    },
  };
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
