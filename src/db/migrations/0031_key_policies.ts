import { type Kysely, sql } from 'kysely';

// Frozen once released. Owners in control of their agents' keys (issue 38,
// docs/decisions/owner-spend-policy.md):
// - `api_keys.scopes`: what a key may do, a comma-separated list of scopes; null is every scope
//   (keys made before scopes, and new keys unless narrowed).
// - `tasks.api_key_id`: the key that escrowed the task (null when the owner made it in the
//   console, or before this migration), so a refund gives the room back to that key's limits.
// - `api_key_spend`: one row per key and currency holding the key's spend policy (null: no such
//   limit) next to what it escrowed in the current UTC day and month. The limits and the counters
//   live in one row so that one compare-and-set statement checks and counts a spend (keyPolicies.ts).

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('scopes', 'text').execute();
  await db.schema.alterTable('tasks').addColumn('api_key_id', 'text').execute();
  await db.schema
    .createTable('api_key_spend')
    .addColumn('key_id', 'text', (c) => c.notNull().references('api_keys.id'))
    .addColumn('currency', 'text', (c) => c.notNull().check(sql`currency in ('TON', 'USDT')`))
    .addColumn('max_task_nano', 'bigint', (c) => c.check(sql`max_task_nano >= 0`))
    .addColumn('daily_limit_nano', 'bigint', (c) => c.check(sql`daily_limit_nano >= 0`))
    .addColumn('monthly_limit_nano', 'bigint', (c) => c.check(sql`monthly_limit_nano >= 0`))
    .addColumn('approval_above_nano', 'bigint', (c) => c.check(sql`approval_above_nano >= 0`))
    // The UTC day (YYYY-MM-DD) and month (YYYY-MM) the counters are for; '' before any spend.
    .addColumn('day', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('day_spent_nano', 'bigint', (c) => c.notNull().defaultTo(0).check(sql`day_spent_nano >= 0`))
    .addColumn('month', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('month_spent_nano', 'bigint', (c) =>
      c.notNull().defaultTo(0).check(sql`month_spent_nano >= 0`),
    )
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('api_key_spend_pk', ['key_id', 'currency'])
    .execute();
}
