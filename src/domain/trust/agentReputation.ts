import { countDisputesLostBy } from '../../db/repositories/disputes.js';
import type { Executor } from '../../db/repositories/executor.js';
import { reviewDurations } from '../../db/repositories/submissions.js';

/** The newest decided submissions a median review time is taken over. */
const REVIEW_SAMPLE = 100;
const HOUR_MS = 3_600_000;

/** What a worker sees of an agent before working for it (issue 25, item 6). */
export interface AgentReputation {
  id: string;
  name: string | null;
  /** Tasks of the agent that ended COMPLETED (its workers were paid). */
  tasksPaid: number;
  averageRating: number | null;
  ratingCount: number;
  /** Disputes the agent lost (resolved with money to the worker). */
  disputesLost: number;
  /** Median hours from a submission to the agent's decision (or the auto-release); null before any. */
  medianReviewHours: number | null;
}

/**
 * Disputes resolved against each agent: any payment to the worker counts as lost (docs/decisions/disputes.md). Agents with none are 0.
 */
export async function countDisputesLost(db: Executor, agentIds: string[]): Promise<Map<string, number>> {
  const lost = await countDisputesLostBy(db, agentIds);
  return new Map(agentIds.map((id) => [id, lost.get(id) ?? 0]));
}

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The reputation of each agent, in a few bounded queries (a page names at most 100 agents). */
export async function reputationsOf(db: Executor, agentIds: string[]): Promise<Map<string, AgentReputation>> {
  const ids = [...new Set(agentIds)];
  if (ids.length === 0) return new Map();
  const agents = await db
    .selectFrom('agents')
    .select(['id', 'name', 'rating_sum', 'rating_count'])
    .where('id', 'in', ids)
    .execute();
  const paid = await db
    .selectFrom('tasks')
    .select(['agent_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('agent_id', 'in', ids)
    .where('status', '=', 'COMPLETED')
    .groupBy('agent_id')
    .execute();
  const paidOf = new Map(paid.map((r) => [r.agent_id, Number(r.n)]));
  const lost = await countDisputesLost(db, ids);
  const out = new Map<string, AgentReputation>();
  for (const agent of agents) {
    const mid = median(await reviewDurations(db, agent.id, REVIEW_SAMPLE));
    out.set(agent.id, {
      id: agent.id,
      name: agent.name,
      tasksPaid: paidOf.get(agent.id) ?? 0,
      averageRating:
        agent.rating_count === 0 ? null : Math.round((agent.rating_sum / agent.rating_count) * 100) / 100,
      ratingCount: agent.rating_count,
      disputesLost: lost.get(agent.id) ?? 0,
      medianReviewHours: mid === null ? null : Math.round((mid / HOUR_MS) * 10) / 10,
    });
  }
  return out;
}

/** An agent's entry of a reputationsOf map (agents are never deleted, but a view must not throw). */
export function reputationIn(map: Map<string, AgentReputation>, agentId: string): AgentReputation {
  return (
    map.get(agentId) ?? {
      id: agentId,
      name: null,
      tasksPaid: 0,
      averageRating: null,
      ratingCount: 0,
      disputesLost: 0,
      medianReviewHours: null,
    }
  );
}

/** One agent's reputation (a single task view). */
export async function reputationOf(db: Executor, agentId: string): Promise<AgentReputation> {
  return reputationIn(await reputationsOf(db, [agentId]), agentId);
}
