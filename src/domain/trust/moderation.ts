import { rejectWaitingApplications } from '../../db/repositories/applications.js';
import type { Executor, TaskRow } from '../../db/repositories/executor.js';
import { countAgentModeration, insertModerationLog } from '../../db/repositories/moderation.js';
import type { ModerationAction } from '../../db/schema.js';
import { freezeForStrikes } from '../agents/agentFreeze.js';
import type { DomainContext } from '../context.js';
import { DomainError } from '../errors.js';
import { newId } from '../ids.js';
import { classify } from './classifier.js';
import type { ScreeningVerdict } from './screening.js';

const DAY_MS = 86_400_000;
/** What counts toward the freeze: a refusal at creation and an operator's rejection. */
const STRIKES: ModerationAction[] = ['refused', 'rejected'];

/**
 * Screens a new task's text before anything is written: the rules first (a refusal ends here,
 * logged, with a 400 naming the rule and the policy), then, when no rule matched and one is
 * configured, the external classifier, which can only add a hold. Returns the hold to apply, or
 * null for a task workers may see at once.
 */
export async function screenNewTask(
  ctx: DomainContext,
  agentId: string,
  parts: { title: string; description: string; label?: string | null },
): Promise<ScreeningVerdict | null> {
  const screening = ctx.screening;
  if (!screening) return null;
  const verdict = screening.screen.check(parts.title, parts.description, parts.label);
  if (verdict?.action === 'refuse') {
    await recordRefusal(ctx, agentId, verdict);
    throw refusal(ctx.publicUrl, verdict);
  }
  if (verdict || !screening.classifier) return verdict;
  const text = [parts.title, parts.description, parts.label].filter(Boolean).join('\n');
  const answer = await classify(screening.classifier, text);
  if (answer.failure) screening.onClassifierFailure?.(answer.failure);
  return answer.verdict;
}

function refusal(publicUrl: string, verdict: ScreeningVerdict): DomainError {
  const policyUrl = `${publicUrl}/policy`;
  return new DomainError(
    'validation',
    `This task breaks the acceptable-use policy (${verdict.rule.name}), so it was not posted and nothing was charged. Read ${policyUrl} and post a task the policy allows`,
    { rule: verdict.rule, policyUrl },
  );
}

/**
 * A refusal writes only its log row (and perhaps the freeze), each its own statement, outside
 * the creation's transaction: that one never starts, so nothing is escrowed.
 */
async function recordRefusal(ctx: DomainContext, agentId: string, verdict: ScreeningVerdict) {
  const now = ctx.clock.now();
  await logModeration(ctx.db, { agentId, taskId: null, action: 'refused', rule: verdict.rule.id, now });
  await freezeOnStrikes(ctx, ctx.db, agentId, now);
}

/** Freezes the agent when its refusals and rejections of the last 24 hours exceed the limit. */
export async function freezeOnStrikes(ctx: DomainContext, db: Executor, agentId: string, now: Date) {
  const limit = ctx.screening?.freezeAfter;
  if (limit === undefined) return;
  const since = new Date(now.getTime() - DAY_MS).toISOString();
  if ((await countAgentModeration(db, agentId, STRIKES, since)) <= limit) return;
  const note = `more than ${limit} refusals or rejections in 24 hours under the acceptable-use policy`;
  if (await freezeForStrikes(db, agentId, note, now)) {
    await logModeration(db, { agentId, taskId: null, action: 'frozen', note, now });
  }
}

export function logModeration(
  db: Executor,
  entry: {
    agentId: string;
    taskId: string | null;
    action: ModerationAction;
    rule?: string | null;
    operator?: string | null;
    note?: string | null;
    now: Date;
  },
) {
  return insertModerationLog(db, {
    id: newId('moderation', entry.now.getTime()),
    agent_id: entry.agentId,
    task_id: entry.taskId,
    action: entry.action,
    rule: entry.rule ?? null,
    operator: entry.operator ?? null,
    note: entry.note ?? null,
    created_at: entry.now.toISOString(),
  });
}

/** A held task's offered worker's application can no longer win once the task is rejected. */
export async function closeHeldOffer(trx: Executor, task: TaskRow, at: string) {
  await rejectWaitingApplications(trx, task.id, at);
}
