import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../domain/clock.js';

/** Failed sign-ins from one address count within windows of this length. */
export const AUTH_FAILURE_WINDOW_MS = 15 * 60_000;
const SWEEP_AT_ENTRIES = 10_000;

/**
 * Guessing credentials (API keys, the admin token, Mini App init data, console sessions) costs
 * one request per guess; after `limit` failed attempts from one client address within the window,
 * every further request from that address on an authenticated route is answered 429 before any
 * credential is looked at, so a throttled caller reaches neither the key cache nor the database.
 * Counted in memory per instance, like the rate limits; other addresses are not affected.
 */
export class AuthFailureThrottle {
  private readonly failures = new Map<string, { startMs: number; count: number }>();

  constructor(
    private readonly clock: Clock,
    readonly limit: number,
    private readonly windowMs = AUTH_FAILURE_WINDOW_MS,
  ) {}

  /** Seconds until this address may try again; 0 when it is not throttled. */
  blockedFor(ip: string): number {
    const entry = this.failures.get(ip);
    if (!entry || entry.count < this.limit) return 0;
    const left = entry.startMs + this.windowMs - this.clock.now().getTime();
    if (left <= 0) {
      this.failures.delete(ip);
      return 0;
    }
    return Math.ceil(left / 1000);
  }

  /** One failed attempt from this address. */
  fail(ip: string): void {
    const nowMs = this.clock.now().getTime();
    let entry = this.failures.get(ip);
    if (!entry || nowMs >= entry.startMs + this.windowMs) {
      if (this.failures.size >= SWEEP_AT_ENTRIES) this.sweep(nowMs);
      entry = { startMs: nowMs, count: 0 };
      this.failures.set(ip, entry);
    }
    entry.count++;
  }

  /** Bounds memory: forget windows that have ended. */
  private sweep(nowMs: number): void {
    for (const [ip, entry] of this.failures) {
      if (nowMs >= entry.startMs + this.windowMs) this.failures.delete(ip);
    }
  }
}

/** Answers 429 when the caller's address is throttled; true when it did (stop there). */
export function refuseThrottled(throttle: AuthFailureThrottle, request: FastifyRequest, reply: FastifyReply) {
  const retryAfter = throttle.blockedFor(request.ip);
  if (retryAfter === 0) return false;
  reply.header('retry-after', retryAfter);
  void reply.status(429).send({
    error: 'Too many failed sign-in attempts',
    retryAfter,
    message: `${throttle.limit} failed authentication attempts came from your address within ${AUTH_FAILURE_WINDOW_MS / 60_000} minutes; check your credentials and retry in ${retryAfter} s`,
  });
  return true;
}
