import { closeChat } from '../../db/repositories/chats.js';
import { findDispute, markDisputeResolved } from '../../db/repositories/disputes.js';
import type { DisputeRow, TaskRow, TransactionRow } from '../../db/repositories/executor.js';
import { findTask } from '../../db/repositories/tasks.js';
import { findWorker } from '../../db/repositories/workers.js';
import type { DomainContext } from '../context.js';
import { assertInvariant, conflict, invalid, notFound } from '../errors.js';
import { recordEvent } from '../events/events.js';
import { isIdOf } from '../ids.js';
import {
  amountText,
  type Currency,
  currencyFacts,
  formatAmount,
  parseAmount,
  rowCurrency,
} from '../money/currency.js';
import { AmountFormatError } from '../money/money.js';
import { attemptTransfer } from '../money/payouts.js';
import { endTask, paidInPart } from '../money/settlement.js';
import { clipText, isBlank, textLength } from '../text.js';
import { inTransaction } from '../transaction.js';
import { notifyWorker } from '../workers/notifications.js';
import { disputeSplit } from './disputeSplit.js';

/** An operator's note to both sides. */
export const RESOLUTION_NOTE_MAX = 2000;
/** The note as the cancelled task's cancel reason (the refund's reason) is clipped to this. */
const CANCEL_REASON_MAX = 1000;

export interface Resolution {
  dispute: DisputeRow;
  task: TaskRow;
  payout: TransactionRow | null;
  fee: TransactionRow | null;
  refund: TransactionRow | null;
}

/**
 * POST /admin/disputes/:id/resolve. In one transaction: the dispute's compare-and-set OPEN ->
 * RESOLVED (of two resolutions at once, one wins; the other is 409), the task's move (COMPLETED
 * when the worker gets anything, else CANCELLED) guarded by this dispute, the agent's locked total
 * split three ways (worker + proportional fee spent, the rest unlocked to the balance), the
 * PAYOUT/FEE ledger rows with their intended chain transfers, the REFUND row, the events and the
 * worker's notification. The transfers are sent after commit, exactly once each.
 */
export async function resolveDispute(
  ctx: DomainContext,
  disputeId: string,
  input: { workerAmount: string | number; note: string; currency?: string },
): Promise<Resolution> {
  const note = input.note.trim();
  if (isBlank(note) || textLength(note) > RESOLUTION_NOTE_MAX) {
    throw invalid(
      'note',
      `must be 1 to ${RESOLUTION_NOTE_MAX} characters explaining the decision to both sides`,
    );
  }
  const recorded = await inTransaction(ctx.db, async (trx) => {
    const found = isIdOf('dispute', disputeId) ? await findDispute(trx, disputeId) : undefined;
    if (!found) throw notFound('Dispute');
    if (found.status !== 'OPEN') throw alreadyResolved(found);
    const current = await findTask(trx, found.task_id);
    assertInvariant(current, `dispute ${found.id} has its task`);
    // The split is in the task's currency; an operator who names another is stopped, not converted.
    const currency = rowCurrency(current.currency);
    if (input.currency !== undefined && input.currency !== currency) {
      throw invalid('currency', `this dispute's task is paid in ${currency}: the split is in ${currency}`);
    }
    const workerNano = parseWorkerAmount(currency, input.workerAmount);
    if (workerNano > current.reward_nano) {
      throw invalid(
        'workerAmount',
        `must be from 0 to the task's reward (${amountText(currency, current.reward_nano)})`,
      );
    }
    checkNotDust(currency, workerNano);
    const split = disputeSplit(current, workerNano);
    const now = ctx.clock.now();
    const at = now.toISOString();
    const dispute = await markDisputeResolved(trx, found.id, { ...split, note }, at);
    if (!dispute) throw alreadyResolved((await findDispute(trx, found.id)) ?? found);
    const paid = split.workerNano > 0n;
    // COMPLETED when the worker gets anything, else CANCELLED; the outcome is the split, so the
    // fee actually taken is recorded, not the task's whole fee.
    const ended = await endTask(
      trx,
      ctx,
      current,
      {
        move: paid ? 'complete' : 'refund',
        outcome: paidInPart(current, split.workerNano, 'operator'),
        set: paid
          ? { payment_status: 'RELEASED', completed_at: at, updated_at: at }
          : {
              payment_status: 'REFUNDED',
              cancelled_at: at,
              cancel_reason: clipText(note, CANCEL_REASON_MAX),
              updated_at: at,
            },
        guard: { disputeId: dispute.id },
      },
      now,
    );
    // The dispute was open, so the task was held by it: nothing else could have moved it.
    assertInvariant(ended, `the task of open dispute ${dispute.id} moves only by its resolution`);
    const { task, payout, fee, refund } = ended;
    assertInvariant(task.worker_id === dispute.worker_id, `dispute ${dispute.id} is about the task's worker`);
    const worker = await findWorker(trx, dispute.worker_id);
    assertInvariant(worker, `dispute ${dispute.id} has its worker`);
    // A cancelled task's chat closes as a refund's does; a completed one's stays open, as after
    // an approval, so the two can still settle details.
    if (!paid) await closeChat(trx, task.id, at);
    await recordOutcome(trx, dispute, task, payout, worker.wallet_address, now);
    return { dispute, task, payout, fee, refund };
  });
  // Send now so the operator sees the hashes; a failure stays pending for the retrier.
  const payout = recorded.payout && (await attemptTransfer(ctx, recorded.payout.id));
  const fee = recorded.fee && (await attemptTransfer(ctx, recorded.fee.id));
  return { ...recorded, payout, fee };
}

/**
 * The agent hears dispute.resolved, then what became of the task as the spec's events say it:
 * task.completed with the amount paid (the partial amount for a split), or refund.processed
 * with the whole total for a resolution that pays the worker nothing. A split's returned part is
 * in dispute.resolved (agentAmount), not in a refund.processed: that event means a cancelled
 * task to agents written against the spec. The worker is told in Telegram.
 */
async function recordOutcome(
  trx: Parameters<typeof recordEvent>[0],
  dispute: DisputeRow,
  task: TaskRow,
  payout: TransactionRow | null,
  walletAddress: string | null,
  now: Date,
) {
  const base = { agentId: task.agent_id, taskId: task.id, now };
  const currency = rowCurrency(task.currency);
  await recordEvent(trx, {
    ...base,
    type: 'dispute.resolved',
    data: { taskId: task.id, dispute: disputeEventView(dispute) },
  });
  if (payout && walletAddress) {
    await recordEvent(trx, {
      ...base,
      type: 'task.completed',
      data: {
        taskId: task.id,
        payment: { amount: formatAmount(currency, payout.amount_nano), toAddress: walletAddress, currency },
        disputeId: dispute.id,
      },
    });
  } else {
    await recordEvent(trx, {
      ...base,
      type: 'refund.processed',
      data: {
        taskId: task.id,
        refund: {
          amount: formatAmount(currency, task.total_nano),
          destination: 'agent_balance',
          reason: task.cancel_reason,
          currency,
        },
        disputeId: dispute.id,
      },
    });
  }
  await notifyWorker(trx, {
    workerId: dispute.worker_id,
    taskId: task.id,
    kind: 'dispute_resolved',
    data: {
      taskId: task.id,
      title: task.title,
      workerAmount: formatAmount(currency, dispute.worker_amount_nano ?? 0n),
      currency,
      note: dispute.note,
    },
    now,
  });
}

/** What dispute.opened and dispute.resolved carry of the dispute. */
export function disputeEventView(d: DisputeRow) {
  return {
    id: d.id,
    status: d.status,
    openedBy: d.opened_by,
    reason: d.reason,
    createdAt: d.created_at,
    resolution: resolutionView(d),
  };
}

/** The split an operator decided, as decimal strings of the task's currency; null while open. */
export function resolutionView(d: DisputeRow) {
  if (d.status !== 'RESOLVED' || d.worker_amount_nano === null) return null;
  const currency = rowCurrency(d.currency);
  return {
    workerAmount: formatAmount(currency, d.worker_amount_nano),
    platformFee: formatAmount(currency, d.fee_amount_nano ?? 0n),
    agentAmount: formatAmount(currency, d.agent_amount_nano ?? 0n),
    note: d.note ?? '',
    resolvedAt: d.resolved_at ?? d.updated_at,
    currency,
  };
}

function parseWorkerAmount(currency: Currency, value: string | number): bigint {
  try {
    return parseAmount(currency, value);
  } catch (error) {
    if (error instanceof AmountFormatError)
      throw invalid('workerAmount', `${error.message}; 0 pays the worker nothing`);
    throw error;
  }
}

/**
 * A split pays the worker nothing or at least the smallest reward of its currency (0.01 TON,
 * 0.01 USDT): a smaller payout is a chain transfer that costs more in gas than it pays (issue #35).
 * The reward itself is never below that minimum, so paying in full is always allowed; the agent's
 * part is no transfer (it goes back to the balance) and may be any amount.
 */
function checkNotDust(currency: Currency, workerNano: bigint): void {
  const { minReward } = currencyFacts(currency);
  if (workerNano > 0n && workerNano < minReward) {
    throw invalid(
      'workerAmount',
      `must be 0 or at least ${amountText(currency, minReward)}: a smaller payout costs more in gas than it pays`,
    );
  }
}

function alreadyResolved(d: DisputeRow) {
  return conflict('This dispute is already resolved; a resolution is final', {
    disputeId: d.id,
    resolution: resolutionView(d),
  });
}
