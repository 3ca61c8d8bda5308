import { findAgent } from '../../db/repositories/agents.js';
import {
  findDispute,
  listDisputeQueue,
  listStatements,
  listTaskMessagesNewest,
} from '../../db/repositories/disputes.js';
import type { DisputeRow, MessageRow } from '../../db/repositories/executor.js';
import { listTaskSubmissions } from '../../db/repositories/submissions.js';
import { findTask } from '../../db/repositories/tasks.js';
import { findWorker } from '../../db/repositories/workers.js';
import type { DomainContext } from '../context.js';
import { decodePosition, page, positionCursor } from '../cursor.js';
import { assertInvariant, notFound } from '../errors.js';
import { isIdOf } from '../ids.js';
import { MAX_REVISIONS } from '../trust/submissions.js';
import { ADMIN_CHAT_MESSAGES_MAX } from './disputeLimits.js';

/** Every submission of a task: the first and one per revision. */
const SUBMISSIONS_MAX = MAX_REVISIONS + 1;

/** GET /admin/disputes: disputes in `status`, oldest first (the queue an operator works through). */
export async function disputeQueue(
  ctx: DomainContext,
  query: { status: DisputeRow['status']; cursor?: string; limit: number },
) {
  const rows = await listDisputeQueue(ctx.db, query.status, decodePosition(query.cursor), query.limit + 1);
  return page(rows, query.limit, positionCursor);
}

/**
 * GET /admin/disputes/:id: everything an operator needs to judge: the dispute and its
 * statements, the task, both parties, and the task's chat (every assignment's, in order; the
 * newest ADMIN_CHAT_MESSAGES_MAX, with a flag when there were more).
 */
export async function disputeDetail(ctx: DomainContext, disputeId: string) {
  const dispute = isIdOf('dispute', disputeId) ? await findDispute(ctx.db, disputeId) : undefined;
  if (!dispute) throw notFound('Dispute');
  const task = await findTask(ctx.db, dispute.task_id);
  const agent = await findAgent(ctx.db, dispute.agent_id);
  const worker = await findWorker(ctx.db, dispute.worker_id);
  assertInvariant(task && agent && worker, `dispute ${dispute.id} has its task, agent and worker`);
  const statements = await listStatements(ctx.db, dispute.id);
  const submissions = await listTaskSubmissions(ctx.db, task.id, SUBMISSIONS_MAX);
  const newest = await listTaskMessagesNewest(ctx.db, task.id, ADMIN_CHAT_MESSAGES_MAX + 1);
  const messages: MessageRow[] = newest.slice(0, ADMIN_CHAT_MESSAGES_MAX).reverse();
  return {
    dispute,
    statements,
    task,
    agent,
    worker,
    submissions,
    messages,
    moreMessages: newest.length > ADMIN_CHAT_MESSAGES_MAX,
  };
}
