import { findAgent } from '../../db/repositories/agents.js';
import { findAgentKey } from '../../db/repositories/apiKeys.js';
import {
  decideApproval,
  findApproval,
  insertApproval,
  listAgentApprovals,
  listDueApprovals,
  listOwnerClosedApprovals,
  listOwnerPendingApprovals,
} from '../../db/repositories/approvals.js';
import { balanceOf } from '../../db/repositories/balances.js';
import type { ApprovalRow, Executor, TaskRow } from '../../db/repositories/executor.js';
import { findKeySpend } from '../../db/repositories/keySpend.js';
import type { ApprovalStatus } from '../../db/schema.js';
import type { DomainContext } from '../context.js';
import { decodePosition, page, positionCursor } from '../cursor.js';
import { accessDenied, conflict, DomainError, type DomainErrorKind, invalid, notFound } from '../errors.js';
import { recordEvent } from '../events/events.js';
import { checkWebhookTarget } from '../events/webhookUrl.js';
import { isIdOf, newId } from '../ids.js';
import { amountText, formatAmount } from '../money/currency.js';
import { taskCost } from '../money/money.js';
import { type CreatedTask, type CreateTaskInput, checkTaskInput, createTask } from '../tasks/taskCreation.js';
import { inTransaction } from '../transaction.js';
import { screenNewTask } from '../trust/moderation.js';
import { refuseIfFrozen } from './agentFreeze.js';
import { checkName } from './agents.js';
import { checkSpend } from './keyPolicies.js';

/**
 * Approvals (issue 38, docs/decisions/approvals.md): a task posted with a key whose spend policy
 * has `approvalAbove` below the task's total is not escrowed but waits for the agent's owner.
 * Approving creates and escrows it then, exactly as if posted at that moment (balance, limits,
 * freeze, screening), in one transaction with the approval's compare-and-set; declining or
 * expiry escrows nothing. Every move out of PENDING is one compare-and-set (decideApproval), so
 * two approves, or an approve and the expiry, create at most one task.
 */
export const APPROVAL_TTL_MS_DEFAULT = 24 * 3_600_000;
/** Pending approvals the console's queue shows at once (oldest first). */
export const QUEUE_LIMIT = 100;
/** Closed approvals the console shows as recent history (most recently closed first). */
export const RECENT_LIMIT = 20;
/** Approvals the expiry job takes per round. */
const EXPIRY_BATCH = 50;

/**
 * What POST /tasks made. Each is exactly what its one transaction returns, because an
 * Idempotency-Key's stored answer is made from that (idempotency.ts's bindInTransaction).
 */
export type PostedTask = CreatedTask | { approval: ApprovalRow };

export function isApproval(posted: PostedTask): posted is { approval: ApprovalRow } {
  return 'approval' in posted;
}

/**
 * POST /tasks: the task created and escrowed, or, above the key's approvalAbove, an approval
 * waiting for the owner. Without a key (the owner in the console) there is nothing to approve.
 */
export async function postTask(
  ctx: DomainContext,
  agentId: string,
  input: CreateTaskInput,
  keyId: string | null,
): Promise<PostedTask> {
  if (keyId) {
    const now = ctx.clock.now();
    const fields = checkTaskInput(ctx, input, now);
    const cost = taskCost(fields.rewardNano);
    const limits = await findKeySpend(ctx.db, keyId, fields.currency);
    const above = limits?.approval_above_nano ?? null;
    if (above !== null && cost.totalNano > above) {
      return requestApproval(ctx, agentId, keyId, input, now);
    }
  }
  return createTask(ctx, agentId, input, keyId);
}

/**
 * The approval of a task above approvalAbove. Everything that would refuse the task now refuses
 * it now (400, the other limits' 403, 402), so the owner is asked only about a task that could be
 * created; nothing is escrowed or counted until it is approved.
 */
async function requestApproval(
  ctx: DomainContext,
  agentId: string,
  keyId: string,
  input: CreateTaskInput,
  now: Date,
): Promise<{ approval: ApprovalRow }> {
  const fields = checkTaskInput(ctx, input, now);
  const currency = fields.currency;
  const cost = taskCost(fields.rewardNano);
  if (fields.webhookUrl) await checkWebhookTarget('webhookUrl', fields.webhookUrl, ctx.webhooks);
  // A task the policy refuses is refused now rather than put before the owner.
  await screenNewTask(ctx, agentId, {
    title: fields.title,
    description: fields.description,
    label: fields.location?.label,
  });
  const at = now.toISOString();
  return inTransaction(ctx.db, async (trx) => {
    const agent = await findAgent(trx, agentId);
    if (!agent) throw notFound('Agent');
    if (!agent.name) {
      if (input.agentName === undefined) {
        throw invalid('agentName', 'is required on your first task: it becomes your display name');
      }
      checkName('agentName', input.agentName);
    }
    await refuseIfFrozen(trx, agentId);
    await checkSpend(trx, keyId, currency, cost.totalNano, now, { approved: true });
    const balance = balanceOf(agent, currency).balance;
    if (balance < cost.totalNano) {
      const text = (units: bigint) => amountText(currency, units);
      throw new DomainError('payment_required', 'Insufficient balance', {
        currentBalance: formatAmount(currency, balance),
        requiredAmount: formatAmount(currency, cost.totalNano),
        currency,
        message: `This task costs ${text(cost.totalNano)} and needs the owner's approval, but your ${currency} balance is ${text(balance)}, so it was not put to the owner. Top up your ${currency} balance and try again.`,
      });
    }
    const row: ApprovalRow = {
      id: newId('approval', now.getTime()),
      agent_id: agentId,
      api_key_id: keyId,
      currency,
      amount_nano: cost.totalNano,
      body_json: JSON.stringify(input),
      status: 'PENDING',
      task_id: null,
      failure: null,
      failure_status: null,
      created_at: at,
      expires_at: new Date(now.getTime() + (ctx.approvalTtlMs ?? APPROVAL_TTL_MS_DEFAULT)).toISOString(),
      decided_at: null,
      updated_at: at,
    };
    await insertApproval(trx, row);
    return { approval: row };
  });
}

/** The task body an approval holds, as posted. */
export function approvalBody(row: ApprovalRow): CreateTaskInput {
  return JSON.parse(row.body_json) as CreateTaskInput;
}

/** GET /approvals/:id: 404 when there is none, 403 when it is another agent's. */
export async function getAgentApproval(ctx: DomainContext, agentId: string, id: string) {
  const row = isIdOf('approval', id) ? await findApproval(ctx.db, id) : undefined;
  if (!row) throw notFound('Approval');
  if (row.agent_id !== agentId) throw accessDenied();
  return row;
}

/** GET /approvals: the agent's approvals, newest first, optionally of one status. */
export async function listApprovalsOfAgent(
  ctx: DomainContext,
  agentId: string,
  query: { status?: ApprovalStatus; cursor?: string; limit: number },
) {
  const rows = await listAgentApprovals(
    ctx.db,
    agentId,
    query.status,
    decodePosition(query.cursor),
    query.limit + 1,
  );
  return page(rows, query.limit, positionCursor);
}

/**
 * The console's approvals: the queue (pending ones of the owner's agents whose time is not up,
 * oldest first) and the recent history (closed ones, most recently closed first). A pending one
 * whose time is up reads EXPIRED, as the expiry job will make it and as approving it answers.
 * `now` is the server's time the page measures "expires in" against (a browser's clock may differ).
 */
export async function approvalsOfOwner(ctx: DomainContext, ownerId: string) {
  const now = ctx.clock.now().toISOString();
  const [pending, closed] = await Promise.all([
    listOwnerPendingApprovals(ctx.db, ownerId, now, QUEUE_LIMIT),
    listOwnerClosedApprovals(ctx.db, ownerId, now, RECENT_LIMIT),
  ]);
  const recent = closed.map((row) =>
    row.status === 'PENDING' ? { ...row, status: 'EXPIRED' as const } : row,
  );
  return { pending, recent, now };
}

/** The owner's approval, or 404 (another owner's answers like one that does not exist). */
async function requireOwnerApproval(db: Executor, ownerId: string, id: string): Promise<ApprovalRow> {
  const row = isIdOf('approval', id) ? await findApproval(db, id) : undefined;
  const agent = row ? await findAgent(db, row.agent_id) : undefined;
  if (!row || !agent || agent.owner_id !== ownerId) throw notFound('Approval');
  return row;
}

/** Marks the 409 of an approval that was no longer pending, so approve tells it from a task's refusal. */
const CLOSED = Symbol('approval closed');

/** 409: the approval was already decided, or its time ran out. */
function closedError(row: ApprovalRow, now: Date): DomainError {
  const status = row.status === 'PENDING' && row.expires_at <= now.toISOString() ? 'EXPIRED' : row.status;
  const what =
    status === 'APPROVED'
      ? `was already approved (task ${row.task_id})`
      : status === 'EXPIRED'
        ? `expired at ${row.expires_at}, unanswered`
        : status === 'DECLINED'
          ? 'was already declined'
          : 'was already approved, but the task could not be created then';
  const error = conflict(`This approval ${what}; nothing more can be decided on it.`, { status });
  Object.defineProperty(error, CLOSED, { value: true });
  return error;
}

/** The HTTP status each kind of refusal answers with, recorded on a FAILED approval. */
const FAILURE_STATUS: Partial<Record<DomainErrorKind, number>> = {
  validation: 400,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payment_required: 402,
  rate_limited: 429,
};

/**
 * The owner approves: the task is created and escrowed now, in one transaction with the
 * approval's move to APPROVED and approval.approved. If the task cannot be created now (the
 * balance no longer covers it, a limit, a freeze, screening), the approval becomes FAILED with
 * that refusal's sentence and status, and approval.failed tells the agent; nothing is escrowed.
 * 409 when it is no longer pending.
 */
export async function approveApproval(ctx: DomainContext, ownerId: string, id: string): Promise<ApprovalRow> {
  const row = await requireOwnerApproval(ctx.db, ownerId, id);
  const now = ctx.clock.now();
  if (row.status !== 'PENDING' || row.expires_at <= now.toISOString()) throw closedError(row, now);
  const key = await findAgentKey(ctx.db, row.agent_id, row.api_key_id);
  if (!key || key.revoked_at) {
    // A revoked key's requests are not the owner's to grant any more (issue 38).
    return decline(ctx, row, 'The API key that posted this task was revoked, so it was declined.');
  }
  let decided: ApprovalRow | undefined;
  try {
    await createTask(ctx, row.agent_id, approvalBody(row), row.api_key_id, {
      async check(trx, at) {
        const fresh = await findApproval(trx, row.id);
        if (fresh?.status !== 'PENDING' || fresh.expires_at <= at.toISOString()) {
          throw closedError(fresh ?? row, at);
        }
      },
      async record(trx, task: TaskRow, at) {
        decided = await decideApproval(
          trx,
          row.id,
          { status: 'APPROVED', taskId: task.id },
          at.toISOString(),
        );
        // Another approve (or the expiry) won between the check and here: this one writes nothing.
        if (!decided) throw closedError((await findApproval(trx, row.id)) ?? row, at);
        await recordEvent(trx, {
          agentId: row.agent_id,
          taskId: task.id,
          type: 'approval.approved',
          data: { approvalId: row.id, taskId: task.id },
          now: at,
        });
      },
    });
  } catch (error) {
    if (!(error instanceof DomainError) || CLOSED in error) throw error;
    return fail(ctx, row, error);
  }
  return decided!;
}

async function fail(ctx: DomainContext, row: ApprovalRow, error: DomainError): Promise<ApprovalRow> {
  const now = ctx.clock.now();
  const message =
    typeof error.extra.message === 'string' ? `${error.message}: ${error.extra.message}` : error.message;
  const status = FAILURE_STATUS[error.kind] ?? 400;
  return inTransaction(ctx.db, async (trx) => {
    const failed = await decideApproval(
      trx,
      row.id,
      { status: 'FAILED', failure: { message, status } },
      now.toISOString(),
    );
    if (!failed) throw closedError((await findApproval(trx, row.id)) ?? row, now);
    await recordEvent(trx, {
      agentId: row.agent_id,
      taskId: null,
      type: 'approval.failed',
      data: { approvalId: row.id, status, error: message },
      now,
    });
    return failed;
  });
}

/** The owner declines: nothing is escrowed; approval.declined. 409 when it is no longer pending. */
export async function declineApproval(ctx: DomainContext, ownerId: string, id: string): Promise<ApprovalRow> {
  const row = await requireOwnerApproval(ctx.db, ownerId, id);
  return decline(ctx, row, null);
}

async function decline(ctx: DomainContext, row: ApprovalRow, reason: string | null): Promise<ApprovalRow> {
  const now = ctx.clock.now();
  return inTransaction(ctx.db, async (trx) => {
    const declined = await decideApproval(
      trx,
      row.id,
      { status: 'DECLINED', ...(reason ? { failure: { message: reason, status: 403 } } : {}) },
      now.toISOString(),
    );
    if (!declined) throw closedError((await findApproval(trx, row.id)) ?? row, now);
    await recordEvent(trx, {
      agentId: row.agent_id,
      taskId: null,
      type: 'approval.declined',
      data: { approvalId: row.id, ...(reason ? { reason } : {}) },
      now,
    });
    return declined;
  });
}

/**
 * The expiry job: pending approvals whose time is up become EXPIRED (approval.expired), each in
 * its own transaction and compare-and-set, so several instances may run it and an approve racing
 * it wins or loses whole. A row that fails is reported and skipped: the others still expire.
 */
export async function expireApprovals(
  ctx: DomainContext,
  onError: (approvalId: string, error: unknown) => void = () => {},
): Promise<number> {
  const due = await listDueApprovals(ctx.db, ctx.clock.now().toISOString(), EXPIRY_BATCH);
  let expired = 0;
  for (const { id } of due) {
    try {
      const done = await inTransaction(ctx.db, async (trx) => {
        const now = ctx.clock.now();
        const row = await decideApproval(trx, id, { status: 'EXPIRED' }, now.toISOString());
        if (!row) return false;
        await recordEvent(trx, {
          agentId: row.agent_id,
          taskId: null,
          type: 'approval.expired',
          data: { approvalId: id, expiresAt: row.expires_at },
          now,
        });
        return true;
      });
      if (done) expired++;
    } catch (error) {
      onError(id, error);
    }
  }
  return expired;
}
