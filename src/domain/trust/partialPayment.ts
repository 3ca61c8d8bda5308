import type { Executor, TaskRow } from '../../db/repositories/executor.js';
import { decidePendingSubmission, findPendingSubmission } from '../../db/repositories/submissions.js';
import { findTask, recordPartialOffer } from '../../db/repositories/tasks.js';
import type { DomainContext } from '../context.js';
import { heldByDispute } from '../disputes/disputeGuard.js';
import { conflict, invalid } from '../errors.js';
import { recordEvent } from '../events/events.js';
import { formatAmount, parseAmountField, rowCurrency } from '../money/currency.js';
import { endTask, paidInPart } from '../money/settlement.js';
import {
  type Completion,
  completeTask,
  type FullCompletion,
  recordCompletion,
  sendCompletionTransfers,
} from '../tasks/completion.js';
import { loadAgentTask, loadWorkerTask } from '../tasks/taskAccess.js';
import { checkText } from '../tasks/taskCreation.js';
import { inTransaction } from '../transaction.js';
import { notifyWorker } from '../workers/notifications.js';
import { reviewClock } from './submissions.js';

/** A graded approval's reason, shown to the worker: 1 to 1,000 characters. */
export const PARTIAL_REASON_MAX = 1000;

export interface GradeInput {
  amount?: string | number;
  reason?: string;
}

/** What POST /tasks/:id/complete did: paid the whole reward, or offered part of it. */
export type Grading = { kind: 'paid'; completion: FullCompletion } | { kind: 'offered'; task: TaskRow };

/**
 * POST /tasks/:id/complete with or without an amount (issue 40, graded approval). Without one, or
 * with the whole reward, it is the approval it always was (completeTask). An amount below the
 * reward is an offer of partial payment for the waiting submission (offerPartialPayment).
 */
export async function gradeTask(
  ctx: DomainContext,
  agentId: string,
  taskId: string,
  input: GradeInput = {},
): Promise<Grading> {
  if (input.amount === undefined) {
    if (input.reason !== undefined)
      throw invalid(
        'reason',
        'goes with an amount below the reward (a partial payment); leave it out to pay in full',
      );
    return { kind: 'paid', completion: await completeTask(ctx, agentId, taskId) };
  }
  const task = await loadAgentTask(ctx.db, agentId, taskId);
  const currency = rowCurrency(task.currency);
  const nano = parseAmountField('amount', currency, input.amount);
  if (nano > task.reward_nano) {
    throw invalid(
      'amount',
      `must be at most the reward, ${formatAmount(currency, task.reward_nano)} ${currency}`,
    );
  }
  if (nano === task.reward_nano) {
    if (input.reason !== undefined)
      throw invalid('reason', 'goes with an amount below the reward; the whole reward needs none');
    return { kind: 'paid', completion: await completeTask(ctx, agentId, taskId) };
  }
  if (nano === 0n) {
    throw invalid(
      'amount',
      'must be above 0: to pay nothing for this work, ask for a revision or open a dispute (POST /tasks/:id/dispute)',
    );
  }
  if (input.reason === undefined) throw invalid('reason', 'is required with an amount below the reward');
  const reason = checkText('reason', input.reason, PARTIAL_REASON_MAX).trim();
  return { kind: 'offered', task: await offerPartialPayment(ctx, agentId, taskId, nano, reason) };
}

/**
 * The offer itself, in one transaction: the task's compare-and-set (REVIEW, no dispute, no offer
 * yet; it restarts the review clock, now the worker's time to answer), task.partial_offered to
 * the agent and a Telegram note to the worker. The submission keeps waiting: the worker accepts
 * (acceptPartialPayment), disputes (POST /worker/tasks/:id/dispute), or lets the window end,
 * and then the auto-release pays the offered amount (autoReleaseTask).
 */
async function offerPartialPayment(
  ctx: DomainContext,
  agentId: string,
  taskId: string,
  nano: bigint,
  reason: string,
): Promise<TaskRow> {
  return inTransaction(ctx.db, async (trx) => {
    const current = await loadAgentTask(trx, agentId, taskId);
    const held = heldByDispute(current);
    if (held) throw held;
    if (current.partial_offer_nano !== null && current.status === 'REVIEW') throw alreadyOffered(current);
    if (current.status !== 'REVIEW' || !(await findPendingSubmission(trx, taskId)))
      throw nothingToGrade(current);
    const now = ctx.clock.now();
    const at = now.toISOString();
    const clock = reviewClock(current, now);
    const task = await recordPartialOffer(trx, taskId, { nano, reason, at, reviewDeadline: clock.deadline });
    if (!task) throw await offerConflict(trx, taskId);
    // The task row is locked now: a submission that stopped waiting before (a dispute, a
    // revision) was caught by the compare-and-set's guards; check again all the same.
    if (!(await findPendingSubmission(trx, taskId))) throw nothingToGrade(task);
    const currency = rowCurrency(task.currency);
    const offer = partialOfferView(task);
    await recordEvent(trx, {
      agentId: task.agent_id,
      taskId,
      type: 'task.partial_offered',
      data: { taskId, partialOffer: offer },
      now,
    });
    if (task.worker_id) {
      await notifyWorker(trx, {
        workerId: task.worker_id,
        taskId,
        kind: 'partial_offered',
        data: {
          taskId,
          title: task.title,
          amount: formatAmount(currency, nano),
          reward: formatAmount(currency, task.reward_nano),
          currency,
          reason,
          acceptBy: clock.deadline,
        },
        now,
      });
    }
    return task;
  });
}

/**
 * POST /worker/tasks/:id/partial/accept: the worker takes the offered amount. One transaction:
 * endTask pays the offer (the fee in proportion, the rest back to the agent; decided by the
 * agent, whose offer it was) with a compare-and-set that requires this worker, this very offer
 * and no dispute, the submission becomes ACCEPTED and task.completed (partial) is recorded. The
 * transfers are sent after commit, as every payout is.
 */
export async function acceptPartialPayment(
  ctx: DomainContext,
  workerId: string,
  taskId: string,
): Promise<Completion> {
  const recorded = await inTransaction(ctx.db, async (trx) => {
    const current = await loadWorkerTask(trx, workerId, taskId);
    const held = heldByDispute(current);
    if (held) throw held;
    const offer = current.partial_offer_nano;
    if (offer === null || current.status !== 'REVIEW') throw noOffer(current);
    const now = ctx.clock.now();
    const at = now.toISOString();
    const ended = await endTask(
      trx,
      ctx,
      current,
      {
        move: 'complete',
        outcome: paidInPart(current, offer, 'agent'),
        set: { payment_status: 'RELEASED', completed_at: at, updated_at: at, review_reminder_at: null },
        guard: { workerId, partialOffer: offer },
      },
      now,
    );
    if (!ended) {
      const found = await findTask(trx, taskId);
      throw heldByDispute(found) ?? noOffer(found ?? current);
    }
    const accepted = await decidePendingSubmission(trx, taskId, 'ACCEPTED', at);
    if (!accepted) throw noOffer(ended.task);
    return recordCompletion(trx, ended, now, { autoReleased: false, partial: true });
  });
  return sendCompletionTransfers(ctx, recorded);
}

/** The waiting offer as the agent and the worker see it; null when none waits. */
export function partialOfferView(task: TaskRow) {
  if (task.partial_offer_nano === null || task.status !== 'REVIEW' || task.dispute_id !== null) return null;
  const currency = rowCurrency(task.currency);
  return {
    amount: formatAmount(currency, task.partial_offer_nano),
    currency,
    reason: task.partial_offer_reason ?? '',
    offeredAt: task.partial_offered_at ?? task.updated_at,
    acceptBy: task.review_deadline ?? task.updated_at,
  };
}

function alreadyOffered(task: TaskRow) {
  return conflict(
    'A partial payment is already offered for this work; wait for the worker’s answer, or pay the whole reward (POST /tasks/:id/complete without amount)',
    { currentStatus: task.status },
  );
}

function nothingToGrade(task: Pick<TaskRow, 'status'>) {
  if (task.status === 'COMPLETED') return conflict('Task already completed', { currentStatus: task.status });
  if (task.status === 'CANCELLED')
    return conflict('Task is cancelled and was refunded; it cannot be completed', {
      currentStatus: task.status,
    });
  return conflict(
    'A partial payment can be offered only for submitted work waiting for your review; complete without amount to pay the whole reward',
    { currentStatus: task.status },
  );
}

async function offerConflict(trx: Executor, taskId: string) {
  const found = await findTask(trx, taskId);
  if (!found) return nothingToGrade({ status: 'CANCELLED' });
  return (
    heldByDispute(found) ??
    (found.partial_offer_nano !== null && found.status === 'REVIEW'
      ? alreadyOffered(found)
      : nothingToGrade(found))
  );
}

function noOffer(task: Pick<TaskRow, 'status'>) {
  if (task.status === 'COMPLETED') return conflict('Task already completed', { currentStatus: task.status });
  if (task.status === 'CANCELLED') return conflict('Task is cancelled', { currentStatus: task.status });
  return conflict('No partial payment is offered for this task; there is nothing to accept', {
    currentStatus: task.status,
  });
}
