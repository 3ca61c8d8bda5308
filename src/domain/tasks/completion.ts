import type { Executor, TaskRow, TransactionRow, WorkerRow } from '../../db/repositories/executor.js';
import { decidePendingSubmission } from '../../db/repositories/submissions.js';
import { findTask } from '../../db/repositories/tasks.js';
import type { DomainContext } from '../context.js';
import { heldByDispute } from '../disputes/disputeGuard.js';
import { assertInvariant, conflict } from '../errors.js';
import { recordEvent } from '../events/events.js';
import { formatAmount, rowCurrency } from '../money/currency.js';
import { attemptTransfer } from '../money/payouts.js';
import { type Ended, endTask, paidInFull, paidInPart } from '../money/settlement.js';
import { inTransaction } from '../transaction.js';
import { notifyWorker } from '../workers/notifications.js';
import { loadAgentTask } from './taskAccess.js';

export interface Completion {
  task: TaskRow;
  worker: WorkerRow;
  payout: TransactionRow;
  /** None only when a part of the reward was paid whose proportional fee rounds down to 0. */
  fee: TransactionRow | null;
}

/** An approval of the whole reward: the fee is never 0 (the smallest reward has one). */
export type FullCompletion = Completion & { fee: TransactionRow };

/**
 * Completes a task. First, in one transaction: the compare-and-set to COMPLETED (so exactly one
 * of any concurrent completes, refunds and deletes wins), the locked total leaves the agent, and
 * the PAYOUT and FEE ledger rows are written as pending together with their intended chain
 * transfers. Only after that commits are the transfers sent; a crash in between leaves them
 * pending and the retrier sends them, at most once each (the gateway is idempotent per id).
 */
export async function completeTask(
  ctx: DomainContext,
  agentId: string,
  taskId: string,
): Promise<FullCompletion> {
  const recorded = await inTransaction(ctx.db, async (trx) => {
    const current = await loadAgentTask(trx, agentId, taskId);
    const now = ctx.clock.now();
    const at = now.toISOString();
    const ended = await endTask(
      trx,
      ctx,
      current,
      {
        move: 'complete',
        outcome: paidInFull(current, 'agent'),
        set: { payment_status: 'RELEASED', completed_at: at, updated_at: at, review_reminder_at: null },
      },
      now,
    );
    if (!ended) {
      const found = await findTask(trx, taskId);
      throw heldByDispute(found) ?? completeConflict(found?.status);
    }
    // Completing approves the submission waiting for review, if one does (issue 25).
    await decidePendingSubmission(trx, taskId, 'ACCEPTED', at);
    return recordCompletion(trx, ended, now, { autoReleased: false, partial: false });
  });
  const done = await sendCompletionTransfers(ctx, recorded);
  const fee = done.fee;
  assertInvariant(fee, 'an approval of the whole reward takes the whole fee');
  return { ...done, fee };
}

/**
 * The review window of a task ended in silence (issue 25): completes it for the agent exactly as
 * completeTask does (same ledger rows, transfers and event, plus autoReleased; decided by the
 * review clock), in one transaction whose compare-and-set requires the task still in REVIEW past
 * its review deadline and its submission still waiting. Returns null when anything decided first
 * (a completion, a revision, a dispute): then nothing is written. When the agent offered part of
 * the reward (graded approval, issue 40) the window was the worker's to answer, and silence
 * accepts the offer: the offered amount is paid as the worker's acceptance would pay it.
 */
export async function autoReleaseTask(ctx: DomainContext, taskId: string): Promise<Completion | null> {
  let recorded: Completion | null;
  try {
    recorded = await inTransaction(ctx.db, async (trx) => {
      const current = await findTask(trx, taskId);
      if (!current) return null;
      const now = ctx.clock.now();
      const at = now.toISOString();
      const offer = current.partial_offer_nano;
      const ended = await endTask(
        trx,
        ctx,
        current,
        {
          move: 'autoRelease',
          outcome: offer === null ? paidInFull(current, 'auto') : paidInPart(current, offer, 'auto'),
          set: { payment_status: 'RELEASED', completed_at: at, updated_at: at, review_reminder_at: null },
          // The offer read above, or none: an offer made meanwhile also moved the deadline.
          guard: { reviewDueBy: at, partialOffer: offer },
        },
        now,
      );
      if (!ended) return null;
      // The task row is locked now; a dispute or revision that committed first left no PENDING
      // submission, and then the whole transaction is undone (nothing may be paid).
      const accepted = await decidePendingSubmission(trx, taskId, 'ACCEPTED', at);
      if (!accepted) throw new NothingToRelease();
      const done = await recordCompletion(trx, ended, now, { autoReleased: true, partial: offer !== null });
      const task = ended.task;
      await notifyWorker(trx, {
        workerId: done.worker.id,
        taskId,
        kind: 'auto_released',
        data: {
          taskId,
          title: task.title,
          amount: formatAmount(rowCurrency(task.currency), done.payout.amount_nano),
          currency: task.currency,
          ...(offer !== null ? { partial: true } : {}),
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
 * After endTask paid the task (the money moved and the PAYOUT and FEE rows pending with their
 * transfers), in the same transaction: task.completed is recorded.
 */
export async function recordCompletion(
  trx: Executor,
  ended: Ended,
  now: Date,
  how: { autoReleased: boolean; partial: boolean },
): Promise<Completion> {
  const { task, worker, payout, fee } = ended;
  assertInvariant(worker?.wallet_address && payout, 'a completed task paid its worker');
  assertInvariant(fee || how.partial, 'a task paid in full paid its fee');
  const currency = rowCurrency(task.currency);
  await recordEvent(trx, {
    agentId: task.agent_id,
    taskId: task.id,
    type: 'task.completed',
    data: {
      taskId: task.id,
      payment: {
        amount: formatAmount(currency, payout.amount_nano),
        toAddress: worker.wallet_address,
        currency,
      },
      // Only on auto-releases: an agent's own completion sends the spec's event unchanged.
      ...(how.autoReleased ? { autoReleased: true } : {}),
      // Only when a graded approval's offer was paid (accepted, or by the window's end).
      ...(how.partial ? { partial: true } : {}),
    },
    now,
  });
  return { task, worker, payout, fee };
}

/** Sends now so the caller gets the transaction hashes; failures stay pending for the retrier. */
export async function sendCompletionTransfers(ctx: DomainContext, recorded: Completion): Promise<Completion> {
  const payout = await attemptTransfer(ctx, recorded.payout.id);
  const fee = recorded.fee && (await attemptTransfer(ctx, recorded.fee.id));
  return { ...recorded, payout, fee };
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
