import { type Hit, MemoryRateLimitStore, type RateLimitStore } from '../http/rateLimit.js';
import type { RedisLink } from './link.js';

/**
 * One window of one key, counted atomically in one script: the window starts at the key's first
 * hit (the caller's clock, as the in-memory store does, so both stores behave alike and tests can
 * move time) and the key expires with its window, so nothing accumulates. Returns the count and
 * the window's start (as stored).
 */
const HIT_SCRIPT = `
local start = redis.call('HGET', KEYS[1], 's')
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
if (not start) or now >= tonumber(start) + window then
  redis.call('HSET', KEYS[1], 's', ARGV[1], 'c', 1)
  redis.call('PEXPIRE', KEYS[1], window)
  return {1, ARGV[1]}
end
return {redis.call('HINCRBY', KEYS[1], 'c', 1), start}
`;

type HitCommand = (key: string, nowMs: number, windowMs: number) => Promise<[number, string]>;

/**
 * Rate limits (and the failed-authentication throttle) counted once for every instance. While
 * Redis does not answer, each instance counts in its own memory: limits then hold per instance
 * (N instances allow up to N times each) rather than not at all, and requests never wait on Redis
 * for longer than one command timeout (see RedisLink and docs/decisions/several-instances-redis.md).
 */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly fallback = new MemoryRateLimitStore();
  private readonly command: HitCommand;

  constructor(private readonly link: RedisLink) {
    link.client.defineCommand('handoffHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
    const client = link.client as unknown as { handoffHit: HitCommand };
    this.command = client.handoffHit.bind(client);
  }

  hit(key: string, windowMs: number, nowMs: number): Hit | Promise<Hit> {
    if (!this.link.usable()) return this.fallback.hit(key, windowMs, nowMs);
    return this.command(`${this.link.prefix}limit:${key}`, nowMs, windowMs).then(
      ([count, start]) => {
        this.link.succeeded();
        return { count: Number(count), resetAtMs: Number(start) + windowMs };
      },
      (error) => {
        this.link.failed(error);
        return this.fallback.hit(key, windowMs, nowMs);
      },
    );
  }

  peek(key: string, windowMs: number, nowMs: number): Hit | null | Promise<Hit | null> {
    if (!this.link.usable()) return this.fallback.peek(key, windowMs, nowMs);
    return this.link.client.hmget(`${this.link.prefix}limit:${key}`, 's', 'c').then(
      ([start, count]) => {
        this.link.succeeded();
        // The window is judged by the caller's clock, as in HIT_SCRIPT.
        if (start === null || count === null || nowMs >= Number(start) + windowMs) return null;
        return { count: Number(count), resetAtMs: Number(start) + windowMs };
      },
      (error) => {
        this.link.failed(error);
        return this.fallback.peek(key, windowMs, nowMs);
      },
    );
  }
}
