import { type Kysely, sql } from 'kysely';

// Frozen once released. Batches of tasks (issue 40, docs/decisions/batches.md): one row per
// POST /batches, owned by its agent, in one currency, with the escrowed total of its tasks and
// the optional limit of tasks one worker may hold or have held (`max_per_worker`, null: no limit).
// Each task of a batch is an ordinary task row that names it (`tasks.batch_id`, null for single
// tasks, so every existing row stays what it was). `completed_at` is set once, by the move that
// ends the batch's last open task (batch.completed).

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('batches')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id'))
    .addColumn('currency', 'text', (c) => c.notNull().check(sql`currency in ('TON', 'USDT')`))
    .addColumn('task_count', 'integer', (c) => c.notNull().check(sql`task_count between 1 and 500`))
    .addColumn('total_nano', 'bigint', (c) => c.notNull().check(sql`total_nano > 0`))
    .addColumn('max_per_worker', 'integer', (c) =>
      c.check(sql`max_per_worker is null or max_per_worker >= 1`),
    )
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .execute();
  await db.schema
    .createIndex('batches_agent')
    .on('batches')
    .columns(['agent_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .alterTable('tasks')
    .addColumn('batch_id', 'text', (c) => c.references('batches.id'))
    .execute();
  // GET /agents/tasks?batchId= (newest first), a batch's counts by status, its open places.
  await db.schema
    .createIndex('tasks_batch')
    .on('tasks')
    .columns(['batch_id', 'created_at', 'id'])
    .where(sql.ref('batch_id'), 'is not', null)
    .execute();
}
