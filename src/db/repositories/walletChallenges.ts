import type { Executor, WalletChallengeRow } from './executor.js';

export async function insertWalletChallenge(db: Executor, row: WalletChallengeRow): Promise<void> {
  await db.insertInto('wallet_challenges').values(row).execute();
}

/**
 * Keeps a worker's challenges bounded: drops the used and expired ones and all but the newest
 * `keepOpen` still open, so asking again and again cannot grow the table.
 */
export async function pruneWalletChallenges(
  db: Executor,
  workerId: string,
  now: string,
  keepOpen: number,
): Promise<void> {
  await db
    .deleteFrom('wallet_challenges')
    .where('worker_id', '=', workerId)
    .where('payload', 'not in', (eb) =>
      eb
        .selectFrom('wallet_challenges')
        .select('payload')
        .where('worker_id', '=', workerId)
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .orderBy('created_at', 'desc')
        .orderBy('payload', 'desc')
        .limit(keepOpen),
    )
    .execute();
}

/**
 * Uses the worker's challenge once: compare-and-set on `used_at`, so of two requests with the
 * same payload exactly one gets the row back, on SQLite and PostgreSQL alike.
 */
export function consumeWalletChallenge(
  db: Executor,
  payload: string,
  workerId: string,
  now: string,
): Promise<WalletChallengeRow | undefined> {
  return db
    .updateTable('wallet_challenges')
    .set({ used_at: now })
    .where('payload', '=', payload)
    .where('worker_id', '=', workerId)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returningAll()
    .executeTakeFirst();
}

export function findWalletChallenge(
  db: Executor,
  payload: string,
  workerId: string,
): Promise<WalletChallengeRow | undefined> {
  return db
    .selectFrom('wallet_challenges')
    .selectAll()
    .where('payload', '=', payload)
    .where('worker_id', '=', workerId)
    .executeTakeFirst();
}
