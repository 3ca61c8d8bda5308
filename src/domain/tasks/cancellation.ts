import { rejectWaitingApplications } from '../../db/repositories/applications.js';
import { closeChat } from '../../db/repositories/chats.js';
import type { Executor, TaskRow } from '../../db/repositories/executor.js';
import { findTask } from '../../db/repositories/tasks.js';
import type { DomainContext } from '../context.js';
import { heldByDispute } from '../disputes/disputeGuard.js';
import { conflict } from '../errors.js';
import { recordEvent } from '../events/events.js';
import { formatAmount, rowCurrency } from '../money/currency.js';
import { endTask, refundedInFull } from '../money/settlement.js';
import { clipText, isBlank } from '../text.js';
import { inTransaction } from '../transaction.js';
import { notifyWorker } from '../workers/notifications.js';
import type { TaskStatus } from './states.js';
import { loadAgentTask } from './taskAccess.js';

export const REFUND_REASON_MAX = 1000;

/** A refund's reason as kept: trimmed and clipped, or null when none was given. */
export function cleanRefundReason(reason: string | undefined): string | null {
  return reason && !isBlank(reason) ? clipText(reason.trim(), REFUND_REASON_MAX) : null;
}

export interface Cancelled {
  task: TaskRow;
  refundNano: bigint;
}

/**
 * DELETE /tasks/:id (unassigned tasks only) and POST /tasks/:id/refund (also assigned tasks).
 * One transaction: compare-and-set to CANCELLED, the whole totalAmount back to the balance, a
 * REFUND ledger row, the refund.processed event. Of concurrent cancels, refunds and completions
 * exactly one wins the status update; the others see 409.
 */
export async function cancelTask(
  ctx: DomainContext,
  agentId: string,
  taskId: string,
  mode: 'delete' | 'refund',
  reason?: string,
): Promise<Cancelled> {
  const cleanReason = cleanRefundReason(reason);
  return inTransaction(ctx.db, async (trx) => {
    const current = await loadAgentTask(trx, agentId, taskId);
    return cancelInTransaction(trx, ctx, current, mode, cleanReason);
  });
}

/**
 * The cancel or refund of one task the caller read in its transaction (`current`): what
 * cancelTask does, and what POST /batches/:id/cancel does for each open task of a batch. A
 * refusal (409) is thrown before anything is written, so a caller may catch it and go on in the
 * same transaction.
 */
export async function cancelInTransaction(
  trx: Executor,
  ctx: DomainContext,
  current: TaskRow,
  mode: 'delete' | 'refund',
  cleanReason: string | null,
): Promise<Cancelled> {
  const taskId = current.id;
  const agentId = current.agent_id;
  const held = heldByDispute(current);
  if (held) throw held;
  if (current.submission_count > 0 && isOpen(current)) throw workSubmitted(current);
  const now = ctx.clock.now();
  const at = now.toISOString();
  const ended = await endTask(
    trx,
    ctx,
    current,
    {
      move: mode === 'delete' ? 'cancel' : 'refund',
      // The whole total back to the balance of the task's own currency, as the escrow came from it.
      outcome: refundedInFull(current, 'agent'),
      set: { payment_status: 'REFUNDED', cancelled_at: at, cancel_reason: cleanReason, updated_at: at },
      // A column of the task row, so a submission that commits first is seen (issue 25).
      guard: { noSubmission: true },
    },
    now,
  );
  if (!ended) {
    const latest = await findTask(trx, taskId);
    if (latest && latest.submission_count > 0 && isOpen(latest)) throw workSubmitted(latest);
    throw heldByDispute(latest) ?? cancelConflict((latest?.status ?? 'CANCELLED') as TaskStatus, mode);
  }
  const { task } = ended;
  const currency = rowCurrency(task.currency);
  // Applications still waiting can no longer win; the accepted one stays as history.
  const rejected = await rejectWaitingApplications(trx, taskId, at);
  await closeChat(trx, taskId, at);
  await tellWorkers(trx, task, rejected, cleanReason, now);
  await recordEvent(trx, {
    agentId,
    taskId,
    type: 'refund.processed',
    data: {
      taskId,
      refund: {
        amount: formatAmount(currency, task.total_nano),
        destination: 'agent_balance',
        reason: cleanReason,
        currency,
      },
    },
    now,
  });
  return { task, refundNano: task.total_nano };
}

/**
 * Every worker the task involved hears of it in Telegram: the offered worker (whose offer message
 * also loses its buttons when this is sent), waiting applicants, and the assigned worker. An
 * offered or assigned worker is the task's worker_id; an assigned worker's application is
 * ACCEPTED, so among the rejected ones only the offered worker's matches it.
 */
async function tellWorkers(
  trx: Executor,
  task: TaskRow,
  rejected: { worker_id: string }[],
  reason: string | null,
  now: Date,
) {
  const data = { taskId: task.id, title: task.title, reason };
  for (const { worker_id } of rejected) {
    const offered = worker_id === task.worker_id;
    await notifyWorker(trx, {
      workerId: worker_id,
      taskId: task.id,
      kind: offered ? 'offer_withdrawn' : 'task_cancelled',
      data: offered ? data : { ...data, role: 'applicant' },
      now,
    });
  }
  if (task.worker_id && !rejected.some((r) => r.worker_id === task.worker_id)) {
    await notifyWorker(trx, {
      workerId: task.worker_id,
      taskId: task.id,
      kind: 'task_cancelled',
      data: { ...data, role: 'assigned' },
      now,
    });
  }
}

const isOpen = (task: TaskRow) => task.status !== 'COMPLETED' && task.status !== 'CANCELLED';

/**
 * After work was submitted the agent's money is no longer its own to take back: only the three
 * ways the rules give (docs/decisions/submissions-and-reviews.md) move it.
 */
function workSubmitted(task: TaskRow) {
  return conflict(
    'Work was submitted for this task, so it can no longer be refunded or cancelled: approve it (POST /tasks/:id/complete), request a revision (POST /tasks/:id/revisions) or open a dispute (POST /tasks/:id/dispute)',
    { currentStatus: task.status },
  );
}

function cancelConflict(status: TaskStatus, mode: 'delete' | 'refund') {
  if (status === 'COMPLETED') {
    return conflict(
      mode === 'refund' ? 'Cannot refund a completed task' : 'Task already completed; it cannot be cancelled',
      { currentStatus: status },
    );
  }
  if (status === 'CANCELLED')
    return conflict('Task is already cancelled and refunded', { currentStatus: status });
  return conflict('Task is assigned; use POST /tasks/:id/refund', { currentStatus: status });
}
