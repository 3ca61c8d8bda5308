import { createHmac, timingSafeEqual } from 'node:crypto';

/** A webhook's envelope, as the service sends it. */
export interface WebhookEvent<D = unknown> {
  event: string;
  timestamp: string;
  data: D;
}

/** Which signed headers verifyWebhook checks; the service sends both on every delivery. */
export type WebhookScheme = 'standard' | 'service';

export interface VerifyWebhookInput {
  /** The raw request body, exactly as received (not re-serialised JSON). */
  body: string | Uint8Array;
  /** The request headers (any case; Node's IncomingHttpHeaders or a Fetch Headers object). */
  headers: Record<string, string | string[] | undefined> | Headers;
  /**
   * The agent's API key (`hr_...`): the service signs with its text as the key bytes. A Standard
   * Webhooks secret (`whsec_` + base64 of the key bytes) is accepted too.
   */
  secret: string;
  /**
   * `standard` (the default): the Standard Webhooks headers, `webhook-signature` over
   * `<webhook-id>.<webhook-timestamp>.<body>` with a per-attempt timestamp, so a captured request
   * replayed later is refused. `service`: the spec's X-Service-Signature over the body alone,
   * with the event's time (the same on every retry).
   */
  scheme?: WebhookScheme;
  /**
   * How far the signed time may be from now. Defaults: 300 s for `standard` (each attempt is
   * signed when sent); 600 s for `service`, whose timestamp is the event's and stays the same on
   * every retry (the last automatic retry comes about 6 minutes later).
   */
  toleranceSeconds?: number;
  /**
   * Says whether a `webhook-id` was already processed (`standard` only): such a delivery is then
   * refused as a replay. Remember ids for at least the tolerance, once you have handled them
   * (a retry of a delivery you answered with an error carries the same id).
   */
  seen?: (webhookId: string) => boolean;
  now?: Date;
}

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

const DEFAULT_TOLERANCE_S: Record<WebhookScheme, number> = { standard: 300, service: 600 };
const STANDARD_SECRET_PREFIX = 'whsec_';

function header(headers: VerifyWebhookInput['headers'], name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const value = headers[name] ?? headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** The HMAC key bytes: the API key's text, or the bytes a `whsec_` secret encodes. */
function keyBytes(secret: string): Buffer {
  if (secret.startsWith(STANDARD_SECRET_PREFIX)) {
    return Buffer.from(secret.slice(STANDARD_SECRET_PREFIX.length), 'base64');
  }
  return Buffer.from(secret, 'utf8');
}

const sameBytes = (given: Buffer, expected: Buffer) =>
  given.length === expected.length && timingSafeEqual(given, expected);

function checkTolerance(atMs: number, what: string, input: VerifyWebhookInput, scheme: WebhookScheme) {
  const nowMs = (input.now ?? new Date()).getTime();
  const toleranceS = input.toleranceSeconds ?? DEFAULT_TOLERANCE_S[scheme];
  if (Number.isNaN(atMs) || Math.abs(nowMs - atMs) > toleranceS * 1000) {
    throw new WebhookVerificationError(`timestamp ${what} is outside the ${toleranceS} s tolerance`);
  }
}

/** Standard Webhooks v1: any one of the space-separated `v1,<base64>` signatures must match. */
function verifyStandard(raw: Buffer, input: VerifyWebhookInput): void {
  const id = header(input.headers, 'webhook-id');
  const timestamp = header(input.headers, 'webhook-timestamp');
  const signatures = header(input.headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) {
    throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature header');
  }
  if (!/^\d{1,12}$/.test(timestamp)) {
    throw new WebhookVerificationError('webhook-timestamp is not Unix seconds');
  }
  const expected = createHmac('sha256', keyBytes(input.secret))
    .update(`${id}.${timestamp}.`)
    .update(raw)
    .digest();
  const matches = signatures
    .split(' ')
    .map((entry) => entry.split(','))
    .some(
      ([version, value]) =>
        version === 'v1' &&
        value !== undefined &&
        /^[A-Za-z0-9+/]+={0,2}$/.test(value) &&
        sameBytes(Buffer.from(value, 'base64'), expected),
    );
  if (!matches) throw new WebhookVerificationError('signature does not match the body');
  // After the signature: a forged request is reported as forged, not as stale.
  checkTolerance(Number(timestamp) * 1000, timestamp, input, 'standard');
  if (input.seen?.(id)) throw new WebhookVerificationError(`delivery ${id} was already processed (replay)`);
}

/** The spec's scheme: hex HMAC of the body, and the event's own timestamp. */
function verifyService(raw: Buffer, input: VerifyWebhookInput): void {
  const signature = header(input.headers, 'x-service-signature');
  if (!signature) throw new WebhookVerificationError('missing X-Service-Signature header');
  const expected = createHmac('sha256', keyBytes(input.secret)).update(raw).digest();
  const given = /^[0-9a-f]{64}$/i.test(signature) ? Buffer.from(signature, 'hex') : Buffer.alloc(0);
  if (!sameBytes(given, expected)) throw new WebhookVerificationError('signature does not match the body');
}

/**
 * Checks a webhook delivery and returns its event, or throws WebhookVerificationError. By default
 * it verifies the Standard Webhooks headers (HMAC-SHA256 with your API key over
 * `<webhook-id>.<webhook-timestamp>.<raw body>`, compared in constant time, the attempt's
 * timestamp within 5 minutes, an id `seen` says was processed refused); `scheme: 'service'`
 * checks the spec's X-Service-Signature instead (see docs/webhooks.md).
 */
export function verifyWebhook<D = unknown>(input: VerifyWebhookInput): WebhookEvent<D> {
  const raw = typeof input.body === 'string' ? Buffer.from(input.body, 'utf8') : Buffer.from(input.body);
  const scheme = input.scheme ?? 'standard';
  if (scheme === 'standard') verifyStandard(raw, input);
  else verifyService(raw, input);
  let event: WebhookEvent<D>;
  try {
    event = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new WebhookVerificationError('body is not JSON');
  }
  if (scheme === 'service') {
    const stated = header(input.headers, 'x-service-timestamp');
    if (stated !== undefined && stated !== event.timestamp) {
      throw new WebhookVerificationError('X-Service-Timestamp differs from the signed timestamp');
    }
    checkTolerance(Date.parse(event.timestamp), event.timestamp, input, 'service');
  }
  return event;
}
