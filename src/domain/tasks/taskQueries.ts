import { findAgent } from '../../db/repositories/agents.js';
import {
  countApplicationsByTask,
  listTaskApplications,
  listWorkerApplications,
} from '../../db/repositories/applications.js';
import type { TaskRow } from '../../db/repositories/executor.js';
import { findWorkerRatingOfTask } from '../../db/repositories/ratings.js';
import { latestSubmission } from '../../db/repositories/submissions.js';
import {
  findTask,
  findTaskWithAgentName,
  listAgentTasks,
  listOpenTasks,
  listWorkerTasks,
  taskApplicantsFor,
} from '../../db/repositories/tasks.js';
import { findWorker, findWorkers } from '../../db/repositories/workers.js';
import { agentIsLive, taskOwnerOf } from '../agents/testMode.js';
import type { DomainContext } from '../context.js';
import { decodePosition, page, positionCursor } from '../cursor.js';
import { disputeOfTask } from '../disputes/disputeStatements.js';
import { accessDenied, notFound } from '../errors.js';
import { isIdOf } from '../ids.js';
import type { PaymentStatus, TaskStatus } from './states.js';

/** GET /tasks/:id shows the newest applications; the full list pages through /applications. */
export const TASK_DETAIL_APPLICATIONS = 100;

/**
 * One of the agent's tasks (404, or 403 when another agent's) with what its view shows: the
 * agent's name (read in the task's own statement), the offered or assigned worker and the newest
 * applications. GET /tasks/:id runs this on every read, so it takes two statements, three with
 * a worker.
 */
export async function getAgentTask(ctx: DomainContext, agentId: string, taskId: string) {
  const row = isIdOf('task', taskId) ? await findTaskWithAgentName(ctx.db, taskId) : undefined;
  if (!row) throw notFound('Task');
  if (row.agent_id !== agentId) throw accessDenied();
  // The row is the task (its extra agent_name is never shown: views pick their fields), not a
  // copy without it: copying the row's properties was 1.5% of GET /tasks/:id.
  const task: TaskRow = row;
  const applications = await listTaskApplications(ctx.db, taskId, null, TASK_DETAIL_APPLICATIONS);
  const worker = task.worker_id ? ((await findWorker(ctx.db, task.worker_id)) ?? null) : null;
  // Read only when there is one: most tasks never had a submission, and this runs on every read.
  const submission = task.submission_count > 0 ? ((await latestSubmission(ctx.db, taskId)) ?? null) : null;
  const dispute = await disputeOfTask(ctx.db, task);
  const owner = taskOwnerOf({ name: row.agent_name, livemode: row.agent_livemode });
  return { task, applications, owner, worker, submission, dispute };
}

/**
 * GET /worker/tasks/:id: a task the worker may see — open to applicants (FUNDED), offered to
 * them, or held by them now or before. Anything else answers 404, so workers cannot probe
 * other people's tasks.
 */
export async function workerTaskFor(ctx: DomainContext, workerId: string, taskId: string): Promise<TaskRow> {
  const task = isIdOf('task', taskId) ? await findTask(ctx.db, taskId) : undefined;
  if (!task || (task.status !== 'FUNDED' && task.worker_id !== workerId)) throw notFound('Task');
  // Held or rejected by screening: as if it did not exist (no worker ever held such a task).
  // A test task likewise: real people never see one (test mode).
  if (heldFromWorkers(task) || !(await agentIsLive(ctx.db, task.agent_id))) throw notFound('Task');
  return task;
}

/**
 * What GET /worker/tasks/:id adds for this worker: who applied (count and their own application)
 * and, on their own task, the rating they gave (so a rated task shows it instead of the form).
 */
export async function workerTaskFacts(ctx: DomainContext, workerId: string, taskId: string, own: boolean) {
  const applicants = await taskApplicantsFor(ctx.db, taskId, workerId);
  const rating = own ? ((await findWorkerRatingOfTask(ctx.db, taskId, workerId)) ?? null) : undefined;
  return { applicants, rating };
}

export async function listTasksOfAgent(
  ctx: DomainContext,
  agentId: string,
  query: {
    status?: TaskStatus;
    paymentStatus?: PaymentStatus;
    batchId?: string;
    cursor?: string;
    limit: number;
  },
) {
  const rows = await listAgentTasks(
    ctx.db,
    agentId,
    { status: query.status, paymentStatus: query.paymentStatus, batchId: query.batchId },
    decodePosition(query.cursor),
    query.limit + 1,
  );
  return page(rows, query.limit, positionCursor);
}

/** GET /worker/tasks: open tasks as this worker sees them (see listOpenTasks). */
export async function listTasksOpenToWorkers(
  ctx: DomainContext,
  workerId: string,
  query: { cursor?: string; limit: number },
) {
  const rows = await listOpenTasks(ctx.db, workerId, decodePosition(query.cursor), query.limit + 1);
  return page(rows, query.limit, positionCursor);
}

/** The names a task view shows: its agent's name and its offered or assigned worker. */
export async function taskParties(
  db: DomainContext['db'],
  task: { agent_id: string; worker_id: string | null },
) {
  const agent = await findAgent(db, task.agent_id);
  const worker = task.worker_id ? ((await findWorker(db, task.worker_id)) ?? null) : null;
  return { owner: taskOwnerOf(agent), worker };
}

/** `taskParties` for a page of one agent's tasks: one query for the agent, one for all the workers. */
export async function taskPartiesForPage(
  db: DomainContext['db'],
  agentId: string,
  tasks: { id: string; worker_id: string | null }[],
) {
  const agent = await findAgent(db, agentId);
  const ids = [...new Set(tasks.map((t) => t.worker_id).filter((id): id is string => id !== null))];
  const workers = new Map((await findWorkers(db, ids)).map((w) => [w.id, w]));
  const applications = await countApplicationsByTask(
    db,
    tasks.map((t) => t.id),
  );
  return {
    owner: taskOwnerOf(agent),
    workerOf: (id: string | null) => (id ? (workers.get(id) ?? null) : null),
    /** Applications of a task on this page: the console's tasks table shows the count. */
    applicationCountOf: (taskId: string) => applications.get(taskId) ?? 0,
  };
}

export async function listTasksOfWorker(
  ctx: DomainContext,
  workerId: string,
  query: { cursor?: string; limit: number },
) {
  const rows = await listWorkerTasks(ctx.db, workerId, decodePosition(query.cursor), query.limit + 1);
  return page(rows, query.limit, positionCursor);
}

export async function listApplicationsOfWorker(
  ctx: DomainContext,
  workerId: string,
  query: { cursor?: string; limit: number },
) {
  const rows = await listWorkerApplications(ctx.db, workerId, decodePosition(query.cursor), query.limit + 1);
  return page(rows, query.limit, positionCursor);
}

/** True while screening keeps the task from every worker (PENDING, or REJECTED). */
export const heldFromWorkers = (task: Pick<TaskRow, 'moderation_status'>) =>
  task.moderation_status === 'PENDING' || task.moderation_status === 'REJECTED';
