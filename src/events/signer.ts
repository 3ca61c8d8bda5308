import { createHmac } from 'node:crypto';

/** The envelope of every webhook, as the spec gives it. */
export interface Envelope {
  event: string;
  timestamp: string;
  data: unknown;
}

/**
 * The exact bytes sent: built from the stored event, so every retry of a delivery carries the
 * same body and the same signature.
 */
export function envelopeBody(envelope: Envelope): string {
  return JSON.stringify({ event: envelope.event, timestamp: envelope.timestamp, data: envelope.data });
}

/** Hex HMAC-SHA256 of the raw body with the agent's API key (X-Service-Signature). */
export function signBody(body: string, apiKey: string): string {
  return createHmac('sha256', apiKey).update(body).digest('hex');
}

export function webhookHeaders(envelope: Envelope, body: string, apiKey: string, deliveryId: string) {
  return {
    'content-type': 'application/json',
    'user-agent': 'Handoff-Webhooks/1.0',
    'x-service-signature': signBody(body, apiKey),
    'x-service-event': envelope.event,
    'x-service-timestamp': envelope.timestamp,
    'x-service-delivery-id': deliveryId,
  };
}
