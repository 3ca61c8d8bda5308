import { listTaskApplications } from '../db/repositories/applications.js';
import { listAgentTasks, listOpenTasks } from '../db/repositories/tasks.js';
import type { DomainContext } from './context.js';
import { decodePosition, page, positionCursor } from './cursor.js';
import type { TaskStatus } from './states.js';
import { loadAgentTask } from './taskAccess.js';

/** GET /tasks/:id shows the newest applications; the full list pages through /applications. */
export const TASK_DETAIL_APPLICATIONS = 100;

export async function getAgentTask(ctx: DomainContext, agentId: string, taskId: string) {
  const task = await loadAgentTask(ctx.db, agentId, taskId);
  const applications = await listTaskApplications(ctx.db, taskId, null, TASK_DETAIL_APPLICATIONS);
  return { task, applications };
}

export async function listTasksOfAgent(
  ctx: DomainContext,
  agentId: string,
  query: { status?: TaskStatus; paymentStatus?: string; cursor?: string; limit: number },
) {
  const rows = await listAgentTasks(
    ctx.db,
    agentId,
    { status: query.status, paymentStatus: query.paymentStatus },
    decodePosition(query.cursor),
    query.limit + 1,
  );
  return page(rows, query.limit, positionCursor);
}

export async function listTasksOpenToWorkers(ctx: DomainContext, query: { cursor?: string; limit: number }) {
  const rows = await listOpenTasks(ctx.db, decodePosition(query.cursor), query.limit + 1);
  return page(rows, query.limit, positionCursor);
}
