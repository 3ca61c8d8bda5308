import { findAgent } from '../../db/repositories/agents.js';
import { rejectWaitingApplications } from '../../db/repositories/applications.js';
import { closeChat } from '../../db/repositories/chats.js';
import type { Executor, TaskRow } from '../../db/repositories/executor.js';
import { approveHeldTask, listHeldTasks, listTaskModeration } from '../../db/repositories/moderation.js';
import { findTask } from '../../db/repositories/tasks.js';
import type { DomainContext } from '../context.js';
import { decodePosition, page, positionCursor } from '../cursor.js';
import { conflict, invalid, notFound } from '../errors.js';
import { recordEvent } from '../events/events.js';
import { isIdOf } from '../ids.js';
import { formatAmount, rowCurrency } from '../money/currency.js';
import { endTask, refundedInFull } from '../money/settlement.js';
import { notifyOffer } from '../tasks/taskCreation.js';
import { clipText } from '../text.js';
import { inTransaction } from '../transaction.js';
import { freezeOnStrikes, logModeration } from './moderation.js';

/**
 * The operators' moderation queue (issue 39, docs/decisions/screening.md): held tasks, oldest
 * first, and the two decisions on one. Approve and reject are compare-and-set on the task row
 * (moderation PENDING, status FUNDED or OFFERED), as is the agent's own cancel (status), so of
 * the three racing exactly one wins and the others answer 409 having written nothing.
 */

export const MODERATION_NOTE_MAX = 1000;
export const OPERATOR_NAME_MAX = 100;
/** Who decided, when the operator gives no name: the holder of ADMIN_TOKEN. */
const DEFAULT_OPERATOR = 'admin';

export interface Decision {
  /** Who decided (kept in moderation_log); the ADMIN_TOKEN is shared, so the operator says. */
  operator?: string;
}

/** GET /admin/moderation: held tasks an operator has not decided on, oldest first. */
export async function moderationQueue(ctx: DomainContext, query: { cursor?: string; limit: number }) {
  const rows = await listHeldTasks(ctx.db, decodePosition(query.cursor), query.limit + 1);
  return page(rows, query.limit, positionCursor);
}

/** A held task's moderation log (why it was held, who decided), oldest first. */
export function moderationHistory(ctx: DomainContext, taskId: string) {
  return listTaskModeration(ctx.db, taskId, 50);
}

/** POST /admin/moderation/:taskId/approve: workers may see it; a held direct offer reaches its worker. */
export async function approveHeld(
  ctx: DomainContext,
  taskId: string,
  decision: Decision & { note?: string },
): Promise<TaskRow> {
  const now = ctx.clock.now();
  return inTransaction(ctx.db, async (trx) => {
    const task = await approveHeldTask(trx, taskId, now.toISOString());
    if (!task) throw await notDecidable(trx, taskId);
    await logModeration(trx, {
      agentId: task.agent_id,
      taskId,
      action: 'approved',
      rule: task.moderation_rule,
      operator: operatorOf(decision),
      note: cleanNote(decision.note),
      now,
    });
    // The offer was written at creation but its worker was not told while it was held.
    if (task.status === 'OFFERED' && task.worker_id) {
      const agent = await findAgent(trx, task.agent_id);
      await notifyOffer(trx, task, task.worker_id, agent?.name ?? null, now);
    }
    return task;
  });
}

/**
 * POST /admin/moderation/:taskId/reject: the task ends CANCELLED with its whole total back to the
 * agent's balance, exactly as a refund (endTask: one compare-and-set, the REFUND ledger row,
 * refund.processed), plus moderation REJECTED and task.rejected_by_review, in one transaction.
 * A rejection counts toward the agent's freeze.
 */
export async function rejectHeld(
  ctx: DomainContext,
  taskId: string,
  decision: Decision & { reason: string },
): Promise<TaskRow> {
  const now = ctx.clock.now();
  const at = now.toISOString();
  const reason = cleanNote(decision.reason);
  if (!reason) throw invalid('reason', 'say why the task is rejected (the agent reads it)');
  return inTransaction(ctx.db, async (trx) => {
    const current = isIdOf('task', taskId) ? await findTask(trx, taskId) : undefined;
    if (!current) throw notFound('Task');
    const ended =
      current.moderation_status === 'PENDING'
        ? await endTask(
            trx,
            ctx,
            current,
            {
              move: 'cancel',
              outcome: refundedInFull(current, 'operator'),
              set: {
                payment_status: 'REFUNDED',
                cancelled_at: at,
                cancel_reason: reason,
                moderation_status: 'REJECTED',
                updated_at: at,
              },
              guard: { moderationPending: true, noSubmission: true },
            },
            now,
          )
        : undefined;
    if (!ended) throw await notDecidable(trx, taskId);
    const { task } = ended;
    const currency = rowCurrency(task.currency);
    // A held offer's application is still OFFERED; it can no longer be accepted.
    await rejectWaitingApplications(trx, taskId, at);
    await closeChat(trx, taskId, at);
    const refund = {
      amount: formatAmount(currency, task.total_nano),
      destination: 'agent_balance',
      reason,
      currency,
    };
    await recordEvent(trx, {
      agentId: task.agent_id,
      taskId,
      type: 'refund.processed',
      data: { taskId, refund },
      now,
    });
    await recordEvent(trx, {
      agentId: task.agent_id,
      taskId,
      type: 'task.rejected_by_review',
      data: { taskId, rule: task.moderation_rule, reason, refund },
      now,
    });
    await logModeration(trx, {
      agentId: task.agent_id,
      taskId,
      action: 'rejected',
      rule: task.moderation_rule,
      operator: operatorOf(decision),
      note: reason,
      now,
    });
    await freezeOnStrikes(ctx, trx, task.agent_id, now);
    return task;
  });
}

/** Why a decision found nothing to decide: no such task, or it is not (or no longer) held. */
async function notDecidable(trx: Executor, taskId: string) {
  const task = isIdOf('task', taskId) ? await findTask(trx, taskId) : undefined;
  if (!task) return notFound('Task');
  const moderation = task.moderation_status;
  if (moderation === 'PENDING') {
    // Still PENDING but no longer FUNDED or OFFERED: the agent cancelled it meanwhile.
    return conflict(`The task is ${task.status}, so there is nothing left to approve or reject`, {
      currentStatus: task.status,
      moderation: moderation,
    });
  }
  return conflict(
    moderation
      ? `The task was already ${moderation === 'APPROVED' ? 'approved' : 'rejected'} by review; reload the queue`
      : 'The task is not held for review; only tasks in GET /admin/moderation can be decided',
    { currentStatus: task.status, moderation },
  );
}

const operatorOf = (d: Decision) => clipText(d.operator?.trim() || DEFAULT_OPERATOR, OPERATOR_NAME_MAX);
const cleanNote = (note: string | undefined) =>
  note?.trim() ? clipText(note.trim(), MODERATION_NOTE_MAX) : null;
