import type { Executor } from '../../db/repositories/executor.js';
import { findLedgerRow } from '../../db/repositories/ledger.js';
import { findTask } from '../../db/repositories/tasks.js';
import { requeueFailedPayouts } from '../../db/repositories/transfers.js';
import { notifyWorker } from '../workers/notifications.js';
import { formatAmount } from './currency.js';

/**
 * A chain transfer's final failure (issue 35, finding 2). A transfer that fails for a cause that
 * cannot change by itself (a wallet the jetton refuses, a locked jetton wallet) would otherwise be
 * re-sent without end, each attempt burning gas. After MAX_TRANSFER_FAILURES failed attempts the
 * row is `failed`: the senders no longer list it, the operator sees it (GET /admin/overview,
 * GET /admin/chain), and for a payout the worker is told. The money is still owed: the ledger row
 * stays `pending` (the agent's books already count it spent, the worker's earnings show it on its
 * way), and a worker who connects a wallet again puts their failed payouts back to pending, to
 * that wallet (requeueWorkerPayouts).
 *
 * Sandbox sends are in-process, so any failure counts; in network mode only a jetton transfer the
 * chain shows failed counts (a send the provider refused may have gone out anyway, and TON
 * batches that expire are the hot wallet's matter, which pauses payouts instead).
 */
export const MAX_TRANSFER_FAILURES = 6;

/** Written with the transfer's `failed` status, in the same transaction: the worker's message. */
export async function onTransferFailed(
  trx: Executor,
  txnId: string,
  reason: string,
  now: Date,
): Promise<void> {
  const row = await findLedgerRow(trx, txnId);
  if (row?.type !== 'PAYOUT' || !row.task_id) return;
  const task = await findTask(trx, row.task_id);
  if (!task?.worker_id) return;
  await notifyWorker(trx, {
    workerId: task.worker_id,
    taskId: row.task_id,
    kind: 'payment_failed',
    data: {
      taskId: row.task_id,
      title: task.title,
      amount: formatAmount(row.currency, row.amount_nano),
      currency: row.currency,
      toAddress: row.to_address,
      reason,
    },
    now,
  });
}

/**
 * The worker connected a wallet (a new one, or the same one again once its cause is fixed): their
 * failed payouts go back to pending, to that wallet, with their attempts counted from zero.
 * Returns how many.
 */
export function requeueWorkerPayouts(trx: Executor, workerId: string, address: string, now: Date) {
  return requeueFailedPayouts(trx, workerId, address, now.toISOString());
}
