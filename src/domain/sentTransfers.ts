import type { Kysely } from 'kysely';
import type { TransferResult } from '../chain/gateway.js';
import { confirmLedgerRow } from '../db/repositories/ledger.js';
import { findTask } from '../db/repositories/tasks.js';
import type { Database } from '../db/schema.js';
import type { DomainContext } from './context.js';
import { formatAmount } from './currency.js';
import { assertInvariant } from './errors.js';
import { recordEvent } from './events.js';
import { notifyWorker } from './notifications.js';

// What the chain senders share, TON (./payouts.ts) and the sandbox's jettons (./jettonTransfers.ts).

/** Retry delays grow from 5 s and stop growing at 10 minutes; a transfer is never abandoned. */
const FIRST_RETRY_MS = 5_000;
const MAX_RETRY_MS = 10 * 60_000;
/** The wait after the `failures`-th failed send (the first failure waits 5 s). */
export function retryDelayMs(failures: number): number {
  return Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.min(failures - 1, 20));
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
