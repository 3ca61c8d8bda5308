import { deleteAgentFreeze, findAgentFreeze, insertAgentFreeze } from '../../db/repositories/agentFreezes.js';
import { findAgent } from '../../db/repositories/agents.js';
import type { Executor } from '../../db/repositories/executor.js';
import type { DomainContext } from '../context.js';
import { DomainError, invalid, notFound } from '../errors.js';
import { clipText, textLength } from '../text.js';
import { inTransaction } from '../transaction.js';

/**
 * An operator's freeze of an agent (issue 38; docs/decisions/owner-spend-policy.md): while frozen,
 * every spend of the agent (an escrow: creating a task, by any key or by its owner) is refused
 * with 403. Nothing else changes: open tasks keep their escrow and their course, workers are still
 * paid for their work (completion, the review clock, disputes), refunds still return money. This
 * file is the one place that knows about freezes, so that other rules (safety, issue 39) can
 * freeze through it too.
 */
export const MAX_FREEZE_REASON = 500;

export interface FreezeState {
  frozen: boolean;
  reason: string | null;
  frozenAt: string | null;
}

export async function freezeState(db: Executor, agentId: string): Promise<FreezeState> {
  const row = await findAgentFreeze(db, agentId);
  return { frozen: row !== undefined, reason: row?.reason ?? null, frozenAt: row?.frozen_at ?? null };
}

/** Freezes an agent; freezing a frozen agent keeps the first freeze (its time and reason). */
export async function freezeAgent(
  ctx: DomainContext,
  agentId: string,
  input: { reason?: string | null },
): Promise<FreezeState> {
  const reason = input.reason == null ? null : input.reason.trim();
  if (reason !== null && textLength(reason) > MAX_FREEZE_REASON) {
    throw invalid('reason', `must be at most ${MAX_FREEZE_REASON} characters`);
  }
  const now = ctx.clock.now().toISOString();
  return inTransaction(ctx.db, async (trx) => {
    if (!(await findAgent(trx, agentId))) throw notFound('Agent');
    await insertAgentFreeze(trx, { agent_id: agentId, reason: reason || null, frozen_at: now });
    return freezeState(trx, agentId);
  });
}

export async function unfreezeAgent(ctx: DomainContext, agentId: string): Promise<FreezeState> {
  if (!(await findAgent(ctx.db, agentId))) throw notFound('Agent');
  await deleteAgentFreeze(ctx.db, agentId);
  return { frozen: false, reason: null, frozenAt: null };
}

/**
 * Freezes the agent in the caller's transaction when screening counted too many refusals or
 * rejections in a day (issue 39, moderation.ts); true when this call froze it (an agent already
 * frozen keeps its first freeze).
 */
export function freezeForStrikes(db: Executor, agentId: string, reason: string, now: Date): Promise<boolean> {
  return insertAgentFreeze(db, { agent_id: agentId, reason, frozen_at: now.toISOString() });
}

/**
 * Refuses a spend of a frozen agent, in the spend's own transaction: a freeze committed before the
 * spend's read is seen, and one committed after it comes after the spend, as if it had been first.
 */
export async function refuseIfFrozen(trx: Executor, agentId: string): Promise<void> {
  const row = await findAgentFreeze(trx, agentId);
  if (!row) return;
  const why = row.reason ? ` (${clipText(row.reason, 200)})` : '';
  throw new DomainError(
    'forbidden',
    `This agent is frozen by the operator${why} since ${row.frozen_at}: it cannot spend (no new tasks). Open tasks go on and workers are still paid; ask the operator to unfreeze it.`,
    { frozen: true, frozenAt: row.frozen_at },
  );
}
