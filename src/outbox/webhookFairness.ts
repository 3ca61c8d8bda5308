import type { Executor } from '../db/repositories/executor.js';
import {
  claimDelivery,
  countInFlight,
  type DueDelivery,
  findEndpoint,
  type InFlightCaps,
  lockClaims,
  recordAnswer,
  recordTimeout,
  startQuarantine,
} from '../db/repositories/webhookEndpoints.js';
import { recordEvent } from '../domain/events/events.js';
import { inTransaction } from '../domain/transaction.js';

/**
 * Fair webhook delivery (docs/decisions/webhook-fairness.md). A receiver that takes requests
 * and never answers holds each attempt for the whole time-out; without limits one agent's dead
 * endpoint filled every slot and everyone's webhooks waited behind it.
 */

/** Deliveries of one agent in flight at once, over every instance (counted in the database). */
export const MAX_IN_FLIGHT_PER_AGENT = 4;
/** Deliveries to one endpoint (URL origin), whichever agents they are for, in flight at once. */
export const MAX_IN_FLIGHT_PER_ORIGIN = 8;
/** A quarantine just ended: one delivery probes the endpoint before it gets its share again. */
export const MAX_IN_FLIGHT_WHILE_PROBING = 1;
export const CAPS: InFlightCaps = { perAgent: MAX_IN_FLIGHT_PER_AGENT, perOrigin: MAX_IN_FLIGHT_PER_ORIGIN };

/** Attempts in a row that time out before the endpoint is quarantined; a probe's one suffices. */
export const QUARANTINE_AFTER_TIMEOUTS = 3;
const FIRST_QUARANTINE_MS = 60_000;
const LONGEST_QUARANTINE_MS = 3_600_000;

/** The n-th quarantine in a row (0-based) lasts 1 minute, doubling each time, at most an hour. */
export function quarantineMs(previous: number): number {
  return Math.min(FIRST_QUARANTINE_MS * 2 ** Math.min(previous, 16), LONGEST_QUARANTINE_MS);
}

/**
 * Claims a listed delivery only within the caps and outside a quarantine, deciding on what the
 * database holds (under per-agent and per-endpoint locks on PostgreSQL), so the caps hold
 * across instances. A delivery not claimed stays pending, its attempts untouched.
 */
export function claimFairly(
  db: Executor,
  row: DueDelivery,
  listed: { nextAttemptAt: string; attempts: number },
  claim: { leaseUntil: string; now: string },
): Promise<boolean> {
  const origin = row.origin ?? row.url;
  return inTransaction(db, async (trx) => {
    await lockClaims(trx, row.agent_id, origin);
    const endpoint = await findEndpoint(trx, row.agent_id, origin);
    if (endpoint?.quarantined_until && endpoint.quarantined_until > claim.now) return false;
    const inFlight = await countInFlight(trx, row.agent_id, origin, claim.now);
    const probing = (endpoint?.quarantines ?? 0) > 0;
    if (inFlight.agent >= MAX_IN_FLIGHT_PER_AGENT || inFlight.origin >= MAX_IN_FLIGHT_PER_ORIGIN)
      return false;
    if (probing && inFlight.endpoint >= MAX_IN_FLIGHT_WHILE_PROBING) return false;
    return claimDelivery(trx, row.id, listed, claim.leaseUntil, claim.now);
  });
}

/**
 * Keeps the endpoint's health after an attempt: an answer (any HTTP status) makes it healthy;
 * a time-out counts, and enough in a row (one, for a probe) quarantine it. The first quarantine
 * after a healthy spell records `webhook.endpoint_quarantined` for the agent, in the same
 * transaction; longer quarantines after failed probes do not repeat it.
 */
export async function recordEndpointHealth(
  db: Executor,
  row: DueDelivery,
  sent: { answered: boolean; timedOut: boolean; error: string | null },
  now: Date,
): Promise<void> {
  const origin = row.origin ?? row.url;
  const at = now.toISOString();
  if (sent.answered) {
    await recordAnswer(db, row.agent_id, origin, at);
    return;
  }
  if (!sent.timedOut) return;
  await inTransaction(db, async (trx) => {
    const endpoint = await recordTimeout(trx, row.agent_id, origin, sent.error ?? 'no answer', at);
    const threshold = endpoint.quarantines > 0 ? 1 : QUARANTINE_AFTER_TIMEOUTS;
    if (endpoint.consecutive_timeouts < threshold) return;
    const until = new Date(now.getTime() + quarantineMs(endpoint.quarantines)).toISOString();
    const started = await startQuarantine(trx, endpoint, until, at);
    if (!started || endpoint.quarantines > 0) return;
    await recordEvent(trx, {
      agentId: row.agent_id,
      taskId: null,
      type: 'webhook.endpoint_quarantined',
      data: {
        origin,
        quarantinedUntil: until,
        consecutiveTimeouts: endpoint.consecutive_timeouts,
        lastError: endpoint.last_error,
        message:
          'Your webhook endpoint took requests and did not answer in time, several times in a row. ' +
          'Deliveries to it are held (none is lost or counted as an attempt) and resume by themselves ' +
          'when the quarantine ends, one delivery first. Fix the receiver so it answers 2xx quickly ' +
          '(queue slow work), then resume at once with POST /agents/webhooks/endpoints/resume.',
      },
      now,
    });
  });
}
