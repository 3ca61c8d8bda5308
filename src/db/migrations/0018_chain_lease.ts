import type { Kysely } from 'kysely';

// Frozen once released. Work that only one instance may do at a time (the network mode's chain
// sender and wallet follower; the whole sandbox, whose chain lives in one process) is held
// through a lease row: `token` is the fencing token, raised by each new holder (never by a
// renewal), so a holder that lost the lease cannot write under it; `host`, `pid` and `run_id`
// (random per process start) tell a dead holder on the same machine from a live one; times are
// ISO-8601 text from the service's clock, as everywhere else.

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('leases')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('pid', 'integer', (c) => c.notNull())
    .addColumn('run_id', 'text', (c) => c.notNull())
    .addColumn('token', 'integer', (c) => c.notNull())
    .addColumn('acquired_at', 'text', (c) => c.notNull())
    .addColumn('renewed_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
}
