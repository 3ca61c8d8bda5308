import type { Executor } from '../db/repositories/executor.js';
import { claimDue, settleClaimed } from '../db/repositories/outbox.js';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import type { Clock } from '../domain/clock.js';
import { clipText } from '../domain/text.js';
import { inTransaction } from '../domain/transaction.js';
import type { AttemptObserver, DueRow, OutboxKind, Outcome } from './kind.js';

/**
 * A claim outlives the attempt's own time-out by this, so no other instance starts it meanwhile.
 * Short, because it is also how long work cut off by a crash waits before another try: an attempt
 * that still overruns it is harmless (its outcome is not recorded, the settle is a compare-and-set
 * on the lease, and every kind's attempt is safe to repeat).
 */
export const LEASE_MARGIN_MS = 5_000;
const MAX_ERROR_LENGTH = 500;
/** How long an attempt's outcome is kept trying to reach a database that went away meanwhile. */
export const SETTLE_RETRY_WINDOW_MS = 30_000;
const SETTLE_RETRY_MS = 250;

/**
 * Runs `write` again while it fails because the database is away, for up to
 * SETTLE_RETRY_WINDOW_MS. An attempt made (a webhook received, a message sent) whose outcome
 * could not be recorded would otherwise be made again once its claim lapsed; the write is a
 * compare-and-set on the claim, so repeating it (even after a commit whose answer was lost) never
 * records anything twice.
 */
async function whileDatabaseAway<T>(write: () => Promise<T>): Promise<T> {
  const giveUpAt = Date.now() + SETTLE_RETRY_WINDOW_MS;
  for (;;) {
    try {
      return await write();
    } catch (error) {
      if (!isDatabaseUnavailable(error) || Date.now() >= giveUpAt) throw error;
      await new Promise((resolve) => setTimeout(resolve, SETTLE_RETRY_MS));
    }
  }
}

export interface OutboxContext {
  db: Executor;
  clock: Clock;
  /** Told of each attempt's recorded outcome (the app logs and counts them). */
  observeAttempt?: AttemptObserver;
}

/**
 * One pass over a kind: lists up to a batch of due rows and attempts each once, with up to
 * `parallel` attempts in flight (a pool, so a slow receiver holds one slot, not a group).
 * Returns how many rows were due, so the caller can poll again at once after a full batch.
 */
export async function runDue<Row extends DueRow, Result>(
  ctx: OutboxContext,
  kind: OutboxKind<Row, Result>,
): Promise<number> {
  return (await runPass(ctx, kind)).due;
}

/** `runDue`, also telling how many of the due rows this pass claimed and attempted. */
export async function runPass<Row extends DueRow, Result>(
  ctx: OutboxContext,
  kind: OutboxKind<Row, Result>,
): Promise<{ due: number; attempted: number }> {
  const due = await kind.listDue(ctx.db, ctx.clock.now().toISOString(), kind.policy.batch);
  let next = 0;
  let attempted = 0;
  const slot = async () => {
    while (next < due.length) if (await attemptRow(ctx, kind, due[next++]!)) attempted++;
  };
  await Promise.all(Array.from({ length: Math.min(kind.policy.parallel, due.length) }, slot));
  return { due: due.length, attempted };
}

/**
 * A runner that does not wait for its attempts: each `tick` lists what fits in its free slots,
 * claims it and starts the attempts, so rows that become due while a slow receiver holds some
 * slots are claimed at the next tick rather than after the slowest attempt of a pass. `stop`
 * waits for the attempts in flight. `makeKind` is called per tick (a kind may cache per pass).
 */
export function startPump<Row extends DueRow, Result>(
  ctx: OutboxContext,
  makeKind: () => OutboxKind<Row, Result>,
  slots: number,
  onError: (error: unknown) => void,
) {
  const inFlight = new Set<Promise<void>>();
  return {
    /** Returns how many attempts it started. */
    async tick(): Promise<number> {
      const free = slots - inFlight.size;
      if (free <= 0) return 0;
      const kind = makeKind();
      const due = await kind.listDue(
        ctx.db,
        ctx.clock.now().toISOString(),
        Math.min(kind.policy.batch, free),
      );
      let started = 0;
      for (const row of due) {
        const claim = await claimRow(ctx, kind, row);
        if (!claim) continue;
        started++;
        const run: Promise<void> = recordAttempt(ctx, kind, row, claim)
          .catch(onError)
          .finally(() => inFlight.delete(run));
        inFlight.add(run);
      }
      return started;
    },
    inFlight: () => inFlight.size,
    async stop(): Promise<void> {
      await Promise.all(inFlight);
    },
  };
}

interface Claim {
  started: Date;
  leaseUntil: string;
}

/**
 * Claims one due row (compare-and-set, so among instances only one attempts it), attempts it,
 * and records the outcome while the claim still holds: done, pending again after the policy's
 * delay, or failed once the attempts are spent or the outcome is final (with the kind's `onDone`
 * or `onFailed` in the same transaction). Returns whether this caller claimed the row.
 */
export async function attemptRow<Row extends DueRow, Result>(
  ctx: OutboxContext,
  kind: OutboxKind<Row, Result>,
  row: Row,
): Promise<boolean> {
  if (kind.settleUnattemptedAs) {
    const settled = await settleClaimed(ctx.db, kind.table, row.id, row.next_attempt_at, {
      status: kind.settleUnattemptedAs,
      updated_at: ctx.clock.now().toISOString(),
    });
    if (settled) {
      ctx.observeAttempt?.({
        kind: kind.name,
        table: kind.table,
        id: row.id,
        attempt: 0,
        outcome: 'recorded',
      });
    }
    return settled;
  }
  const claim = await claimRow(ctx, kind, row);
  if (!claim) return false;
  await recordAttempt(ctx, kind, row, claim);
  return true;
}

/** Takes the row for one attempt: pushes it to its lease (the kind's own claim, if it has one). */
async function claimRow<Row extends DueRow, Result>(
  ctx: OutboxContext,
  kind: OutboxKind<Row, Result>,
  row: Row,
): Promise<Claim | null> {
  const started = ctx.clock.now();
  const leaseUntil = new Date(started.getTime() + kind.attemptTimeoutMs + LEASE_MARGIN_MS).toISOString();
  const listed = { nextAttemptAt: row.next_attempt_at, attempts: row.attempts };
  const now = started.toISOString();
  const claimed = kind.claim
    ? await kind.claim(ctx.db, row, listed, { leaseUntil, now })
    : await claimDue(ctx.db, kind.table, row.id, listed, {
        leaseUntil,
        now,
        attempts: kind.policy.countAttempt === 'claimed' ? row.attempts + 1 : undefined,
      });
  return claimed ? { started, leaseUntil } : null;
}

/** Makes the claimed row's attempt and records its outcome while the claim holds. */
async function recordAttempt<Row extends DueRow, Result>(
  ctx: OutboxContext,
  kind: OutboxKind<Row, Result>,
  row: Row,
  { leaseUntil }: Claim,
): Promise<void> {
  const { policy } = kind;
  const attempts = row.attempts + 1;
  const outcome = await kind.attempt(row).catch(
    (error: unknown): Outcome<Result> => ({
      ok: false,
      error: `attempt failed: ${(error as Error).message}`,
    }),
  );
  const now = ctx.clock.now();
  const failed = !outcome.ok && (outcome.final === true || attempts >= policy.maxAttempts);
  const waitMs = outcome.ok || failed ? 0 : Math.max(policy.delayMs(attempts), outcome.retryAfterMs ?? 0);
  const settle = (db: Executor) =>
    settleClaimed(
      db,
      kind.table,
      row.id,
      leaseUntil,
      {
        status: outcome.ok ? kind.doneStatus : failed ? (kind.failedStatus ?? 'failed') : 'pending',
        attempts,
        next_attempt_at: new Date(now.getTime() + waitMs).toISOString(),
        last_error: outcome.ok ? null : clipText(outcome.error, MAX_ERROR_LENGTH),
        updated_at: now.toISOString(),
      },
      { ...kind.settledColumns, ...outcome.columns },
    );
  const { onDone, onFailed } = kind;
  const alongside: ((trx: Executor) => Promise<void>) | undefined = outcome.ok
    ? onDone && ((trx) => onDone(trx, row, outcome.result))
    : failed
      ? onFailed && ((trx) => onFailed(trx, row))
      : undefined;
  const written = await whileDatabaseAway(() =>
    alongside
      ? inTransaction(ctx.db, async (trx) => {
          const settled = await settle(trx);
          if (settled) await alongside(trx);
          return settled;
        })
      : settle(ctx.db),
  );
  ctx.observeAttempt?.({
    kind: kind.name,
    table: kind.table,
    id: row.id,
    attempt: attempts,
    outcome: !written ? 'superseded' : outcome.ok ? 'done' : failed ? 'failed' : 'retry',
    ...(outcome.ok ? {} : { error: outcome.error }),
    ...(written && !outcome.ok && !failed ? { retryInMs: waitMs } : {}),
  });
}
