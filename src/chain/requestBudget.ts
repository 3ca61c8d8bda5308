/**
 * One request budget shared by every call to the TON API provider (the public toncenter allows
 * about 1 request/s without a key and 10 with one). Calls wait for their slot instead of failing,
 * and a 429 from the provider pauses the whole budget for its Retry-After, so no code path can
 * hammer the provider however many loops run.
 */
export class RequestBudget {
  private nextSlotAt = 0;
  private pausedUntil = 0;
  private readonly intervalMs: number;
  /** Requests made through this budget (reported by the benchmark and GET /admin/chain). */
  requests = 0;

  constructor(
    requestsPerSecond: number,
    private readonly now: () => number = Date.now,
  ) {
    if (!(requestsPerSecond > 0)) throw new Error('the request budget must allow more than 0 requests/s');
    this.intervalMs = 1000 / requestsPerSecond;
  }

  /** Resolves when the caller may send one request. */
  async take(): Promise<void> {
    const now = this.now();
    const slot = Math.max(now, this.nextSlotAt, this.pausedUntil);
    this.nextSlotAt = slot + this.intervalMs;
    this.requests += 1;
    if (slot > now) await new Promise((resolve) => setTimeout(resolve, slot - now));
  }

  /** The provider said 429: nobody sends before `ms` from now. */
  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.now() + ms);
  }
}

/** Retry-After in milliseconds (seconds or an HTTP date), bounded; `fallbackMs` when absent. */
export function retryAfterMs(header: string | null, fallbackMs: number, maxMs = 60_000): number {
  if (!header) return fallbackMs;
  const seconds = Number(header);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - Date.now();
  if (!Number.isFinite(ms) || ms < 0) return fallbackMs;
  return Math.min(ms, maxMs);
}
