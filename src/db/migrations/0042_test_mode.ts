import { type Kysely, sql } from 'kysely';

// Frozen once released. Test mode (issue 37, docs/decisions/test-mode.md): every agent has a
// hidden twin, an agent row of its own that owns everything made with the agent's test keys
// (`hr_test_...`), so the ownership checks every route already makes keep the two worlds apart.
// `livemode` is 1 on every live agent (all rows before this migration) and 0 on a twin;
// `live_agent_id` is the twin's live agent (null on live agents). The unique index makes a twin
// exist at most once per agent: two requests creating one lazily at once, one wins.

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('agents')
    .addColumn('livemode', 'integer', (c) => c.notNull().defaultTo(1).check(sql`livemode in (0, 1)`))
    .execute();
  await db.schema
    .alterTable('agents')
    .addColumn('live_agent_id', 'text', (c) => c.references('agents.id'))
    .execute();
  await db.schema.createIndex('agents_one_twin').on('agents').column('live_agent_id').unique().execute();
}
