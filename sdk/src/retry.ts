export interface RetryOptions {
  /** Retries after the first attempt (default 3). */
  maxRetries?: number;
  /** A Retry-After longer than this is not waited for: the response is returned (default 60 s). */
  maxDelayMs?: number;
  /** First back-off without a Retry-After, doubled each retry (default 500 ms). */
  baseDelayMs?: number;
  /** How to wait (tests pass one that moves a clock). */
  sleep?: (ms: number) => Promise<void>;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A fetch that retries, boundedly. 429 and 503 are refused before anything happened, so every
 * method is retried after the server's Retry-After. A lost connection, 502 or 504 may have
 * happened after the effect, so only idempotent methods and requests that carry an
 * Idempotency-Key (the server answers a repeat from its record) are retried, with back-off.
 */
export function retryingFetch(
  base: (request: Request) => Promise<Response>,
  options: RetryOptions = {},
): (request: Request) => Promise<Response> {
  const maxRetries = options.maxRetries ?? 3;
  const maxDelayMs = options.maxDelayMs ?? 60_000;
  const baseDelayMs = options.baseDelayMs ?? 500;
  const sleep = options.sleep ?? sleepFor;
  return async (request) => {
    const repeatable = SAFE_METHODS.has(request.method) || request.headers.has('idempotency-key');
    for (let attempt = 0; ; attempt++) {
      const backoffMs = baseDelayMs * 2 ** attempt;
      let response: Response;
      try {
        response = await base(request.clone());
      } catch (error) {
        if (attempt >= maxRetries || !repeatable || request.signal.aborted) throw error;
        await sleep(backoffMs);
        continue;
      }
      const delayMs = retryDelayMs(response, repeatable, backoffMs);
      if (attempt >= maxRetries || delayMs === null || delayMs > maxDelayMs) return response;
      await response.body?.cancel();
      await sleep(delayMs);
    }
  };
}

function retryDelayMs(response: Response, repeatable: boolean, backoffMs: number): number | null {
  if (response.status === 429 || response.status === 503) {
    return retryAfterMs(response.headers.get('retry-after')) ?? backoffMs;
  }
  if ((response.status === 502 || response.status === 504) && repeatable) return backoffMs;
  return null;
}

/** Retry-After as seconds or as an HTTP date; null when absent or unreadable. */
export function retryAfterMs(value: string | null, nowMs = Date.now()): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}
