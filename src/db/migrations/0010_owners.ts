import type { Kysely } from 'kysely';

// Frozen once released. Agent owners who sign in to the web console with a TON wallet: owners,
// their single-use sign-in challenges and sessions; agents get an owner, API keys a name and a
// last-used time (an agent may now hold several keys).

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('owners')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('wallet_address', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_sign_in_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('owner_challenges')
    .addColumn('payload', 'text', (c) => c.primaryKey())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('owner_challenges_expiry')
    .on('owner_challenges')
    .column('expires_at')
    .execute();

  await db.schema
    .createTable('owner_sessions')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', (c) => c.notNull().references('owners.id'))
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('owner_sessions_owner')
    .on('owner_sessions')
    .columns(['owner_id', 'created_at'])
    .execute();

  await db.schema.alterTable('agents').addColumn('owner_id', 'text').execute();
  await db.schema.createIndex('agents_owner').on('agents').columns(['owner_id', 'created_at']).execute();

  await db.schema.alterTable('api_keys').addColumn('name', 'text').execute();
  await db.schema.alterTable('api_keys').addColumn('last_used_at', 'text').execute();
}
