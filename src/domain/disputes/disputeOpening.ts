import { insertDispute, markSubmissionDisputed } from '../../db/repositories/disputes.js';
import type { DisputeRow, SubmissionRow, TaskRow } from '../../db/repositories/executor.js';
import { latestSubmission } from '../../db/repositories/submissions.js';
import { findTask, markTaskDisputed } from '../../db/repositories/tasks.js';
import type { Party } from '../chat/chat.js';
import type { DomainContext } from '../context.js';
import { conflict, invalid, notFound } from '../errors.js';
import { recordEvent } from '../events/events.js';
import { newId } from '../ids.js';
import { WORKING_STATUSES } from '../tasks/states.js';
import { isBlank, textLength } from '../text.js';
import { inTransaction } from '../transaction.js';
import { notifyWorker } from '../workers/notifications.js';
import { reviewWindowEnded } from './disputeGuard.js';
import { DISPUTE_REASON_MAX } from './disputeLimits.js';
import { disputeEventView } from './disputeResolution.js';
import { loadPartyTask, partyOf } from './disputeStatements.js';

/**
 * Who may dispute when (docs/decisions/disputes.md): the owner while a submission waits for
 * review or after it asked for a revision (the worker's answer to a revision it finds unfair
 * would otherwise be a fourth submission); the worker after a revision request (while its
 * work waits, the review clock already protects it), or while the agent's offer of part of the
 * reward waits for its answer (graded approval: the operator then decides the amount). The
 * submission judged is the task's latest.
 */
function mayDispute(party: Party, task: TaskRow, latest: SubmissionRow | undefined): boolean {
  if (!latest) return false;
  if (party.kind === 'worker')
    return (
      latest.status === 'REVISION_REQUESTED' ||
      (latest.status === 'PENDING' && task.partial_offer_nano !== null)
    );
  return latest.status === 'PENDING' || latest.status === 'REVISION_REQUESTED';
}

/**
 * POST /tasks/:id/dispute and POST /worker/tasks/:id/dispute. One transaction: the task's
 * compare-and-set (no dispute yet, still held by its worker; it also stops the review clock),
 * the submission's compare-and-set to DISPUTED, the dispute row, dispute.opened to the agent and
 * the worker's Telegram note. Funds stay escrowed: nothing moves until an operator resolves it.
 */
export async function openDispute(ctx: DomainContext, party: Party, taskId: string, reason: string) {
  const text = reason.trim();
  if (isBlank(text) || textLength(text) > DISPUTE_REASON_MAX) {
    throw invalid('reason', `must be 1 to ${DISPUTE_REASON_MAX} characters that are not all blank`);
  }
  return inTransaction(ctx.db, async (trx) => {
    const task = await loadPartyTask(trx, party, taskId);
    if (task.dispute_id) throw disputeExists(task);
    const ended = party.kind === 'agent' ? reviewWindowEnded(task, ctx.clock.now()) : null;
    if (ended) throw ended;
    if (!(WORKING_STATUSES as readonly string[]).includes(task.status))
      throw notDisputable(party, task, undefined);
    const latest = await latestSubmission(trx, taskId);
    if (!latest || !mayDispute(party, task, latest)) throw notDisputable(party, task, latest);
    const now = ctx.clock.now();
    const at = now.toISOString();
    const id = newId('dispute', now.getTime());
    const marked = await markTaskDisputed(trx, taskId, id, at);
    if (!marked) throw await lostRace(trx, taskId, party);
    if (!(await markSubmissionDisputed(trx, latest.id, latest.status, at))) {
      throw conflict(
        'The submission was decided meanwhile (approved or sent back for revision); read the task again',
        {
          currentStatus: marked.status,
        },
      );
    }
    const dispute: DisputeRow = {
      id,
      task_id: taskId,
      agent_id: marked.agent_id,
      worker_id: latest.worker_id,
      submission_id: latest.id,
      opened_by: partyOf(party),
      reason: text,
      status: 'OPEN',
      currency: marked.currency,
      worker_amount_nano: null,
      fee_amount_nano: null,
      agent_amount_nano: null,
      note: null,
      resolved_at: null,
      created_at: at,
      updated_at: at,
    };
    await insertDispute(trx, dispute);
    await recordEvent(trx, {
      agentId: marked.agent_id,
      taskId,
      type: 'dispute.opened',
      data: { taskId, dispute: disputeEventView(dispute) },
      now,
    });
    await notifyWorker(trx, {
      workerId: dispute.worker_id,
      taskId,
      kind: 'dispute_opened',
      data: { taskId, title: marked.title, openedBy: dispute.opened_by, reason: text },
      now,
    });
    return { dispute, task: marked };
  });
}

/** A task with a dispute: open (one at a time) or resolved (the task is then settled). */
export function disputeExists(task: Pick<TaskRow, 'dispute_id' | 'status'>) {
  const open = task.status !== 'COMPLETED' && task.status !== 'CANCELLED';
  return conflict(
    open
      ? 'A dispute is already open on this task: add your evidence with the dispute statements route; an operator resolves it'
      : 'This task’s dispute was resolved; the task is settled',
    { currentStatus: task.status, disputeId: task.dispute_id },
  );
}

function notDisputable(party: Party, task: TaskRow, latest: SubmissionRow | undefined) {
  const extra = { currentStatus: task.status, submissionStatus: latest?.status ?? null };
  if (task.status === 'COMPLETED' || task.status === 'CANCELLED') {
    return conflict('The task is settled (completed or cancelled): there is nothing left to dispute', extra);
  }
  return conflict(
    party.kind === 'agent'
      ? 'A dispute can be opened while a submission waits for your review, or after you asked for a revision'
      : 'A dispute can be opened after the agent asked for a revision of your submitted work, or offered only part of the reward for it',
    extra,
  );
}

async function lostRace(trx: DomainContext['db'], taskId: string, party: Party) {
  const task = await findTask(trx, taskId);
  if (!task) return notFound('Task');
  if (task.dispute_id) return disputeExists(task);
  return notDisputable(party, task, undefined);
}
