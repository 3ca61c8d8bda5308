import { findAgent } from '../../db/repositories/agents.js';
import { decidePendingSubmission, findPendingSubmission } from '../../db/repositories/submissions.js';
import { findTask, moveTask } from '../../db/repositories/tasks.js';
import { findWorker } from '../../db/repositories/workers.js';
import { taskOwnerOf } from '../agents/testMode.js';
import type { DomainContext } from '../context.js';
import { heldByDispute, reviewWindowEnded } from '../disputes/disputeGuard.js';
import { conflict } from '../errors.js';
import type { TaskStatus } from '../tasks/states.js';
import { loadAgentTask } from '../tasks/taskAccess.js';
import { checkText } from '../tasks/taskCreation.js';
import { inTransaction } from '../transaction.js';
import { notifyWorker } from '../workers/notifications.js';
import { MAX_REVISIONS } from './submissions.js';

export const REVISION_REASON_MAX = 2000;
/** After a revision request the worker has at least this long before the execution deadline. */
const REVISION_MIN_TIME_MS = 24 * 3_600_000;

/**
 * POST /tasks/:id/revisions: the owner sends the waiting submission back with a reason. One
 * transaction: the task's compare-and-set REVIEW -> IN_PROGRESS (with fewer than 3 revisions so
 * far; the review clock stops, the execution deadline moves to at least 24 hours ahead), the
 * submission becomes REVISION_REQUESTED, and the worker is told the reason. The compare-and-set
 * on the task row is what a racing completion or auto-release also takes, so one of them wins.
 */
export async function requestRevision(ctx: DomainContext, agentId: string, taskId: string, reason: string) {
  const text = checkText('reason', reason, REVISION_REASON_MAX).trim();
  return inTransaction(ctx.db, async (trx) => {
    const current = await loadAgentTask(trx, agentId, taskId);
    const held = heldByDispute(current) ?? reviewWindowEnded(current, ctx.clock.now());
    if (held) throw held;
    // Refusals before anything is written (see sqliteDriver.ts); the compare-and-set still guards.
    if (current.revision_count >= MAX_REVISIONS) throw tooManyRevisions();
    if (current.partial_offer_nano !== null && current.status === 'REVIEW') throw offerWaits();
    if (current.status !== 'REVIEW' || !(await findPendingSubmission(trx, taskId))) {
      throw nothingWaiting(current.status as TaskStatus);
    }
    const now = ctx.clock.now();
    const at = now.toISOString();
    const earliest = new Date(now.getTime() + REVISION_MIN_TIME_MS).toISOString();
    const executionDeadline =
      current.execution_deadline && current.execution_deadline > earliest
        ? current.execution_deadline
        : earliest;
    const task = await moveTask(
      trx,
      taskId,
      'requestRevision',
      {
        review_deadline: null,
        review_reminder_at: null,
        execution_deadline: executionDeadline,
        updated_at: at,
      },
      // Not while the worker is answering an offer of part of the reward (graded approval).
      { revisionsBelow: MAX_REVISIONS, increment: 'revision_count', partialOffer: null },
    );
    if (!task) throw await revisionConflict(trx, taskId);
    const submission = await decidePendingSubmission(trx, taskId, 'REVISION_REQUESTED', at, text);
    // The task row is locked by now, and a submission waited when it was read: only a decision
    // committed in between (a dispute) leaves none, and then nothing of this is kept.
    if (!submission) throw nothingWaiting('REVIEW');
    if (task.worker_id) {
      await notifyWorker(trx, {
        workerId: task.worker_id,
        taskId,
        kind: 'revision_requested',
        data: {
          taskId,
          title: task.title,
          reason: text,
          executionDeadline,
          revisionsLeft: MAX_REVISIONS - task.revision_count,
        },
        now,
      });
    }
    const agent = await findAgent(trx, agentId);
    const worker = task.worker_id ? ((await findWorker(trx, task.worker_id)) ?? null) : null;
    return { task, submission, owner: taskOwnerOf(agent), worker };
  });
}

const tooManyRevisions = () =>
  conflict(
    `You asked for ${MAX_REVISIONS} revisions, the most allowed: complete the task (POST /tasks/:id/complete) or open a dispute (POST /tasks/:id/dispute)`,
    { maxRevisions: MAX_REVISIONS },
  );

function nothingWaiting(status: TaskStatus) {
  return conflict('No submission waits for your review, so there is nothing to revise', {
    currentStatus: status,
  });
}

function offerWaits() {
  return conflict(
    'You offered part of the reward for this work and the worker has until its review window ends to answer; pay the whole reward (POST /tasks/:id/complete) or wait for the answer',
    { currentStatus: 'REVIEW' },
  );
}

async function revisionConflict(trx: DomainContext['db'], taskId: string) {
  const task = await findTask(trx, taskId);
  if (task && task.revision_count >= MAX_REVISIONS) return tooManyRevisions();
  if (task?.partial_offer_nano !== null && task?.status === 'REVIEW') return offerWaits();
  return nothingWaiting((task?.status ?? 'CANCELLED') as TaskStatus);
}
