import { validTraceparent } from '../domain/events/traceContext.js';
import { checkPublicHost } from './addressGuard.js';
import { type PinnedAddress, postJson, TimeoutError } from './httpPost.js';
import { type Envelope, envelopeBody, webhookHeaders } from './signer.js';

export interface WebhookSettings {
  /** Development lets webhooks reach loopback and private addresses; production does not. */
  allowPrivateTargets: boolean;
  /** A receiver must answer within this; the spec's 10 seconds by default. */
  timeoutMs: number;
}

interface Outcome {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  /** No retry can help (no key left, refused address). */
  final?: boolean;
  /** The receiver took the request and did not answer within the time-out. */
  timedOut?: boolean;
}

/** One signed POST; also used for the test delivery of POST /agents/webhooks. */
export async function postWebhook(
  url: string,
  envelope: Envelope,
  apiKey: string,
  deliveryId: string,
  settings: WebhookSettings,
  /** Signed into the Standard Webhooks headers; the attempt's time by the injected clock. */
  sentAt: Date,
  /** The W3C trace of the request that caused the event, passed on as the `traceparent` header. */
  trace: { traceparent?: string } = {},
): Promise<Outcome> {
  let pinned: PinnedAddress | undefined;
  if (!settings.allowPrivateTargets) {
    // The address checked is the address connected to: the client does not resolve the name again.
    const checked = await checkPublicHost(new URL(url).hostname);
    if ('refused' in checked) {
      return { ok: false, statusCode: null, error: `refused: ${checked.refused}`, final: true };
    }
    pinned = checked;
  }
  const body = envelopeBody(envelope);
  try {
    const headers: Record<string, string> = webhookHeaders(envelope, body, apiKey, deliveryId, sentAt);
    // Normalized again at the edge: an event stored before traces were normalized may hold a
    // caller's raw header text, and only a plain version-00 traceparent ever leaves.
    const traceparent = validTraceparent(trace.traceparent);
    if (traceparent) headers.traceparent = traceparent;
    const status = await postJson(url, headers, body, settings.timeoutMs, pinned);
    const ok = status >= 200 && status < 300;
    return { ok, statusCode: status, error: ok ? null : `the receiver answered HTTP ${status}` };
  } catch (error) {
    const timedOut = error instanceof TimeoutError;
    return {
      ok: false,
      statusCode: null,
      timedOut,
      error: timedOut
        ? `no answer within ${settings.timeoutMs} ms`
        : `could not connect: ${(error as Error).message}`,
    };
  }
}
