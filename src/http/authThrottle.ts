import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../domain/clock.js';
import { clientGroup } from './clientAddress.js';
import type { Hit, RateLimitStore } from './rateLimit.js';

/** Failed sign-ins from one address count within windows of this length. */
export const AUTH_FAILURE_WINDOW_MS = 15 * 60_000;

/**
 * Guessing credentials (API keys, the admin token, Mini App init data, console sessions and
 * wallet proofs) costs one request per guess. Failures are counted per client address (an IPv6
 * client by its /64, see clientGroup); past `limit` failures within the window, every further
 * failure from that address is answered 429 instead of 401 until the window ends. A credential
 * that verifies always goes through: one bad client behind a shared NAT or proxy must not lock
 * out the valid agents and owners there, and the credentials themselves are too long to guess.
 * Counted in the rate-limit store (in Redis when REDIS_URL is set, so once for all instances);
 * other addresses are not affected.
 */
export class AuthFailureThrottle {
  /** Told of each failure answered 429 (handoff_rate_limited_total{bucket="auth_failures"}). */
  onThrottled?: () => void;

  constructor(
    private readonly store: RateLimitStore,
    private readonly clock: Clock,
    readonly limit: number,
    private readonly windowMs = AUTH_FAILURE_WINDOW_MS,
  ) {}

  /**
   * Counts one failed attempt from this address: 0 while it is within the limit (answer 401),
   * else the seconds until its window ends (answer 429).
   */
  fail(ip: string): number | Promise<number> {
    const nowMs = this.clock.now().getTime();
    const hit = this.store.hit(`auth:${clientGroup(ip)}`, this.windowMs, nowMs);
    return hit instanceof Promise ? hit.then((h) => this.wait(h, nowMs)) : this.wait(hit, nowMs);
  }

  /**
   * The seconds until this address's window ends if it has used up its failures (its next one
   * would be answered 429), else 0; counts nothing. For refusals decided before a request's body
   * is read.
   */
  over(ip: string): number | Promise<number> {
    const nowMs = this.clock.now().getTime();
    const hit = this.store.peek(`auth:${clientGroup(ip)}`, this.windowMs, nowMs);
    return hit instanceof Promise ? hit.then((h) => this.usedUp(h, nowMs)) : this.usedUp(hit, nowMs);
  }

  private usedUp(hit: Hit | null, nowMs: number): number {
    return hit && hit.count >= this.limit ? this.wait({ ...hit, count: hit.count + 1 }, nowMs) : 0;
  }

  private wait({ count, resetAtMs }: Hit, nowMs: number): number {
    return count <= this.limit ? 0 : Math.max(1, Math.ceil((resetAtMs - nowMs) / 1000));
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
 * A credential that did not verify: counts the failure, and answers 429 when the caller's
 * address is over the limit (true: stop there); false: answer 401. A promise only when the
 * store is remote (Redis).
 */
export function throttleFailure(
  throttle: AuthFailureThrottle,
  request: FastifyRequest,
  reply: FastifyReply,
): boolean | Promise<boolean> {
  const retryAfter = throttle.fail(request.ip);
  return retryAfter instanceof Promise
    ? retryAfter.then((s) => refuse(throttle, reply, s))
    : refuse(throttle, reply, retryAfter);
}

function refuse(throttle: AuthFailureThrottle, reply: FastifyReply, retryAfter: number): boolean {
  if (retryAfter === 0) return false;
  reply.header('retry-after', retryAfter);
  void reply.status(429).send(throttledAnswer(throttle, retryAfter));
  return true;
}
