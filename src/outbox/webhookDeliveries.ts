import { findSigningKey } from '../db/repositories/apiKeys.js';
import { type DueDelivery, listDueDeliveriesFairly } from '../db/repositories/webhookEndpoints.js';
import { decryptApiKey } from '../domain/agents/apiKeys.js';
import { isTestKey } from '../domain/agents/testMode.js';
import type { DomainContext } from '../domain/context.js';
import { eventPayload } from '../domain/events/events.js';
import { postWebhook, type WebhookSettings } from '../events/dispatcher.js';
import type { Envelope } from '../events/signer.js';
import { listedPolicy, type OutboxKind } from './kind.js';
import { runPass, startPump } from './runner.js';
import { CAPS, claimFairly, recordEndpointHealth } from './webhookFairness.js';

/** The first attempt plus 3 retries, waiting longer each time; then the delivery is failed. */
export const RETRY_DELAYS_MS = [10_000, 60_000, 300_000] as const;
/** Only answered attempts count: a crash mid-attempt does not use up one of the agent's retries. */
const POLICY = listedPolicy(RETRY_DELAYS_MS, { countAttempt: 'recorded', batch: 50, parallel: 16 });
export const MAX_ATTEMPTS = POLICY.maxAttempts;
/**
 * Attempts one instance keeps in flight in the background. An attempt waiting on a silent
 * receiver costs an idle socket, so this is generous: it takes many agents, each at its cap,
 * to fill, and quarantine frees their slots after one time-out.
 */
export const MAX_IN_FLIGHT_PER_INSTANCE = 64;
/** Passes of `dispatchDueDeliveries` at most (each claims at least one row or ends it). */
const MAX_PASSES = 1_000;

/**
 * Webhook deliveries as outbox work: each due delivery is signed with its agent's newest live key
 * and POSTed. A kind is made per pass, so each agent's key is looked up and decrypted once a pass.
 */
export function webhookDeliveryKind(ctx: DomainContext, settings: WebhookSettings): OutboxKind<DueDelivery> {
  const keys = new Map<string, Promise<string | null>>();
  const signingKey = (agentId: string) => {
    let key = keys.get(agentId);
    if (!key) {
      key = findSigningKey(ctx.db, agentId).then((row) =>
        row ? decryptApiKey(row.key_ciphertext, ctx.secretKey) : null,
      );
      keys.set(agentId, key);
    }
    return key;
  };
  return {
    name: 'webhook delivery',
    table: 'webhook_deliveries',
    policy: POLICY,
    doneStatus: 'delivered',
    attemptTimeoutMs: settings.timeoutMs,
    listDue: (db, now, limit) => listDueDeliveriesFairly(db, now, limit, CAPS),
    claim: claimFairly,
    // The attempt is no longer in flight once its outcome is recorded.
    settledColumns: { claimed_until: null },
    async attempt(delivery) {
      const key = await signingKey(delivery.agent_id);
      if (!key) return { ok: false, error: 'the agent has no API key to sign with', final: true };
      const { data, traceparent } = eventPayload(delivery.event_data_json);
      // A twin's events are signed with its test key (test mode), so the key says the world.
      const envelope: Envelope = {
        event: delivery.event_type,
        timestamp: delivery.event_created_at,
        livemode: !isTestKey(key),
        data,
      };
      const sent = await postWebhook(delivery.url, envelope, key, delivery.id, settings, ctx.clock.now(), {
        traceparent,
      });
      const health = {
        answered: sent.statusCode !== null,
        timedOut: sent.timedOut === true,
        error: sent.error,
      };
      await recordEndpointHealth(ctx.db, delivery, health, ctx.clock.now());
      const columns = {
        last_status_code: sent.statusCode,
        delivered_at: sent.ok ? ctx.clock.now().toISOString() : null,
      };
      return sent.ok
        ? { ok: true, columns }
        : { ok: false, error: sent.error ?? 'not delivered', final: sent.final, columns };
    },
  };
}

/**
 * Sends what is due now and waits for the outcomes, pass after pass while passes claim anything
 * (fair shares let each pass take only a few of one agent's deliveries); returns how many it
 * attempted. The background job uses `startWebhookPump` instead, which does not wait.
 */
export async function dispatchDueDeliveries(ctx: DomainContext, settings: WebhookSettings): Promise<number> {
  let attempted = 0;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const done = await runPass(ctx, webhookDeliveryKind(ctx, settings));
    attempted += done.attempted;
    if (done.attempted === 0) break;
  }
  return attempted;
}

/** The background job's webhook runner: claims due deliveries every tick, waits for none. */
export function startWebhookPump(
  ctx: DomainContext,
  settings: WebhookSettings,
  onError: (error: unknown) => void,
) {
  return startPump(ctx, () => webhookDeliveryKind(ctx, settings), MAX_IN_FLIGHT_PER_INSTANCE, onError);
}
