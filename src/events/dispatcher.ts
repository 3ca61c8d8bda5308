import { findSigningKey } from '../db/repositories/apiKeys.js';
import { claimDelivery, listDueDeliveries, recordAttempt } from '../db/repositories/deliveries.js';
import type { DeliveryRow } from '../db/repositories/executor.js';
import { decryptApiKey } from '../domain/apiKeys.js';
import type { DomainContext } from '../domain/context.js';
import { refuseNonPublicHost } from './addressGuard.js';
import { postJson, TimeoutError } from './httpPost.js';
import { type Envelope, envelopeBody, webhookHeaders } from './signer.js';

export interface WebhookSettings {
  /** Development lets webhooks reach loopback and private addresses; production does not. */
  allowPrivateTargets: boolean;
  /** A receiver must answer within this; the spec's 10 seconds by default. */
  timeoutMs: number;
}

/** The first attempt plus 3 retries, waiting longer each time; then the delivery is failed. */
export const MAX_ATTEMPTS = 4;
export const RETRY_DELAYS_MS = [10_000, 60_000, 300_000] as const;
const BATCH = 50;
const PARALLEL = 16;

type DueDelivery = DeliveryRow & { event_type: string; event_data_json: string; event_created_at: string };

interface Outcome {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  /** No retry can help (no key left, refused address). */
  final?: boolean;
}

/** Attempts every due delivery once (up to a batch); returns how many were due. */
export async function dispatchDueDeliveries(ctx: DomainContext, settings: WebhookSettings): Promise<number> {
  const due = (await listDueDeliveries(ctx.db, ctx.clock.now().toISOString(), BATCH)) as DueDelivery[];
  const keys = new SigningKeys(ctx);
  // A pool of PARALLEL senders: a slow receiver holds one sender, not a whole group.
  let next = 0;
  const sender = async () => {
    while (next < due.length) await attemptDelivery(ctx, settings, due[next++]!, keys);
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, due.length) }, sender));
  return due.length;
}

/** Each agent's signing key, looked up and decrypted once per batch. */
class SigningKeys {
  private readonly keys = new Map<string, Promise<string | null>>();
  constructor(private readonly ctx: DomainContext) {}

  get(agentId: string): Promise<string | null> {
    let key = this.keys.get(agentId);
    if (!key) {
      key = findSigningKey(this.ctx.db, agentId).then((row) =>
        row ? decryptApiKey(row.key_ciphertext, this.ctx.secretKey) : null,
      );
      this.keys.set(agentId, key);
    }
    return key;
  }
}

async function attemptDelivery(
  ctx: DomainContext,
  settings: WebhookSettings,
  delivery: DueDelivery,
  keys: SigningKeys,
) {
  const started = ctx.clock.now();
  // Hold the row for longer than an attempt can take, so no other instance sends it meanwhile.
  const lease = new Date(started.getTime() + settings.timeoutMs + 30_000).toISOString();
  if (!(await claimDelivery(ctx.db, delivery, lease, started.toISOString()))) return;
  const outcome = await send(settings, delivery, keys);
  const attempts = delivery.attempts + 1;
  const now = ctx.clock.now();
  const failed = !outcome.ok && (outcome.final || attempts >= MAX_ATTEMPTS);
  const retryAt = new Date(now.getTime() + (RETRY_DELAYS_MS[attempts - 1] ?? 0)).toISOString();
  await recordAttempt(ctx.db, delivery.id, lease, {
    status: outcome.ok ? 'delivered' : failed ? 'failed' : 'pending',
    attempts,
    nextAttemptAt: outcome.ok || failed ? now.toISOString() : retryAt,
    statusCode: outcome.statusCode,
    error: outcome.error,
    deliveredAt: outcome.ok ? now.toISOString() : null,
    now: now.toISOString(),
  });
}

async function send(settings: WebhookSettings, delivery: DueDelivery, keys: SigningKeys): Promise<Outcome> {
  const key = await keys.get(delivery.agent_id);
  if (!key)
    return { ok: false, statusCode: null, error: 'the agent has no API key to sign with', final: true };
  const envelope: Envelope = {
    event: delivery.event_type,
    timestamp: delivery.event_created_at,
    data: JSON.parse(delivery.event_data_json),
  };
  return postWebhook(delivery.url, envelope, key, delivery.id, settings);
}

/** One signed POST; also used for the test delivery of POST /agents/webhooks. */
export async function postWebhook(
  url: string,
  envelope: Envelope,
  apiKey: string,
  deliveryId: string,
  settings: WebhookSettings,
): Promise<Outcome> {
  if (!settings.allowPrivateTargets) {
    const refused = await refuseNonPublicHost(new URL(url).hostname);
    if (refused) return { ok: false, statusCode: null, error: `refused: ${refused}`, final: true };
  }
  const body = envelopeBody(envelope);
  try {
    const status = await postJson(
      url,
      webhookHeaders(envelope, body, apiKey, deliveryId),
      body,
      settings.timeoutMs,
    );
    const ok = status >= 200 && status < 300;
    return { ok, statusCode: status, error: ok ? null : `the receiver answered HTTP ${status}` };
  } catch (error) {
    const timedOut = error instanceof TimeoutError;
    return {
      ok: false,
      statusCode: null,
      error: timedOut
        ? `no answer within ${settings.timeoutMs} ms`
        : `could not connect: ${(error as Error).message}`,
    };
  }
}
