import { findAgent, findTestTwin, insertAgent } from '../../db/repositories/agents.js';
import type { AgentRow, Executor } from '../../db/repositories/executor.js';
import type { DomainContext } from '../context.js';
import { DomainError, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { isUniqueViolation } from '../transaction.js';

/**
 * Test mode (issue 37, docs/decisions/test-mode.md). Every agent has a hidden test twin: an agent
 * row of its own (`livemode` 0, `live_agent_id` its live agent) that holds the agent's test keys,
 * so everything made with a test key belongs to the twin's id and the ownership checks every
 * route makes already answer 404 across the two worlds. The helpers here are the one place that
 * maps between an agent and its twin; later parts of test mode (simulated workers, clocks, reset)
 * build on them.
 */

/** A test key: `hr_test_` + the same 64 random hex characters as a live key. */
export const TEST_KEY_PREFIX = 'hr_test_';

export type KeyMode = 'live' | 'test';

export const isTestKey = (key: string): boolean => key.startsWith(TEST_KEY_PREFIX);

/** True for a live agent, false for a test twin. */
export const isLiveAgent = (agent: Pick<AgentRow, 'livemode'>): boolean => agent.livemode !== 0;

/** The live agent behind an agent: itself when live, its live agent when a twin. */
export const liveAgentIdOf = (agent: Pick<AgentRow, 'id' | 'live_agent_id'>): string =>
  agent.live_agent_id ?? agent.id;

/** Who a task's view names as its agent, and which world the task is in (`livemode`). */
export interface TaskOwner {
  name: string | null;
  livemode: boolean;
}

export const taskOwnerOf = (agent: Pick<AgentRow, 'name' | 'livemode'> | undefined): TaskOwner => ({
  name: agent?.name ?? null,
  livemode: agent ? isLiveAgent(agent) : true,
});

/** Whether the agent with this id is live (unknown ids are not: nothing of theirs is shown). */
export async function agentIsLive(db: Executor, agentId: string): Promise<boolean> {
  const agent = await findAgent(db, agentId);
  return agent !== undefined && isLiveAgent(agent);
}

/** The error a live key gets on a test-only route (every /test/* route). */
export function testKeyRequired(): DomainError {
  return new DomainError(
    'forbidden',
    `This route is for test keys only: test keys start with ${TEST_KEY_PREFIX} (POST /admin/agents answers one as testApiKey; owners create them in the console with {"mode": "test"})`,
  );
}

/** Inserts a live agent's twin in the caller's transaction (createAgent makes both together). */
export async function insertTestTwin(
  trx: Executor,
  live: { id: string; name: string | null },
  now: Date,
): Promise<string> {
  const id = newId('agent', now.getTime());
  await insertAgent(trx, { id, name: live.name, now: now.toISOString(), liveAgentId: live.id });
  return id;
}

/**
 * The twin of a live agent, made now if the agent predates test mode. Two requests making it at
 * once both end with the same twin: the unique index on live_agent_id lets one insert through and
 * the other reads it. Its own statement, outside any transaction, so a lost race aborts nothing.
 */
export async function ensureTestTwin(ctx: DomainContext, liveAgentId: string): Promise<AgentRow> {
  const existing = await findTestTwin(ctx.db, liveAgentId);
  if (existing) return existing;
  const live = await findAgent(ctx.db, liveAgentId);
  if (!live || !isLiveAgent(live)) throw notFound('Agent');
  try {
    await insertTestTwin(ctx.db, live, ctx.clock.now());
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
  }
  const twin = await findTestTwin(ctx.db, liveAgentId);
  if (!twin) throw notFound('Agent');
  return twin;
}

/**
 * The agent holding a key an owner names by id in the console: the live agent, or its twin for a
 * test key (a key id is unique, so it says which). Unknown keys stay with the live agent (404 there).
 */
export async function holderOfKey(ctx: DomainContext, liveAgentId: string, keyId: string): Promise<string> {
  const twin = await findTestTwin(ctx.db, liveAgentId);
  if (!twin) return liveAgentId;
  const key = await ctx.db
    .selectFrom('api_keys')
    .select('agent_id')
    .where('id', '=', keyId)
    .where('agent_id', '=', twin.id)
    .executeTakeFirst();
  return key ? twin.id : liveAgentId;
}

/** The agent that holds keys of a mode: the live agent itself, or its twin (made if needed). */
export async function keyHolder(ctx: DomainContext, liveAgentId: string, mode: KeyMode): Promise<string> {
  return mode === 'live' ? liveAgentId : (await ensureTestTwin(ctx, liveAgentId)).id;
}
