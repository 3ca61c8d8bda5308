import type { Kysely } from 'kysely';

// Frozen once released. An operator's freeze of an agent (issue 38, src/domain/agents/agentFreeze.ts):
// a row here while the agent is frozen; every spend (escrow) of a frozen agent is refused. Its own
// table, so the agents table and its hot queries do not change.

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('agent_freezes')
    .addColumn('agent_id', 'text', (c) => c.primaryKey().references('agents.id'))
    .addColumn('reason', 'text')
    .addColumn('frozen_at', 'text', (c) => c.notNull())
    .execute();
}
