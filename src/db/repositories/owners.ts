import type { Executor, OwnerRow, OwnerSessionRow } from './executor.js';

/** The owner with this wallet, created on first sign-in; the sign-in time is refreshed. */
export async function upsertOwner(db: Executor, row: { id: string; walletAddress: string; now: string }) {
  await db
    .insertInto('owners')
    .values({ id: row.id, wallet_address: row.walletAddress, created_at: row.now, last_sign_in_at: row.now })
    .onConflict((oc) => oc.column('wallet_address').doUpdateSet({ last_sign_in_at: row.now }))
    .execute();
  return db
    .selectFrom('owners')
    .selectAll()
    .where('wallet_address', '=', row.walletAddress)
    .executeTakeFirstOrThrow();
}

export function findOwner(db: Executor, id: string): Promise<OwnerRow | undefined> {
  return db.selectFrom('owners').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertOwnerChallenge(
  db: Executor,
  row: { payload: string; expiresAt: string; now: string; client: string; browserHash: string },
) {
  await db
    .insertInto('owner_challenges')
    .values({
      payload: row.payload,
      expires_at: row.expiresAt,
      used_at: null,
      created_at: row.now,
      client: row.client,
      browser_hash: row.browserHash,
    })
    .execute();
}

/** Drops challenges that can no longer be used, so issuing them cannot grow the table without bound. */
export async function pruneOwnerChallenges(db: Executor, now: string): Promise<void> {
  await db
    .deleteFrom('owner_challenges')
    .where((eb) => eb.or([eb('expires_at', '<=', now), eb('used_at', 'is not', null)]))
    .execute();
}

/** Drops a browser's open challenges: it asked for a new one, which replaces them. */
export async function deleteBrowserChallenges(db: Executor, browserHash: string): Promise<void> {
  await db
    .deleteFrom('owner_challenges')
    .where('browser_hash', '=', browserHash)
    .where('used_at', 'is', null)
    .execute();
}

/** Open challenges in all, or of one client; with the oldest one's expiry (null when none). */
export async function countOpenOwnerChallenges(
  db: Executor,
  now: string,
  client?: string,
): Promise<{ count: number; oldestExpiresAt: string | null }> {
  let query = db
    .selectFrom('owner_challenges')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('expires_at').as('oldest')])
    .where('used_at', 'is', null)
    .where('expires_at', '>', now);
  if (client !== undefined) query = query.where('client', '=', client);
  const row = await query.executeTakeFirstOrThrow();
  return { count: Number(row.n), oldestExpiresAt: (row.oldest as string | null) ?? null };
}

/** Deletes the oldest open challenge of the client holding the most; false when there is none. */
export async function evictFromHeaviestClient(db: Executor, now: string): Promise<boolean> {
  const heaviest = await db
    .selectFrom('owner_challenges')
    .select('client')
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .groupBy('client')
    .orderBy((eb) => eb.fn.countAll(), 'desc')
    .orderBy('client')
    .limit(1)
    .executeTakeFirst();
  if (!heaviest) return false;
  const oldest = await db
    .selectFrom('owner_challenges')
    .select('payload')
    .where('client', '=', heaviest.client)
    .where('used_at', 'is', null)
    .orderBy('created_at')
    .orderBy('payload')
    .limit(1)
    .executeTakeFirst();
  if (!oldest) return false;
  await db.deleteFrom('owner_challenges').where('payload', '=', oldest.payload).execute();
  return true;
}

/**
 * Uses a challenge once, presented by the browser it was issued to: compare-and-set on
 * `used_at`, so of two sign-ins with one payload one wins.
 */
export async function consumeOwnerChallenge(
  db: Executor,
  payload: string,
  browserHash: string,
  now: string,
): Promise<boolean> {
  const row = await db
    .updateTable('owner_challenges')
    .set({ used_at: now })
    .where('payload', '=', payload)
    .where('browser_hash', '=', browserHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('payload')
    .executeTakeFirst();
  return row !== undefined;
}

export function findOwnerChallenge(db: Executor, payload: string) {
  return db.selectFrom('owner_challenges').selectAll().where('payload', '=', payload).executeTakeFirst();
}

export async function insertOwnerSession(db: Executor, row: OwnerSessionRow): Promise<void> {
  await db.insertInto('owner_sessions').values(row).execute();
}

/** A live session with its owner's wallet, or undefined (unknown or expired). */
export function findLiveOwnerSession(db: Executor, tokenHash: string, now: string) {
  return db
    .selectFrom('owner_sessions')
    .innerJoin('owners', 'owners.id', 'owner_sessions.owner_id')
    .select([
      'owner_sessions.owner_id',
      'owner_sessions.csrf_token',
      'owner_sessions.expires_at',
      'owners.wallet_address',
    ])
    .where('owner_sessions.token_hash', '=', tokenHash)
    .where('owner_sessions.expires_at', '>', now)
    .executeTakeFirst();
}

export async function deleteOwnerSession(db: Executor, tokenHash: string): Promise<void> {
  await db.deleteFrom('owner_sessions').where('token_hash', '=', tokenHash).execute();
}

/** Removes an owner's expired sessions and all but the newest `keep` live ones. */
export async function pruneOwnerSessions(db: Executor, ownerId: string, now: string, keep: number) {
  await db
    .deleteFrom('owner_sessions')
    .where('owner_id', '=', ownerId)
    .where((eb) =>
      eb.or([
        eb('expires_at', '<=', now),
        eb(
          'token_hash',
          'not in',
          eb
            .selectFrom('owner_sessions')
            .select('token_hash')
            .where('owner_id', '=', ownerId)
            .where('expires_at', '>', now)
            .orderBy('created_at', 'desc')
            .orderBy('token_hash', 'desc')
            .limit(keep),
        ),
      ]),
    )
    .execute();
}
