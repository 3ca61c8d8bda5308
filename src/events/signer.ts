import { createHmac } from 'node:crypto';

/** The envelope of every webhook, as the spec gives it. */
export interface Envelope {
  event: string;
  timestamp: string;
  data: unknown;
  /** false for a test twin's events (test mode); absent on bodies built before it was known. */
  livemode?: boolean;
}

/**
 * The exact bytes sent: built from the stored event, so every retry of a delivery carries the
 * same body and the same signature.
 */
export function envelopeBody(envelope: Envelope): string {
  const { event, timestamp, data, livemode } = envelope;
  return JSON.stringify(
    livemode === undefined ? { event, timestamp, data } : { event, timestamp, livemode, data },
  );
}

/** Hex HMAC-SHA256 of the raw body with the agent's API key (X-Service-Signature). */
export function signBody(body: string, apiKey: string): string {
  return createHmac('sha256', apiKey).update(body).digest('hex');
}

/**
 * Standard Webhooks signature (standardwebhooks.com, v1): base64 HMAC-SHA256 of
 * `${webhookId}.${timestampSeconds}.${body}`. The key is the agent's API key, as bytes (its ASCII
 * text, not base64-decoded): with the standard libraries, `new Webhook(apiKey, { format: 'raw' })`,
 * or the secret `whsec_` + base64(apiKey).
 */
export function standardSignature(
  webhookId: string,
  timestampSeconds: number,
  body: string,
  apiKey: string,
): string {
  const mac = createHmac('sha256', apiKey)
    .update(`${webhookId}.${timestampSeconds}.${body}`)
    .digest('base64');
  return `v1,${mac}`;
}

/**
 * The spec's X-Service-* headers, plus the Standard Webhooks headers. `webhook-id` is the
 * delivery id (the same on every retry, so a receiver can drop a duplicate) and
 * `webhook-timestamp` the time of this attempt in Unix seconds (signed with it, so a receiver can
 * refuse a replay of an old request); X-Service-Timestamp stays the event's time.
 */
export function webhookHeaders(
  envelope: Envelope,
  body: string,
  apiKey: string,
  deliveryId: string,
  sentAt: Date,
) {
  const timestampSeconds = Math.floor(sentAt.getTime() / 1000);
  return {
    'webhook-id': deliveryId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': standardSignature(deliveryId, timestampSeconds, body, apiKey),
    'content-type': 'application/json',
    'user-agent': 'Handoff-Webhooks/1.0',
    'x-service-signature': signBody(body, apiKey),
    'x-service-event': envelope.event,
    'x-service-timestamp': envelope.timestamp,
    'x-service-delivery-id': deliveryId,
  };
}
