import { findPendingSubmission } from '../../db/repositories/submissions.js';
import { listDueReminders, listDueReviews, takeDueReminder } from '../../db/repositories/tasks.js';
import type { DomainContext } from '../context.js';
import { recordEvent } from '../events/events.js';
import { autoReleaseTask } from '../tasks/completion.js';
import { inTransaction } from '../transaction.js';
import { notifyWorker } from '../workers/notifications.js';

const BATCH = 50;

/**
 * The deadline job's review work (issue 25), driven by task rows so any instance can run it and
 * a crash loses nothing: reviews whose window ended are completed for the agent (auto-release),
 * and agents with a quarter of the window left are reminded. Each task is its own transaction
 * with its own compare-and-set, so overlapping runs on several instances do each thing once,
 * and one task that fails does not stop the others (it is logged and tried on the next run).
 */
export async function runReviewWindow(ctx: DomainContext, onError: (taskId: string, error: unknown) => void) {
  const at = ctx.clock.now().toISOString();
  let done = 0;
  for (const { id } of await listDueReminders(ctx.db, at, BATCH)) {
    try {
      if (await remindAgent(ctx, id)) done++;
    } catch (error) {
      onError(id, error);
    }
  }
  for (const { id } of await listDueReviews(ctx.db, at, BATCH)) {
    try {
      if (await autoReleaseTask(ctx, id)) done++;
    } catch (error) {
      onError(id, error);
    }
  }
  return done;
}

/** task.review_reminder to the agent and a Telegram note to the worker, once per review. */
async function remindAgent(ctx: DomainContext, taskId: string): Promise<boolean> {
  return inTransaction(ctx.db, async (trx) => {
    const now = ctx.clock.now();
    const task = await takeDueReminder(trx, taskId, now.toISOString());
    if (!task?.review_deadline || !task.worker_id) return false;
    const submission = await findPendingSubmission(trx, taskId);
    // A review that stopped waiting (a dispute) has nothing to remind of; the marker is cleared.
    if (!submission) return false;
    await recordEvent(trx, {
      agentId: task.agent_id,
      taskId,
      type: 'task.review_reminder',
      data: { taskId, submissionId: submission.id, reviewDeadline: task.review_deadline },
      now,
    });
    await notifyWorker(trx, {
      workerId: task.worker_id,
      taskId,
      kind: 'review_reminder',
      data: { taskId, title: task.title, reviewDeadline: task.review_deadline },
      now,
    });
    return true;
  });
}
