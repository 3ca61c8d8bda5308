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
  row: { payload: string; expiresAt: string; now: string },
) {
  await db
    .insertInto('owner_challenges')
    .values({ payload: row.payload, expires_at: row.expiresAt, used_at: null, created_at: row.now })
    .execute();
}

/** Drops challenges that can no longer be used, so issuing them cannot grow the table without bound. */
export async function pruneOwnerChallenges(db: Executor, now: string): Promise<void> {
  await db
    .deleteFrom('owner_challenges')
    .where((eb) => eb.or([eb('expires_at', '<=', now), eb('used_at', 'is not', null)]))
    .execute();
}

export async function countOpenOwnerChallenges(db: Executor, now: string): Promise<number> {
  const row = await db
    .selectFrom('owner_challenges')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Uses a challenge once: compare-and-set on `used_at`, so of two sign-ins with one payload one wins. */
export async function consumeOwnerChallenge(db: Executor, payload: string, now: string): Promise<boolean> {
  const row = await db
    .updateTable('owner_challenges')
    .set({ used_at: now })
    .where('payload', '=', payload)
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
