import { spendLockedFunds } from '../db/repositories/agents.js';
import type { TaskRow, TransactionRow, WorkerRow } from '../db/repositories/executor.js';
import { insertLedgerRow } from '../db/repositories/ledger.js';
import { findTask, moveTask } from '../db/repositories/tasks.js';
import { insertTransfer } from '../db/repositories/transfers.js';
import { findWorker, recordCompletedTask } from '../db/repositories/workers.js';
import type { DomainContext } from './context.js';
import { heldByDispute } from './disputeGuard.js';
import { assertInvariant, conflict } from './errors.js';
import { CURRENCY, recordEvent } from './events.js';
import { newId } from './ids.js';
import { formatTon } from './money.js';
import { attemptTransfer } from './payouts.js';
import { loadAgentTask } from './taskAccess.js';
import { inTransaction } from './transaction.js';

export interface Completion {
  task: TaskRow;
  worker: WorkerRow;
  payout: TransactionRow;
  fee: TransactionRow;
}

/**
 * Completes a task. First, in one transaction: the compare-and-set to COMPLETED (so exactly one
 * of any concurrent completes, refunds and deletes wins), the locked total leaves the agent, and
 * the PAYOUT and FEE ledger rows are written as pending together with their intended chain
 * transfers. Only after that commits are the transfers sent; a crash in between leaves them
 * pending and the retrier sends them, at most once each (the gateway is idempotent per id).
 */
export async function completeTask(ctx: DomainContext, agentId: string, taskId: string): Promise<Completion> {
  const recorded = await inTransaction(ctx.db, async (trx) => {
    await loadAgentTask(trx, agentId, taskId);
    const now = ctx.clock.now();
    const at = now.toISOString();
    const task = await moveTask(trx, taskId, 'complete', {
      payment_status: 'RELEASED',
      completed_at: at,
      updated_at: at,
    });
    if (!task) {
      const found = await findTask(trx, taskId);
      throw heldByDispute(found) ?? completeConflict(found?.status);
    }
    const worker = task.worker_id ? await findWorker(trx, task.worker_id) : undefined;
    assertInvariant(worker?.wallet_address, 'an assigned worker has a wallet');
    const agent = await spendLockedFunds(trx, agentId, task.total_nano, at);
    assertInvariant(agent, 'a completed task had its total locked');
    const payout = chainEntry(task, 'PAYOUT', task.reward_nano, worker.wallet_address, ctx, now);
    const fee = chainEntry(task, 'FEE', task.fee_nano, ctx.chain.feeAddress, ctx, now);
    for (const [entry, comment] of [
      [payout, `Handoff payout for task ${task.id}`],
      [fee, `Handoff fee for task ${task.id}`],
    ] as const) {
      await insertLedgerRow(trx, entry);
      await insertTransfer(trx, {
        txn_id: entry.id,
        to_address: entry.to_address!,
        amount_nano: entry.amount_nano,
        comment,
        status: 'pending',
        attempts: 0,
        next_attempt_at: at,
        last_error: null,
        created_at: at,
        updated_at: at,
      });
    }
    await recordCompletedTask(trx, worker.id, task.reward_nano);
    await recordEvent(trx, {
      agentId,
      taskId,
      type: 'task.completed',
      data: {
        taskId,
        payment: {
          amount: formatTon(task.reward_nano),
          toAddress: worker.wallet_address,
          currency: CURRENCY,
        },
      },
      now,
    });
    return { task, worker, payout, fee };
  });
  // Send now so the caller gets the transaction hashes; failures stay pending for the retrier.
  const payout = await attemptTransfer(ctx, recorded.payout.id);
  const fee = await attemptTransfer(ctx, recorded.fee.id);
  return { ...recorded, payout, fee };
}

function chainEntry(
  task: TaskRow,
  type: 'PAYOUT' | 'FEE',
  amountNano: bigint,
  toAddress: string,
  ctx: DomainContext,
  now: Date,
): TransactionRow {
  return {
    id: newId('transaction', now.getTime()),
    agent_id: task.agent_id,
    task_id: task.id,
    type,
    amount_nano: amountNano,
    from_address: ctx.chain.hotWalletAddress,
    to_address: toAddress,
    tx_hash: null,
    status: 'pending',
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  };
}

function completeConflict(status: string | undefined) {
  if (status === 'COMPLETED') return conflict('Task already completed', { currentStatus: status });
  if (status === 'CANCELLED')
    return conflict('Task is cancelled and was refunded; it cannot be completed', { currentStatus: status });
  return conflict(
    'No worker is assigned to this task yet; accept an application or wait for the offer to be accepted',
    {
      currentStatus: status,
    },
  );
}
