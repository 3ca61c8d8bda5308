/** Injected everywhere time matters (deadlines, caches) so tests move time instead of waiting. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock tests can set and advance. */
export class ManualClock implements Clock {
  private current: number;
  constructor(start: Date = new Date()) {
    this.current = start.getTime();
  }
  now(): Date {
    return new Date(this.current);
  }
  advance(ms: number): void {
    this.current += ms;
  }
  set(date: Date): void {
    this.current = date.getTime();
  }
}

/** Timestamps are stored as fixed-width ISO-8601 UTC text so they sort the same on both databases. */
export const iso = (date: Date): string => date.toISOString();
