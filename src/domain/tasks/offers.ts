import { findTaskApplicationIn, setApplicationStatus } from '../../db/repositories/applications.js';
import { findTask, listOffersFor, moveTask } from '../../db/repositories/tasks.js';
import { findWorker } from '../../db/repositories/workers.js';
import type { DomainContext } from '../context.js';
import { decodePosition, page, positionCursor } from '../cursor.js';
import { assertInvariant, conflict, notFound } from '../errors.js';
import { recordEvent, workerRef } from '../events/events.js';
import { isIdOf } from '../ids.js';
import { inTransaction } from '../transaction.js';
import { openChat } from './assignment.js';
import { executionDeadlineFor } from './taskAccess.js';
import { heldFromWorkers } from './taskQueries.js';

export async function listOffers(
  ctx: DomainContext,
  workerId: string,
  query: { cursor?: string; limit: number },
) {
  const rows = await listOffersFor(ctx.db, workerId, decodePosition(query.cursor), query.limit + 1);
  return page(rows, query.limit, positionCursor);
}

/** The worker takes a direct offer: OFFERED -> ASSIGNED, the deadline starts, the chat opens. */
export async function acceptOffer(ctx: DomainContext, workerId: string, taskId: string) {
  return inTransaction(ctx.db, async (trx) => {
    const task = await offeredTask(trx, workerId, taskId);
    const now = ctx.clock.now();
    const at = now.toISOString();
    const assigned = await moveTask(
      trx,
      taskId,
      'acceptOffer',
      { assigned_at: at, execution_deadline: executionDeadlineFor(task, now), updated_at: at },
      { workerId },
    );
    if (!assigned) throw offerClosed((await findTask(trx, taskId))?.status);
    const application = await answerOffer(trx, taskId, 'ACCEPTED', at);
    const worker = await findWorker(trx, workerId);
    assertInvariant(worker, 'a signed-in worker exists');
    const chat = await openChat(trx, assigned, workerId, now);
    await recordEvent(trx, {
      agentId: task.agent_id,
      taskId,
      type: 'offer.accepted',
      data: { taskId, applicationId: application.id, worker: workerRef(worker) },
      now,
    });
    return { task: assigned, chat };
  });
}

/** The worker turns a direct offer down: OFFERED -> FUNDED, open to every applicant. */
export async function declineOffer(ctx: DomainContext, workerId: string, taskId: string) {
  return inTransaction(ctx.db, async (trx) => {
    const task = await offeredTask(trx, workerId, taskId);
    const now = ctx.clock.now();
    const at = now.toISOString();
    const reopened = await moveTask(
      trx,
      taskId,
      'declineOffer',
      { worker_id: null, updated_at: at },
      { workerId },
    );
    if (!reopened) throw offerClosed((await findTask(trx, taskId))?.status);
    const application = await answerOffer(trx, taskId, 'DECLINED', at);
    const worker = await findWorker(trx, workerId);
    assertInvariant(worker, 'a signed-in worker exists');
    await recordEvent(trx, {
      agentId: task.agent_id,
      taskId,
      type: 'offer.declined',
      data: { taskId, applicationId: application.id, worker: workerRef(worker) },
      now,
    });
    return { task: reopened };
  });
}

/** An offer is visible only to its worker: anyone else gets the same 404 as for no task. */
async function offeredTask(trx: DomainContext['db'], workerId: string, taskId: string) {
  const task = isIdOf('task', taskId) ? await findTask(trx, taskId) : undefined;
  if (!task || task.worker_id !== workerId || heldFromWorkers(task)) throw notFound('Offer');
  return task;
}

async function answerOffer(
  trx: DomainContext['db'],
  taskId: string,
  to: 'ACCEPTED' | 'DECLINED',
  at: string,
) {
  const offered = await findTaskApplicationIn(trx, taskId, ['OFFERED']);
  assertInvariant(offered, 'an offered task has its OFFERED application');
  const answered = await setApplicationStatus(trx, offered.id, ['OFFERED'], to, at);
  assertInvariant(answered, 'the offered application is still OFFERED inside the task lock');
  return answered;
}

function offerClosed(status: string | undefined) {
  return conflict(`This offer is no longer open: the task is ${status}`, { currentStatus: status });
}
