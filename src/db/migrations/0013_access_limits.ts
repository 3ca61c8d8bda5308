import type { Kysely } from 'kysely';

// Frozen once released. Limits that hold across agents, owners and instances: sign-in challenges
// remember the client (IPv4 address or IPv6 /64) that asked and the browser they are bound to
// (the SHA-256 of its sign-in cookie); the sandbox faucet's grants are counted per owner.

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types
export async function up(db: Kysely<any>): Promise<void> {
  // Challenges open at upgrade have neither: no browser can present them, and they expire in minutes.
  await db.schema
    .alterTable('owner_challenges')
    .addColumn('client', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema
    .alterTable('owner_challenges')
    .addColumn('browser_hash', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema
    .createIndex('owner_challenges_client')
    .on('owner_challenges')
    .columns(['client', 'created_at'])
    .execute();
  await db.schema
    .createIndex('owner_challenges_browser')
    .on('owner_challenges')
    .column('browser_hash')
    .execute();

  await db.schema
    .createTable('faucet_grants')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', (c) => c.notNull().references('owners.id'))
    .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id'))
    .addColumn('amount_nano', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('faucet_grants_owner')
    .on('faucet_grants')
    .columns(['owner_id', 'created_at'])
    .execute();
}
