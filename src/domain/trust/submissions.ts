import type { SubmissionRow, TaskRow } from '../../db/repositories/executor.js';
import {
  findPendingSubmission,
  insertSubmission,
  listTaskSubmissions,
} from '../../db/repositories/submissions.js';
import { findTask, moveTask } from '../../db/repositories/tasks.js';
import { storedFile } from '../chat/chat.js';
import type { DomainContext } from '../context.js';
import { heldByDispute } from '../disputes/disputeGuard.js';
import { conflict, invalid } from '../errors.js';
import { recordEvent } from '../events/events.js';
import { newId } from '../ids.js';
import type { TaskStatus } from '../tasks/states.js';
import { loadAgentTask, loadWorkerTask } from '../tasks/taskAccess.js';
import { checkText, reviewHoursOf } from '../tasks/taskCreation.js';
import { inTransaction } from '../transaction.js';
import { notifyWorker } from '../workers/notifications.js';
import { checkPoint, type PointInput, taskLocationOf, withinArea } from './location.js';

export const NOTE_MAX = 4000;
export const MAX_ATTACHMENTS = 10;
/** A task has at most 1 + MAX_REVISIONS submissions; lists show them all. */
export const MAX_REVISIONS = 3;
const LIST_MAX = MAX_REVISIONS + 1;
const HOUR_MS = 3_600_000;

export interface SubmissionInput {
  note: string;
  attachments?: string[];
  location?: PointInput;
}

export interface Attachment {
  fileUrl: string;
  name: string;
  contentType: string;
  size: number;
}

/** When the review of a submission made at `now` ends, and when the agent is reminded of it. */
export function reviewClock(task: Pick<TaskRow, 'review_hours'>, now: Date) {
  const windowMs = reviewHoursOf(task) * HOUR_MS;
  return {
    deadline: new Date(now.getTime() + windowMs).toISOString(),
    // A quarter of the window left (docs/decisions/submissions-and-reviews.md).
    reminderAt: new Date(now.getTime() + windowMs - windowMs / 4).toISOString(),
  };
}

/**
 * POST /worker/tasks/:id/submissions: the assigned worker hands in work while the task is
 * ASSIGNED or IN_PROGRESS. One transaction: the compare-and-set to REVIEW (which also counts the
 * submission on the task row, so a racing refund sees it), the submission row, the review clock,
 * task.submitted to the agent and a Telegram note to the worker. Attachments are checked before
 * anything is written: each must be a stored upload of this worker.
 */
export async function submitWork(
  ctx: DomainContext,
  workerId: string,
  taskId: string,
  input: SubmissionInput,
) {
  const note = checkText('note', input.note, NOTE_MAX);
  const attachments = await checkAttachments(ctx, workerId, input.attachments ?? []);
  const point = input.location === undefined ? null : checkPoint(input.location);
  return inTransaction(ctx.db, async (trx) => {
    const current = await loadWorkerTask(trx, workerId, taskId);
    if (current.status === 'REVIEW' && (await findPendingSubmission(trx, taskId))) throw alreadyWaiting();
    const now = ctx.clock.now();
    const at = now.toISOString();
    const clock = reviewClock(current, now);
    const task = await moveTask(
      trx,
      taskId,
      'submit',
      {
        review_deadline: clock.deadline,
        review_reminder_at: clock.reminderAt,
        updated_at: at,
      },
      { workerId, increment: 'submission_count' },
    );
    if (!task) throw await submitConflict(trx, taskId);
    const area = taskLocationOf(task);
    const row: SubmissionRow = {
      id: newId('submission', now.getTime()),
      task_id: taskId,
      worker_id: workerId,
      number: task.submission_count,
      note,
      attachments_json: JSON.stringify(attachments),
      latitude: point?.latitude ?? null,
      longitude: point?.longitude ?? null,
      accuracy_meters: point?.accuracyMeters ?? null,
      within_area: area && point ? (withinArea(area, point) ? 1 : 0) : null,
      status: 'PENDING',
      revision_reason: null,
      decided_at: null,
      created_at: at,
      updated_at: at,
    };
    await insertSubmission(trx, row);
    await recordEvent(trx, {
      agentId: task.agent_id,
      taskId,
      type: 'task.submitted',
      data: { taskId, reviewDeadline: task.review_deadline, submission: submissionView(row) },
      now,
    });
    await notifyWorker(trx, {
      workerId,
      taskId,
      kind: 'submission_received',
      data: { taskId, title: task.title, reviewDeadline: task.review_deadline },
      now,
    });
    return { submission: row, task };
  });
}

/**
 * The submission counter is read before the compare-and-set and written by it: a concurrent
 * submission changes the status to REVIEW first, so the loser's compare-and-set finds nothing
 * (and the unique (task_id, number) would refuse a duplicate number anyway).
 */
async function submitConflict(trx: DomainContext['db'], taskId: string) {
  const task = await findTask(trx, taskId);
  const held = heldByDispute(task);
  if (held) return held;
  const status = (task?.status ?? 'CANCELLED') as TaskStatus;
  if (status === 'REVIEW' && (await findPendingSubmission(trx, taskId))) return alreadyWaiting();
  if (status === 'REVIEW') {
    return conflict(
      'The task is in REVIEW without a submission (moved there with PATCH); move it back to IN_PROGRESS with PATCH /worker/tasks/:id, then submit',
      { currentStatus: status },
    );
  }
  return conflict('Work can be submitted only while the task is ASSIGNED or IN_PROGRESS', {
    currentStatus: status,
  });
}

const alreadyWaiting = () =>
  conflict(
    'A submission of this task already waits for the agent’s review; wait for its approval or a revision request',
    { currentStatus: 'REVIEW' },
  );

async function checkAttachments(ctx: DomainContext, workerId: string, urls: string[]): Promise<Attachment[]> {
  if (urls.length > MAX_ATTACHMENTS) {
    throw invalid('attachments', `must list at most ${MAX_ATTACHMENTS} files`);
  }
  if (new Set(urls).size !== urls.length) throw invalid('attachments', 'must not list a file twice');
  const files: Attachment[] = [];
  for (const [i, url] of urls.entries()) {
    const file = await storedFile(ctx, { kind: 'worker', id: workerId }, url, `attachments/${i}`);
    files.push({ fileUrl: file.url, name: file.name, contentType: file.mimeType, size: file.size });
  }
  return files;
}

/** A submission as both sides see it. */
export function submissionView(row: SubmissionRow) {
  let attachments: Attachment[] = [];
  try {
    attachments = JSON.parse(row.attachments_json) as Attachment[];
  } catch {
    attachments = [];
  }
  return {
    id: row.id,
    number: row.number,
    note: row.note,
    attachments,
    location:
      row.latitude === null || row.longitude === null
        ? null
        : {
            latitude: row.latitude,
            longitude: row.longitude,
            accuracyMeters: row.accuracy_meters,
            withinArea: row.within_area === null ? null : row.within_area === 1,
          },
    createdAt: row.created_at,
    status: row.status,
    revisionReason: row.revision_reason,
  };
}
export type SubmissionView = ReturnType<typeof submissionView>;

/** GET /tasks/:id/submissions: the owner's view, newest first. */
export async function listSubmissionsForAgent(ctx: DomainContext, agentId: string, taskId: string) {
  await loadAgentTask(ctx.db, agentId, taskId);
  return listTaskSubmissions(ctx.db, taskId, LIST_MAX);
}

/** GET /worker/tasks/:id/submissions: the assigned worker's view, newest first. */
export async function listSubmissionsForWorker(ctx: DomainContext, workerId: string, taskId: string) {
  await loadWorkerTask(ctx.db, workerId, taskId);
  return listTaskSubmissions(ctx.db, taskId, LIST_MAX);
}
