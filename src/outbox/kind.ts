import type { Executor } from '../db/repositories/executor.js';
import type { OutboxTable } from '../db/repositories/outbox.js';

/** What every due row carries, whatever its kind: enough to claim it and count its attempt. */
export interface DueRow {
  id: string;
  attempts: number;
  next_attempt_at: string;
}

/** When a kind gives up, how long it waits between attempts, and how much it takes on at once. */
export interface RetryPolicy {
  /** Rows taken per pass, and attempts in flight at once within a pass. */
  batch: number;
  parallel: number;
  /** Attempts in all, the first included; `Infinity` for work that is never abandoned. */
  maxAttempts: number;
  /** The wait after the `attempts`-th attempt failed. */
  delayMs(attempts: number): number;
  /**
   * When an attempt counts. `claimed`: at the claim, so a crash mid-attempt uses one up and a
   * claimed row is visibly in progress (a notification takes no more batched messages once
   * claimed). `recorded`: with its outcome, so only answered attempts count (a webhook's crash
   * mid-attempt does not eat one of the agent's retries).
   */
  countAttempt: 'claimed' | 'recorded';
}

/**
 * A policy of the first attempt plus one retry per listed wait (the n-th failure waits
 * `delays[n - 1]`); the attempt after the last wait is the last.
 */
export function listedPolicy(
  delays: readonly number[],
  rest: Pick<RetryPolicy, 'countAttempt' | 'batch' | 'parallel'>,
): RetryPolicy {
  return { ...rest, maxAttempts: delays.length + 1, delayMs: (attempts) => delays[attempts - 1] ?? 0 };
}

/**
 * How one attempt went; `final` when no retry can help (a refused address, a blocked bot).
 * `result` is what a success hands to the kind's `onDone` (a chain transfer's hash).
 */
export type Outcome<Result = undefined> =
  | { ok: true; columns?: Record<string, string | number | null>; result?: Result }
  | {
      ok: false;
      error: string;
      final?: boolean;
      /** The receiver asked for at least this wait (Telegram's retry_after). */
      retryAfterMs?: number;
      columns?: Record<string, string | number | null>;
    };

/**
 * One kind of background work. The runner owns claiming, attempt counting, retry timing and
 * recording; a kind says where its rows are, which are due, and how one attempt is made.
 */
export interface OutboxKind<Row extends DueRow, Result = undefined> {
  /** For logs: "webhook delivery". */
  name: string;
  table: OutboxTable;
  policy: RetryPolicy;
  /** The status a successful attempt leaves (`delivered`, `sent`). */
  doneStatus: string;
  /** The status a given-up row is left in; `failed` unless set (a batch ends `expired`). */
  failedStatus?: string;
  /** The longest one attempt can take; a claim holds its row for this plus a margin. */
  attemptTimeoutMs: number;
  /** Pending rows due at `now`, oldest first. */
  listDue(db: Executor, now: string, limit: number): Promise<Row[]>;
  /**
   * Claims a listed row for one attempt; returns whether this caller won it. Unset: the row
   * alone decides (`claimDue`). Webhooks also weigh the work in flight (fair shares).
   */
  claim?(
    db: Executor,
    row: Row,
    listed: { nextAttemptAt: string; attempts: number },
    claim: { leaseUntil: string; now: string },
  ): Promise<boolean>;
  /** Written with every recorded outcome besides the claim columns (a claim's own marks cleared). */
  settledColumns?: Record<string, null>;
  /** Makes one attempt of a claimed row. A throw counts as a failed attempt. */
  attempt(row: Row): Promise<Outcome<Result>>;
  /**
   * What a success writes besides the row's own status (a payout's ledger confirmation, its
   * event and notification): run in one transaction with the settling compare-and-set, and only
   * when that wrote, so an attempt that outlived its claim records nothing twice.
   */
  onDone?(trx: Executor, row: Row, result: Result | undefined): Promise<void>;
  /**
   * What giving a row up writes besides its status (an expired batch releases its transfers to
   * be batched again): like `onDone`, in the settling transaction and only when that wrote.
   */
  onFailed?(trx: Executor, row: Row): Promise<void>;
  /**
   * When set, due rows are not attempted but settled with this status, uncounted (no bot token:
   * notifications are only recorded for the operator).
   */
  settleUnattemptedAs?: string;
}

/**
 * What one attempt came to, as recorded: `done` (the kind's done status), `retry` (failed, due
 * again after `retryInMs`), `failed` (given up), `recorded` (settled unattempted: no bot), or
 * `superseded` (the attempt outlived its claim and another runner holds the row: nothing written).
 */
export interface AttemptReport {
  kind: string;
  table: OutboxTable;
  id: string;
  /** This attempt's number, the first being 1. */
  attempt: number;
  outcome: 'done' | 'retry' | 'failed' | 'recorded' | 'superseded';
  error?: string;
  retryInMs?: number;
}

/** Told of every attempt's outcome (logs and metrics); must not throw. */
export type AttemptObserver = (report: AttemptReport) => void;
