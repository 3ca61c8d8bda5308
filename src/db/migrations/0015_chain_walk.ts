import type { Kysely } from 'kysely';

// Frozen once released. The wallet follower's walk back to its cursor can take many rounds (a
// backlog of thousands of transactions is read a few pages a round, within the provider's
// request budget); the transactions it has read so far wait here, so no round reads a page
// twice and nothing read is lost to a restart. `lt` is zero-padded to 20 digits so that text
// order is chain order on both databases; `boc` is the transaction as the provider served it.

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('chain_walk_transactions')
    .addColumn('hash', 'text', (c) => c.primaryKey())
    .addColumn('lt', 'text', (c) => c.notNull())
    .addColumn('boc', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('chain_walk_transactions_lt')
    .on('chain_walk_transactions')
    .column('lt')
    .execute();
}
