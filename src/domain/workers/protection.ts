import { findAgent } from '../../db/repositories/agents.js';
import { findTask } from '../../db/repositories/tasks.js';
import {
  countTaskReports,
  deleteBlock,
  holdReportedTask,
  insertBlock,
  insertTaskReport,
  listBlocks,
} from '../../db/repositories/workerProtection.js';
import type { DomainContext } from '../context.js';
import { notFound } from '../errors.js';
import { isIdOf, newId } from '../ids.js';
import { clipText } from '../text.js';
import { inTransaction } from '../transaction.js';
import { logModeration } from '../trust/moderation.js';

/**
 * Workers protect themselves (issue 39, docs/decisions/screening.md): they report a task, and
 * block an agent whose tasks and offers then never reach them. A task reported by
 * REPORTS_TO_HOLD different workers is hidden and waits in the operators' moderation queue.
 */

import type { ReportReason } from '../../shared/reportReasons.js';

export { REPORT_REASONS, type ReportReason } from '../../shared/reportReasons.js';
export const REPORT_NOTE_MAX = 1000;
/** The moderation rule a task held by workers' reports carries. */
export const REPORTS_RULE = 'worker-reports';
const DEFAULT_REPORTS_TO_HOLD = 3;

export interface ReportOutcome {
  reportId: string | null;
  /** false when this worker had reported the task before (nothing new was written). */
  counted: boolean;
  /** true when this report was the one that held the task for an operator. */
  held: boolean;
}

/** POST /worker/tasks/:id/report: the task must be one the worker can see (else 404). */
export async function reportTask(
  ctx: DomainContext,
  workerId: string,
  taskId: string,
  input: { reason: ReportReason; note?: string },
): Promise<ReportOutcome> {
  const now = ctx.clock.now();
  const at = now.toISOString();
  const note = input.note?.trim() ? clipText(input.note.trim(), REPORT_NOTE_MAX) : null;
  const threshold = ctx.screening?.reportsToHold ?? DEFAULT_REPORTS_TO_HOLD;
  return inTransaction(ctx.db, async (trx) => {
    const task = isIdOf('task', taskId) ? await findTask(trx, taskId) : undefined;
    const visible =
      task &&
      (task.worker_id === workerId ||
        (task.moderation_status !== 'PENDING' && task.moderation_status !== 'REJECTED'));
    if (!task || !visible) throw notFound('Task');
    const id = newId('taskReport', now.getTime());
    const counted = await insertTaskReport(trx, {
      id,
      task_id: taskId,
      worker_id: workerId,
      reason: input.reason,
      note,
      created_at: at,
    });
    if (!counted) return { reportId: null, counted, held: false };
    // Counted after this worker's insert: on PostgreSQL two concurrent reports each may count
    // the other or not, but the hold is a compare-and-set, so the task is held once either way.
    const reporters = await countTaskReports(trx, taskId);
    let held = false;
    if (reporters >= threshold) {
      held = (await holdReportedTask(trx, taskId, REPORTS_RULE, at)) !== undefined;
      if (held) {
        await logModeration(trx, {
          agentId: task.agent_id,
          taskId,
          action: 'held',
          rule: REPORTS_RULE,
          note: `reported by ${reporters} workers`,
          now,
        });
      }
    }
    return { reportId: id, counted, held };
  });
}

/** POST /worker/agents/:agentId/block: idempotent; an unknown agent is 404. */
export async function blockAgent(ctx: DomainContext, workerId: string, agentId: string) {
  const agent = isIdOf('agent', agentId) ? await findAgent(ctx.db, agentId) : undefined;
  if (!agent) throw notFound('Agent');
  await insertBlock(ctx.db, workerId, agentId, ctx.clock.now().toISOString());
  return { agentId, blocked: true };
}

/** DELETE /worker/agents/:agentId/block: idempotent. */
export async function unblockAgent(ctx: DomainContext, workerId: string, agentId: string) {
  const agent = isIdOf('agent', agentId) ? await findAgent(ctx.db, agentId) : undefined;
  if (!agent) throw notFound('Agent');
  await deleteBlock(ctx.db, workerId, agentId);
  return { agentId, blocked: false };
}

/** At most this many blocked agents are listed: a worker blocks a few, not hundreds. */
export const BLOCKED_LIST_MAX = 200;

/** GET /worker/agents/blocked: whom this worker blocked, newest first, so they can unblock. */
export async function listBlockedAgents(ctx: DomainContext, workerId: string) {
  const rows = await listBlocks(ctx.db, workerId, BLOCKED_LIST_MAX);
  return {
    agents: rows.map((r) => ({ agentId: r.agent_id, name: r.name, blockedAt: r.created_at })),
  };
}
