import type { Kysely } from 'kysely';

// Frozen once released. Workers protect themselves (issue 39, docs/decisions/screening.md):
// - task_reports: one row per (task, worker) report, with a reason from a fixed list and an
//   optional note. A task reported by REPORTS_TO_HOLD distinct workers is held for an operator
//   (tasks.moderation_status PENDING, moderation_rule 'worker-reports').
// - worker_blocks: a worker blocked an agent; its tasks and offers no longer reach the worker.

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('task_reports')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('task_id', 'text', (c) => c.notNull().references('tasks.id'))
    .addColumn('worker_id', 'text', (c) => c.notNull().references('workers.id'))
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('note', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('task_reports_task_worker', ['task_id', 'worker_id'])
    .execute();
  await db.schema
    .createTable('worker_blocks')
    .addColumn('worker_id', 'text', (c) => c.notNull().references('workers.id'))
    .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('worker_blocks_pk', ['worker_id', 'agent_id'])
    .execute();
}
