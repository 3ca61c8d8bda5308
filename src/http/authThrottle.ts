import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../domain/clock.js';
import { clientGroup } from './clientAddress.js';

/** Failed sign-ins from one address count within windows of this length. */
export const AUTH_FAILURE_WINDOW_MS = 15 * 60_000;
const SWEEP_AT_ENTRIES = 10_000;

/**
 * Guessing credentials (API keys, the admin token, Mini App init data, console sessions and
 * wallet proofs) costs one request per guess. Failures are counted per client address (an IPv6
 * client by its /64, see clientGroup); once `limit` failed within the window, every further
 * failure from that address is answered 429 instead of 401 until the window ends. A credential
 * that verifies always goes through: one bad client behind a shared NAT or proxy must not lock
 * out the valid agents and owners there, and the credentials themselves are too long to guess.
 * Counted in memory per instance, like the rate limits; other addresses are not affected.
 */
export class AuthFailureThrottle {
  private readonly failures = new Map<string, { startMs: number; count: number }>();
  /** Told of each failure answered 429 (handoff_rate_limited_total{bucket="auth_failures"}). */
  onThrottled?: () => void;

  constructor(
    private readonly clock: Clock,
    readonly limit: number,
    private readonly windowMs = AUTH_FAILURE_WINDOW_MS,
  ) {}

  /** Seconds until failures from this address are answered 401 again; 0 when it is not throttled. */
  blockedFor(ip: string): number {
    const key = clientGroup(ip);
    const entry = this.failures.get(key);
    if (!entry || entry.count < this.limit) return 0;
    const left = entry.startMs + this.windowMs - this.clock.now().getTime();
    if (left <= 0) {
      this.failures.delete(key);
      return 0;
    }
    return Math.ceil(left / 1000);
  }

  /** One failed attempt from this address. */
  fail(ip: string): void {
    const key = clientGroup(ip);
    const nowMs = this.clock.now().getTime();
    let entry = this.failures.get(key);
    if (!entry || nowMs >= entry.startMs + this.windowMs) {
      if (this.failures.size >= SWEEP_AT_ENTRIES) this.sweep(nowMs);
      entry = { startMs: nowMs, count: 0 };
      this.failures.set(key, entry);
    }
    entry.count++;
  }

  /** Bounds memory: forget windows that have ended. */
  private sweep(nowMs: number): void {
    for (const [key, entry] of this.failures) {
      if (nowMs >= entry.startMs + this.windowMs) this.failures.delete(key);
    }
  }
}

/** The 429 a throttled address gets for a failed attempt. */
export function throttledAnswer(throttle: AuthFailureThrottle, retryAfter: number) {
  throttle.onThrottled?.();
  return {
    error: 'Too many failed sign-in attempts',
    retryAfter,
    message: `${throttle.limit} failed authentication attempts came from your address within ${AUTH_FAILURE_WINDOW_MS / 60_000} minutes; check your credentials and retry in ${retryAfter} s`,
  };
}

/**
 * A credential that did not verify: answers 429 when the caller's address is already over the
 * limit (true: stop there), otherwise counts the failure and returns false (answer 401).
 */
export function throttleFailure(
  throttle: AuthFailureThrottle,
  request: FastifyRequest,
  reply: FastifyReply,
): boolean {
  const retryAfter = throttle.blockedFor(request.ip);
  if (retryAfter === 0) {
    throttle.fail(request.ip);
    return false;
  }
  reply.header('retry-after', retryAfter);
  void reply.status(429).send(throttledAnswer(throttle, retryAfter));
  return true;
}
