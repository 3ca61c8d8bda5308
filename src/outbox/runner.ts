import type { Executor } from '../db/repositories/executor.js';
import { claimDue, settleClaimed } from '../db/repositories/outbox.js';
import type { Clock } from '../domain/clock.js';
import { clipText } from '../domain/text.js';
import { inTransaction } from '../domain/transaction.js';
import type { DueRow, OutboxKind, Outcome } from './kind.js';

/**
 * A claim outlives the attempt's own time-out by this, so no other instance starts it meanwhile.
 * Short, because it is also how long work cut off by a crash waits before another try: an attempt
 * that still overruns it is harmless (its outcome is not recorded, the settle is a compare-and-set
 * on the lease, and every kind's attempt is safe to repeat).
 */
export const LEASE_MARGIN_MS = 5_000;
const MAX_ERROR_LENGTH = 500;

export interface OutboxContext {
  db: Executor;
  clock: Clock;
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
  const due = await kind.listDue(ctx.db, ctx.clock.now().toISOString(), kind.policy.batch);
  let next = 0;
  const slot = async () => {
    while (next < due.length) await attemptRow(ctx, kind, due[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(kind.policy.parallel, due.length) }, slot));
  return due.length;
}

/**
 * Claims one due row (compare-and-set, so among instances only one attempts it), attempts it,
 * and records the outcome while the claim still holds: done, pending again after the policy's
 * delay, or failed once the attempts are spent or the outcome is final (with the kind's `onDone`
 * or `onFailed` in the same transaction).
 */
export async function attemptRow<Row extends DueRow, Result>(
  ctx: OutboxContext,
  kind: OutboxKind<Row, Result>,
  row: Row,
): Promise<void> {
  const started = ctx.clock.now();
  if (kind.settleUnattemptedAs) {
    await settleClaimed(ctx.db, kind.table, row.id, row.next_attempt_at, {
      status: kind.settleUnattemptedAs,
      updated_at: started.toISOString(),
    });
    return;
  }
  const { policy } = kind;
  const attempts = row.attempts + 1;
  const leaseUntil = new Date(started.getTime() + kind.attemptTimeoutMs + LEASE_MARGIN_MS).toISOString();
  const listed = { nextAttemptAt: row.next_attempt_at, attempts: row.attempts };
  const claimed = await claimDue(ctx.db, kind.table, row.id, listed, {
    leaseUntil,
    now: started.toISOString(),
    attempts: policy.countAttempt === 'claimed' ? attempts : undefined,
  });
  if (!claimed) return;
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
      outcome.columns,
    );
  const { onDone, onFailed } = kind;
  const alongside: ((trx: Executor) => Promise<void>) | undefined = outcome.ok
    ? onDone && ((trx) => onDone(trx, row, outcome.result))
    : failed
      ? onFailed && ((trx) => onFailed(trx, row))
      : undefined;
  if (!alongside) {
    await settle(ctx.db);
    return;
  }
  await inTransaction(ctx.db, async (trx) => {
    if (await settle(trx)) await alongside(trx);
  });
}
