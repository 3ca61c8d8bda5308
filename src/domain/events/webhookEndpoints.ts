import {
  type EndpointRow,
  endQuarantines,
  listAgentEndpoints,
} from '../../db/repositories/webhookEndpoints.js';
import type { DomainContext } from '../context.js';

/** An agent has few endpoints (one per webhook URL origin it used); this many are shown. */
const MAX_LISTED = 50;

export type EndpointState = 'healthy' | 'quarantined' | 'probing';

/**
 * Quarantined: nothing is sent before `quarantinedUntil`. Probing: a quarantine ended without an
 * answer since, so one delivery at a time goes until one is answered. Healthy: full share.
 */
export function endpointState(row: EndpointRow, now: string): EndpointState {
  if (row.quarantined_until && row.quarantined_until > now) return 'quarantined';
  return row.quarantines > 0 ? 'probing' : 'healthy';
}

/** GET /agents/webhooks/endpoints: the agent's endpoints that ever timed out, and their state. */
export async function listEndpoints(ctx: DomainContext, agentId: string) {
  const now = ctx.clock.now().toISOString();
  const rows = await listAgentEndpoints(ctx.db, agentId, MAX_LISTED);
  return rows.map((row) => ({ ...row, state: endpointState(row, now) }));
}

/**
 * POST /agents/webhooks/endpoints/resume: ends the agent's quarantines now (or the one
 * origin's); held deliveries go out at once, one first as a probe. Ending none is no error.
 */
export async function resumeEndpoints(ctx: DomainContext, agentId: string, origin: string | undefined) {
  await endQuarantines(ctx.db, agentId, origin, ctx.clock.now().toISOString());
  return listEndpoints(ctx, agentId);
}
