import type { Selectable } from 'kysely';
import type { Database } from '../schema.js';
import type { Executor } from './executor.js';

export type IdempotencyKeyRow = Selectable<Database['idempotency_keys']>;

export async function findIdempotencyKey(
  db: Executor,
  scope: string,
  key: string,
): Promise<IdempotencyKeyRow | undefined> {
  const row = await db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('scope', '=', scope)
    .where('key', '=', key)
    .executeTakeFirst();
  // SQLite hands integers back as bigint (safe integers are on); a status code is small.
  return (
    row && { ...row, response_status: row.response_status === null ? null : Number(row.response_status) }
  );
}

export async function insertIdempotencyKey(db: Executor, row: IdempotencyKeyRow): Promise<void> {
  await db.insertInto('idempotency_keys').values(row).execute();
}

export async function deleteIdempotencyKey(db: Executor, scope: string, key: string): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('scope', '=', scope).where('key', '=', key).execute();
}

/** Takes over a running key whose holder's lock expired: compare-and-set on the old token. */
export async function relockIdempotencyKey(
  db: Executor,
  row: { scope: string; key: string; oldToken: string | null; token: string; lockedUntil: string },
): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_keys')
    .set({ lock_token: row.token, locked_until: row.lockedUntil })
    .where('scope', '=', row.scope)
    .where('key', '=', row.key)
    .where('status', '=', 'running')
    .where('lock_token', row.oldToken === null ? 'is' : '=', row.oldToken)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Marks the key done with its response, only if this attempt still holds it (compare-and-set on
 * the token), so of two attempts that both ran their effect exactly one can commit.
 */
export async function completeIdempotencyKey(
  db: Executor,
  row: { scope: string; key: string; token: string; status: number; body: string },
): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_keys')
    .set({
      status: 'done',
      lock_token: null,
      locked_until: null,
      response_status: row.status,
      response_body: row.body,
    })
    .where('scope', '=', row.scope)
    .where('key', '=', row.key)
    .where('status', '=', 'running')
    .where('lock_token', '=', row.token)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Replaces the stored response of a done key (the effect's final answer after its commit). */
export async function updateIdempotentResponse(
  db: Executor,
  row: { scope: string; key: string; status: number; body: string },
): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ response_status: row.status, response_body: row.body })
    .where('scope', '=', row.scope)
    .where('key', '=', row.key)
    .where('status', '=', 'done')
    .execute();
}

/** Releases a running key whose request failed (nothing committed), so the caller may retry it. */
export async function releaseIdempotencyKey(
  db: Executor,
  row: { scope: string; key: string; token: string },
): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('scope', '=', row.scope)
    .where('key', '=', row.key)
    .where('status', '=', 'running')
    .where('lock_token', '=', row.token)
    .execute();
}

/** Drops expired keys; returns how many went. */
export async function purgeExpiredIdempotencyKeys(db: Executor, now: string): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
