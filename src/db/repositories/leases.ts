import { type Insertable, PostgresAdapter, type Selectable } from 'kysely';
import type { Database } from '../schema.js';
import type { Executor } from './executor.js';

export type LeaseRow = Selectable<Database['leases']>;

export function readLease(db: Executor, name: string): Promise<LeaseRow | undefined> {
  return db.selectFrom('leases').selectAll().where('name', '=', name).executeTakeFirst();
}

/** The first holder ever: inserts the row unless another instance did first. Returns whether it did. */
export async function insertLease(db: Executor, row: Insertable<Database['leases']>): Promise<boolean> {
  const result = await db
    .insertInto('leases')
    .values(row)
    .onConflict((oc) => oc.column('name').doNothing())
    .executeTakeFirst();
  return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
}

/** The holder extends its lease: only while the row still carries its token. */
export async function renewLease(
  db: Executor,
  name: string,
  token: number,
  times: { renewed_at: string; expires_at: string },
): Promise<boolean> {
  const result = await db
    .updateTable('leases')
    .set(times)
    .where('name', '=', name)
    .where('token', '=', token)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Takes over a lease judged stale (expired, released, or its holder dead): compare-and-set on the
 * token that was judged, so of several instances taking over at once exactly one wins, and the
 * new holder's token is the old one plus one.
 */
export async function takeLease(
  db: Executor,
  name: string,
  judgedToken: number,
  holder: Omit<Insertable<Database['leases']>, 'name' | 'token'>,
): Promise<boolean> {
  const result = await db
    .updateTable('leases')
    .set({ ...holder, token: judgedToken + 1 })
    .where('name', '=', name)
    .where('token', '=', judgedToken)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The holder gives the lease up (a clean stop): another instance may take it at once. */
export async function releaseLease(
  db: Executor,
  name: string,
  token: number,
  releasedAt: string,
): Promise<void> {
  await db
    .updateTable('leases')
    .set({ expires_at: releasedAt })
    .where('name', '=', name)
    .where('token', '=', token)
    .execute();
}

/**
 * Whether the row still carries `token`, read inside the caller's transaction. On PostgreSQL the
 * row is locked FOR SHARE until the transaction ends, so a takeover (an UPDATE of the row) waits
 * for it: every write fenced by this check commits before another holder's first. SQLite
 * serializes writing transactions anyway.
 */
export async function holdsLease(trx: Executor, name: string, token: number): Promise<boolean> {
  let query = trx.selectFrom('leases').select('token').where('name', '=', name).where('token', '=', token);
  if (trx.getExecutor().adapter instanceof PostgresAdapter) query = query.forShare();
  return (await query.executeTakeFirst()) !== undefined;
}
