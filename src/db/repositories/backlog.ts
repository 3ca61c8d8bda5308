import { sql } from 'kysely';
import type { Executor } from './executor.js';
import type { OutboxTable } from './outbox.js';

/**
 * Counts stop here, so a scrape stays one short index scan however large a backlog grows (a
 * gauge at the cap says "at least this many", which is all an alert needs).
 */
export const BACKLOG_COUNT_CAP = 100_000;

/**
 * One outbox table's pending rows (claimed ones included: they are pending until settled) and
 * the earliest `next_attempt_at` that is already due, if any. Both read the (status,
 * next_attempt_at) index every outbox table has.
 */
export async function outboxBacklog(
  db: Executor,
  table: OutboxTable,
  now: string,
): Promise<{ pending: number; oldestDueAt: string | null }> {
  const t = table as 'notifications';
  const counted = await db
    .selectFrom(
      db
        .selectFrom(t)
        .select(sql<number>`1`.as('one'))
        .where('status', '=', 'pending')
        .limit(BACKLOG_COUNT_CAP)
        .as('p'),
    )
    .select(sql<number>`count(*)`.as('n'))
    .executeTakeFirstOrThrow();
  const oldest = await db
    .selectFrom(t)
    .select(sql<string | null>`min(next_attempt_at)`.as('at'))
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .executeTakeFirst();
  return { pending: Number(counted.n), oldestDueAt: oldest?.at ?? null };
}

/** Payouts to workers not yet on chain (their chain transfer is pending; fees are left out). */
export async function pendingPayouts(db: Executor): Promise<number> {
  const counted = await db
    .selectFrom(
      db
        .selectFrom('chain_transfers as c')
        .innerJoin('transactions as t', 't.id', 'c.txn_id')
        .select(sql<number>`1`.as('one'))
        .where('c.status', '=', 'pending')
        .where('t.type', '=', 'PAYOUT')
        .limit(BACKLOG_COUNT_CAP)
        .as('p'),
    )
    .select(sql<number>`count(*)`.as('n'))
    .executeTakeFirstOrThrow();
  return Number(counted.n);
}
