import type { Kysely } from 'kysely';

// Frozen once released. Screening at task creation (issue 39, docs/decisions/screening.md):
// - tasks.moderation_status: null for a task no rule held (the usual case), else PENDING while an
//   operator has not looked, APPROVED or REJECTED after; moderation_rule names the rule (or the
//   external classifier) that held it. Workers see a task only when the status is null or APPROVED.
// - An agent with too many refusals or rejections in a day is frozen through agent_freezes
//   (migration 0032, src/domain/agents/agentFreeze.ts), the operator's freeze.
// - moderation_log: every refusal, hold, operator decision, freeze and unfreeze, with who and why.
//   Refusals write nothing else (no task exists), so this is also what the daily count reads.

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('tasks').addColumn('moderation_status', 'text').execute();
  await db.schema.alterTable('tasks').addColumn('moderation_rule', 'text').execute();
  await db.schema
    .createTable('moderation_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id'))
    .addColumn('task_id', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('rule', 'text')
    .addColumn('operator', 'text')
    .addColumn('note', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('moderation_log_agent')
    .on('moderation_log')
    .columns(['agent_id', 'created_at'])
    .execute();
  // The operators' queue: held tasks, oldest first.
  await db.schema
    .createIndex('tasks_moderation_pending')
    .on('tasks')
    .columns(['moderation_status', 'created_at'])
    .execute();
}
