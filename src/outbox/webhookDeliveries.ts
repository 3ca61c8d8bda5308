import { findSigningKey } from '../db/repositories/apiKeys.js';
import { listDueDeliveries } from '../db/repositories/deliveries.js';
import type { DeliveryRow } from '../db/repositories/executor.js';
import { decryptApiKey } from '../domain/apiKeys.js';
import type { DomainContext } from '../domain/context.js';
import { postWebhook, type WebhookSettings } from '../events/dispatcher.js';
import type { Envelope } from '../events/signer.js';
import { listedPolicy, type OutboxKind } from './kind.js';
import { runDue } from './runner.js';

/** The first attempt plus 3 retries, waiting longer each time; then the delivery is failed. */
export const RETRY_DELAYS_MS = [10_000, 60_000, 300_000] as const;
/** Only answered attempts count: a crash mid-attempt does not use up one of the agent's retries. */
const POLICY = listedPolicy(RETRY_DELAYS_MS, { countAttempt: 'recorded', batch: 50, parallel: 16 });
export const MAX_ATTEMPTS = POLICY.maxAttempts;

type DueDelivery = DeliveryRow & { event_type: string; event_data_json: string; event_created_at: string };

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
    listDue: (db, now, limit) => listDueDeliveries(db, now, limit) as Promise<DueDelivery[]>,
    async attempt(delivery) {
      const key = await signingKey(delivery.agent_id);
      if (!key) return { ok: false, error: 'the agent has no API key to sign with', final: true };
      const envelope: Envelope = {
        event: delivery.event_type,
        timestamp: delivery.event_created_at,
        data: JSON.parse(delivery.event_data_json),
      };
      const sent = await postWebhook(delivery.url, envelope, key, delivery.id, settings, ctx.clock.now());
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

/** One pass of webhook delivery (the background job's work); returns how many were due. */
export function dispatchDueDeliveries(ctx: DomainContext, settings: WebhookSettings): Promise<number> {
  return runDue(ctx, webhookDeliveryKind(ctx, settings));
}
