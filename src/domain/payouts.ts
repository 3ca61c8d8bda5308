import type { Kysely } from 'kysely';
import type { TransferResult } from '../chain/gateway.js';
import type { TransactionRow } from '../db/repositories/executor.js';
import { confirmLedgerRow, findLedgerRow } from '../db/repositories/ledger.js';
import { findTask } from '../db/repositories/tasks.js';
import {
  claimTransfer,
  findTransfer,
  listDueTransfers,
  markTransferSent,
  recordTransferError,
} from '../db/repositories/transfers.js';
import type { Database } from '../db/schema.js';
import type { DomainContext } from './context.js';
import { assertInvariant } from './errors.js';
import { CURRENCY, recordEvent } from './events.js';
import { formatTon } from './money.js';
import { notifyWorker } from './notifications.js';
import { inTransaction } from './transaction.js';

/** Retry delays grow from 5 s and stop growing at 10 minutes; a transfer is never abandoned. */
const FIRST_RETRY_MS = 5_000;
const MAX_RETRY_MS = 10 * 60_000;
const DUE_BATCH = 20;

export function retryDelayMs(attempts: number): number {
  return Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.min(attempts, 20));
}

/**
 * One attempt to send a pending chain transfer. Returns the ledger row as it stands afterwards:
 * confirmed with its hash, or still pending (claimed elsewhere, or the send failed).
 */
export async function attemptTransfer(ctx: DomainContext, txnId: string): Promise<TransactionRow> {
  const transfer = await findTransfer(ctx.db, txnId);
  assertInvariant(transfer, `ledger row ${txnId} has a chain transfer`);
  // On testnet/mainnet the chain sender loop batches and sends it (see chainSender.ts).
  if (transfer.status === 'pending' && !ctx.chain.live) {
    const now = ctx.clock.now();
    const retryAt = new Date(now.getTime() + retryDelayMs(transfer.attempts)).toISOString();
    const claimed = await claimTransfer(ctx.db, transfer, retryAt, now.toISOString());
    if (claimed)
      await sendClaimed(ctx, claimed.txn_id, claimed.to_address, claimed.amount_nano, claimed.comment);
  }
  const row = await findLedgerRow(ctx.db, txnId);
  assertInvariant(row, `ledger row ${txnId} exists`);
  return row;
}

async function sendClaimed(
  ctx: DomainContext,
  txnId: string,
  toAddress: string,
  amountNano: bigint,
  comment: string,
) {
  let result: TransferResult;
  try {
    result = await ctx.chain.transfer({ transferId: txnId, toAddress, amountNano, comment });
  } catch (error) {
    await recordTransferError(ctx.db, txnId, (error as Error).message, ctx.clock.now().toISOString());
    return;
  }
  await inTransaction(ctx.db, (trx) => confirmTransfer(ctx, trx, txnId, toAddress, result));
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
  const now = ctx.clock.now();
  const sent = await markTransferSent(trx, txnId, now.toISOString());
  // Another attempt recorded the same (idempotent) send first: nothing more to write.
  if (!sent) return false;
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
          amount: formatTon(row.amount_nano),
          toAddress,
          txHash: result.txHash,
          currency: CURRENCY,
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
          amount: formatTon(row.amount_nano),
          txHash: result.txHash,
        },
        now,
      });
    }
  }
  return true;
}

/** Sends every due pending transfer once; returns how many were attempted. */
export async function sendDueTransfers(ctx: DomainContext): Promise<number> {
  const due = await listDueTransfers(ctx.db, ctx.clock.now().toISOString(), DUE_BATCH);
  for (const transfer of due) await attemptTransfer(ctx, transfer.txn_id);
  return due.length;
}
