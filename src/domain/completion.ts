import { spendLockedFunds } from '../db/repositories/balances.js';
import type { Executor, TaskRow, TransactionRow, WorkerRow } from '../db/repositories/executor.js';
import { insertLedgerRow } from '../db/repositories/ledger.js';
import { decidePendingSubmission } from '../db/repositories/submissions.js';
import { findTask, moveTask } from '../db/repositories/tasks.js';
import { insertTransfer } from '../db/repositories/transfers.js';
import { findWorker, recordCompletedTask } from '../db/repositories/workers.js';
import type { DomainContext } from './context.js';
import { formatAmount, rowCurrency } from './currency.js';
import { heldByDispute } from './disputeGuard.js';
import { assertInvariant, conflict } from './errors.js';
import { recordEvent } from './events.js';
import { newId } from './ids.js';
import { notifyWorker } from './notifications.js';
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
      review_reminder_at: null,
    });
    if (!task) {
      const found = await findTask(trx, taskId);
      throw heldByDispute(found) ?? completeConflict(found?.status);
    }
    // Completing approves the submission waiting for review, if one does (issue 25).
    await decidePendingSubmission(trx, taskId, 'ACCEPTED', at);
    return recordCompletion(trx, ctx, task, now, false);
  });
  return sendCompletionTransfers(ctx, recorded);
}

/**
 * The review window of a task ended in silence (issue 25): completes it for the agent exactly as
 * completeTask does (same ledger rows, transfers and event, plus autoReleased), in one
 * transaction whose compare-and-set requires the task still in REVIEW past its review deadline
 * and its submission still waiting. Returns null when anything decided first (a completion, a
 * revision, a dispute): then nothing is written.
 */
export async function autoReleaseTask(ctx: DomainContext, taskId: string): Promise<Completion | null> {
  let recorded: Completion | null;
  try {
    recorded = await inTransaction(ctx.db, async (trx) => {
      const now = ctx.clock.now();
      const at = now.toISOString();
      const task = await moveTask(
        trx,
        taskId,
        'autoRelease',
        { payment_status: 'RELEASED', completed_at: at, updated_at: at, review_reminder_at: null },
        { reviewDueBy: at },
      );
      if (!task) return null;
      // The task row is locked now; a dispute or revision that committed first left no PENDING
      // submission, and then the whole transaction is undone (nothing may be paid).
      const accepted = await decidePendingSubmission(trx, taskId, 'ACCEPTED', at);
      if (!accepted) throw new NothingToRelease();
      const done = await recordCompletion(trx, ctx, task, now, true);
      await notifyWorker(trx, {
        workerId: done.worker.id,
        taskId,
        kind: 'auto_released',
        data: {
          taskId,
          title: task.title,
          amount: formatAmount(rowCurrency(task.currency), task.reward_nano),
          currency: task.currency,
        },
        now,
      });
      return done;
    });
  } catch (error) {
    if (error instanceof NothingToRelease) return null;
    throw error;
  }
  return recorded ? sendCompletionTransfers(ctx, recorded) : null;
}

/** Undoes an auto-release whose submission stopped waiting before its task row was locked. */
class NothingToRelease extends Error {}

/**
 * After the task's compare-and-set to COMPLETED, in the same transaction: the locked total
 * leaves the agent, the PAYOUT and FEE ledger rows are written as pending together with their
 * intended chain transfers, the worker's count grows and task.completed is recorded.
 */
async function recordCompletion(
  trx: Executor,
  ctx: DomainContext,
  task: TaskRow,
  now: Date,
  autoReleased: boolean,
): Promise<Completion> {
  const at = now.toISOString();
  const worker = task.worker_id ? await findWorker(trx, task.worker_id) : undefined;
  assertInvariant(worker?.wallet_address, 'an assigned worker has a wallet');
  const currency = rowCurrency(task.currency);
  const agent = await spendLockedFunds(trx, task.agent_id, currency, task.total_nano, at);
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
      currency: entry.currency,
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
  await recordCompletedTask(trx, worker.id, currency, task.reward_nano);
  await recordEvent(trx, {
    agentId: task.agent_id,
    taskId: task.id,
    type: 'task.completed',
    data: {
      taskId: task.id,
      payment: {
        amount: formatAmount(currency, task.reward_nano),
        toAddress: worker.wallet_address,
        currency,
      },
      // Only on auto-releases: an agent's own completion sends the spec's event unchanged.
      ...(autoReleased ? { autoReleased: true } : {}),
    },
    now,
  });
  return { task, worker, payout, fee };
}

/** Sends now so the caller gets the transaction hashes; failures stay pending for the retrier. */
async function sendCompletionTransfers(ctx: DomainContext, recorded: Completion): Promise<Completion> {
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
    currency: task.currency,
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
