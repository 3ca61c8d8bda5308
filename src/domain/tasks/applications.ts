import {
  findApplication,
  findApplicationOf,
  insertApplication,
  listTaskApplications,
  rejectOtherPending,
  setApplicationStatus,
} from '../../db/repositories/applications.js';
import type { ApplicationRow, Executor, TaskRow, WorkerRow } from '../../db/repositories/executor.js';
import { findTask, lockTaskIn, moveTask } from '../../db/repositories/tasks.js';
import { findWorker } from '../../db/repositories/workers.js';
import { agentIsLive } from '../agents/testMode.js';
import type { DomainContext } from '../context.js';
import { decodePosition, page, positionCursor } from '../cursor.js';
import { accessDenied, assertInvariant, conflict, invalid, notFound } from '../errors.js';
import { recordEvent, workerRef } from '../events/events.js';
import { isIdOf, newId } from '../ids.js';
import { textLength } from '../text.js';
import { inTransaction, isUniqueViolation } from '../transaction.js';
import { notifyWorker } from '../workers/notifications.js';
import { openChat } from './assignment.js';
import { checkBatchPlace } from './batches.js';
import { batchFilledBy } from './batchFilled.js';
import { executionDeadlineFor, loadAgentTask } from './taskAccess.js';
import { heldFromWorkers } from './taskQueries.js';

export const APPLICATION_MESSAGE_MAX = 2000;

/** A worker applies to a FUNDED task; the agent hears application.received. */
export async function applyToTask(ctx: DomainContext, workerId: string, taskId: string, message: string) {
  const worker = await applicantFor(ctx, workerId, message);
  const task = isIdOf('task', taskId) ? await findTask(ctx.db, taskId) : undefined;
  // A task screening holds from workers answers as if it did not exist (workerTaskFor).
  if (!task || heldFromWorkers(task) || !(await agentIsLive(ctx.db, task.agent_id))) throw notFound('Task');
  try {
    return await inTransaction(ctx.db, async (trx) => {
      // A batch's places first (its row lock orders this worker's concurrent applications), then
      // the task, the order POST /batches/:id/cancel takes them in too.
      await checkBatchPlace(trx, task, workerId);
      if (!(await lockTaskIn(trx, taskId, ['FUNDED']))) {
        throw conflict('This task is not open for applications', {
          currentStatus: (await findTask(trx, taskId))?.status,
        });
      }
      if (await findApplicationOf(trx, taskId, workerId)) throw alreadyApplied();
      const application = await recordApplication(ctx, trx, task, worker, message);
      return { application, worker };
    });
  } catch (error) {
    // Two concurrent applications by one worker: the unique index lets one through.
    if (isUniqueViolation(error)) throw alreadyApplied();
    throw error;
  }
}

/** Checks an application's message and that the worker can be paid (a wallet) before anything. */
export async function applicantFor(
  ctx: DomainContext,
  workerId: string,
  message: string,
): Promise<WorkerRow> {
  if (textLength(message) > APPLICATION_MESSAGE_MAX) {
    throw invalid('message', `must be at most ${APPLICATION_MESSAGE_MAX} characters`);
  }
  const worker = await findWorker(ctx.db, workerId);
  assertInvariant(worker, 'a signed-in worker exists');
  if (!worker.wallet_address) {
    throw conflict('Connect a TON wallet (PUT /worker/me/wallet) before applying: rewards are paid to it');
  }
  return worker;
}

/** The PENDING application and its application.received event, in the caller's transaction. */
export async function recordApplication(
  ctx: DomainContext,
  trx: Executor,
  task: TaskRow,
  worker: WorkerRow,
  message: string,
): Promise<ApplicationRow> {
  const now = ctx.clock.now();
  const application: ApplicationRow = {
    id: newId('application', now.getTime()),
    task_id: task.id,
    worker_id: worker.id,
    status: 'PENDING',
    message,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  };
  await insertApplication(trx, application);
  await recordEvent(trx, {
    agentId: task.agent_id,
    taskId: task.id,
    type: 'application.received',
    data: { applicationId: application.id, taskId: task.id, applicant: workerRef(worker) },
    now,
  });
  return application;
}

export const alreadyApplied = () => conflict('You have already applied to this task');

export async function listApplications(
  ctx: DomainContext,
  agentId: string,
  taskId: string,
  query: { cursor?: string; limit: number },
) {
  await loadAgentTask(ctx.db, agentId, taskId);
  const rows = await listTaskApplications(ctx.db, taskId, decodePosition(query.cursor), query.limit + 1);
  return page(rows, query.limit, positionCursor);
}

/**
 * The agent accepts a PENDING application: the task moves FUNDED -> ASSIGNED (compare-and-set),
 * the worker's execution deadline starts, the chat opens, and every other pending application
 * is rejected, all in one transaction with their events.
 */
export async function acceptApplication(ctx: DomainContext, agentId: string, applicationId: string) {
  return inTransaction(ctx.db, async (trx) => {
    const application = isIdOf('application', applicationId)
      ? await findApplication(trx, applicationId)
      : undefined;
    if (!application) throw notFound('Application');
    const task = await findTask(trx, application.task_id);
    assertInvariant(task, 'an application belongs to a task');
    if (task.agent_id !== agentId) throw accessDenied();
    if (application.status !== 'PENDING') {
      throw conflict(`This application is ${application.status}; only PENDING applications can be accepted`, {
        currentStatus: application.status,
      });
    }
    const now = ctx.clock.now();
    const at = now.toISOString();
    const assigned = await moveTask(trx, task.id, 'acceptApplication', {
      worker_id: application.worker_id,
      assigned_at: at,
      execution_deadline: executionDeadlineFor(task, now),
      updated_at: at,
    });
    if (!assigned) {
      const current = (await findTask(trx, task.id))?.status;
      throw conflict(`The task is ${current}; applications can be accepted only while it is FUNDED`, {
        currentStatus: current,
      });
    }
    const accepted = await setApplicationStatus(trx, application.id, ['PENDING'], 'ACCEPTED', at);
    assertInvariant(accepted, 'a pending application of a task we just assigned is still pending');
    const worker = await findWorker(trx, application.worker_id);
    assertInvariant(worker, 'an applicant exists');
    const chat = await openChat(trx, assigned, worker.id, now);
    // The batch's last place just went: its waiting applicants hear that it is full.
    const full = await batchFilledBy(trx, assigned);
    for (const rejected of await rejectOtherPending(trx, task.id, application.id, at)) {
      const other = await findWorker(trx, rejected.worker_id);
      await recordEvent(trx, {
        agentId,
        taskId: task.id,
        type: 'application.rejected',
        data: {
          taskId: task.id,
          applicationId: rejected.id,
          worker: other ? workerRef(other) : { id: rejected.worker_id },
        },
        now,
      });
      await notifyWorker(trx, {
        workerId: rejected.worker_id,
        taskId: task.id,
        kind: full ? 'batch_full' : 'application_rejected',
        data: { taskId: task.id, title: task.title },
        now,
      });
    }
    await recordEvent(trx, {
      agentId,
      taskId: task.id,
      type: 'application.accepted',
      data: { taskId: task.id, applicationId: application.id, worker: workerRef(worker) },
      now,
    });
    await notifyWorker(trx, {
      workerId: worker.id,
      taskId: task.id,
      kind: 'application_accepted',
      data: { taskId: task.id, title: task.title, executionDeadline: assigned.execution_deadline },
      now,
    });
    return { application: accepted, worker, chat, task: assigned };
  });
}
