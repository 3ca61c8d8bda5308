import type { ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Clock } from '../domain/clock.js';

export type Bucket = 'standard' | 'chat' | 'upload';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Which per-key limit a route counts against; standard when absent. */
    rateLimit?: Bucket;
  }
}

export interface Hit {
  count: number;
  resetAtMs: number;
}

/**
 * Counts requests per key in fixed windows that start with a key's first request. The in-memory
 * store serves one instance; the Redis store (src/redis/rateLimitStore.ts) counts once for all.
 */
export interface RateLimitStore {
  /** A store in this process answers at once; one over the network (Redis) with a promise. */
  hit(key: string, windowMs: number, nowMs: number): Hit | Promise<Hit>;
  /** The key's current window without counting a hit: null when it has none (or it has ended). */
  peek(key: string, windowMs: number, nowMs: number): Hit | null | Promise<Hit | null>;
}

const SWEEP_AT_ENTRIES = 10_000;

/** Counts in this process; windows of different lengths (rate limits, the auth throttle) can share it. */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly windows = new Map<string, { endMs: number; count: number }>();

  hit(key: string, windowMs: number, nowMs: number): Hit {
    let entry = this.windows.get(key);
    if (!entry || nowMs >= entry.endMs) {
      if (this.windows.size >= SWEEP_AT_ENTRIES) this.sweep(nowMs);
      entry = { endMs: nowMs + windowMs, count: 0 };
      this.windows.set(key, entry);
    }
    entry.count++;
    return { count: entry.count, resetAtMs: entry.endMs };
  }

  peek(key: string, _windowMs: number, nowMs: number): Hit | null {
    const entry = this.windows.get(key);
    return entry && nowMs < entry.endMs ? { count: entry.count, resetAtMs: entry.endMs } : null;
  }

  /** Bounds memory: forget windows that have ended. */
  private sweep(nowMs: number): void {
    for (const [key, entry] of this.windows) if (nowMs >= entry.endMs) this.windows.delete(key);
  }
}

export const WINDOW_MS = 60_000;

export interface RateLimits {
  store: RateLimitStore;
  clock: Clock;
  limits: Record<Bucket, number>;
  /** Told of each refused request, by bucket (handoff_rate_limited_total). */
  onLimited?: (bucket: string) => void;
}

export interface Counted {
  limit: number;
  remaining: number;
  /** Seconds until the window resets (at least 1). */
  resetS: number;
  exceeded: boolean;
  /** What a refused caller is told; set when exceeded. */
  message: string;
}

/**
 * Counts one request of `key` (e.g. `agent:agt_...`) against `bucket`. REST routes and MCP tool
 * calls both count here, so an agent has one budget per bucket whichever way it calls.
 */
export function countRequest(options: RateLimits, bucket: Bucket, key: string): Counted | Promise<Counted> {
  return countIn(options, bucket, options.limits[bucket], `${bucket} requests`, key);
}

/**
 * Counts one POST /mcp of `key` when it arrives, before its body is read: which buckets its
 * messages count in is known only once it is parsed, so a key past its limits would otherwise
 * have every body read and parsed before its 429. The limit is the three buckets' together,
 * the most messages a key can have served in a minute, so it refuses only a key that keeps
 * sending what its buckets refuse.
 */
export function countMcpRequest(options: RateLimits, key: string): Counted | Promise<Counted> {
  const { standard, chat, upload } = options.limits;
  const what = 'MCP requests (your standard, chat and upload limits together)';
  return countIn(options, 'mcp', standard + chat + upload, what, key);
}

function countIn(
  options: RateLimits,
  name: string,
  limit: number,
  what: string,
  key: string,
): Counted | Promise<Counted> {
  const nowMs = options.clock.now().getTime();
  const hit = options.store.hit(`${name}:${key}`, WINDOW_MS, nowMs);
  const tell = (c: Counted) => {
    if (c.exceeded) options.onLimited?.(name);
    return c;
  };
  // No promise when the store answered at once: this runs on every authenticated request.
  return hit instanceof Promise
    ? hit.then((h) => tell(counted(what, limit, nowMs, h)))
    : tell(counted(what, limit, nowMs, hit));
}

function counted(what: string, limit: number, nowMs: number, { count, resetAtMs }: Hit): Counted {
  const resetS = Math.max(1, Math.ceil((resetAtMs - nowMs) / 1000));
  const exceeded = count > limit;
  return {
    limit,
    remaining: Math.max(0, limit - count),
    resetS,
    exceeded,
    // Only a refusal says it: the text is built for the few requests that get it.
    message: exceeded ? `At most ${limit} ${what} per minute per key; retry in ${resetS} s` : '',
  };
}

/** X-RateLimit-Limit/Remaining/Reset of a count, on the raw response (so hijacked replies carry them too). */
export function setRateLimitHeaders(response: ServerResponse, counted: Counted): void {
  response.setHeader('x-ratelimit-limit', counted.limit);
  response.setHeader('x-ratelimit-remaining', counted.remaining);
  response.setHeader('x-ratelimit-reset', counted.resetS);
}

/**
 * Per-key limits with X-RateLimit-Limit/Remaining/Reset on every authenticated response and a
 * 429 with Retry-After beyond the limit. Runs after the auth hook, which sets the key.
 */
export function rateLimitHook(options: RateLimits & { keyOf: (request: FastifyRequest) => string }) {
  // A callback hook: with the in-memory store it finishes without a promise.
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const bucket = request.routeOptions.config.rateLimit ?? 'standard';
    const result = countRequest(options, bucket, options.keyOf(request));
    if (result instanceof Promise) result.then((c) => applyCount(c, reply, done), done);
    else applyCount(result, reply, done);
  };
}

/** Headers on every answer; past the limit a 429 (and the hook chain stops: no `done`). */
export function applyCount(counted: Counted, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  setRateLimitHeaders(reply.raw, counted);
  if (!counted.exceeded) {
    done();
    return;
  }
  reply.header('retry-after', counted.resetS);
  void reply.status(429).send({
    error: 'Rate limit exceeded',
    retryAfter: counted.resetS,
    message: counted.message,
  });
}
