import type { Kysely } from 'kysely';

// Frozen once released. Transfers that reached the deposit wallet but could not be credited
// (a limit reached between the check and the credit, or a failed write): kept for the operator,
// never dropped silently.

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('uncredited_deposits')
    .addColumn('tx_hash', 'text', (c) => c.primaryKey())
    .addColumn('agent_id', 'text', (c) => c.notNull())
    .addColumn('amount_nano', 'bigint', (c) => c.notNull())
    .addColumn('from_address', 'text', (c) => c.notNull())
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}
