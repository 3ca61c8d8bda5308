import { type Kysely, sql } from 'kysely';

// Frozen once released. Disputes (issue 25, docs/decisions/disputes.md):
// - disputes: at most one per task, ever (unique task_id): a resolution always ends the task
//   (COMPLETED or CANCELLED), so there is never a second. `status` OPEN | RESOLVED; the three
//   `*_nano` amounts are the resolution's split (worker, platform fee, back to the agent), null
//   while open. `submission_id` is the submission the dispute is about (null for none).
// - dispute_statements: what either side adds as evidence, attachments as JSON text
//   ([{fileUrl, name, contentType, size}]) copied from the author's own stored uploads.
// - tasks.dispute_id: the task's dispute, set when it opens and kept. While the task is not yet
//   COMPLETED or CANCELLED it means "a dispute is open": every task move other than the
//   resolution's refuses it (the compare-and-set updates require it null), so the review clock,
//   the execution-deadline expiry, completion and refunds all stop.
// The operators' queue reads open disputes oldest first: (status, created_at) is its index.

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('disputes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('task_id', 'text', (c) => c.notNull().unique().references('tasks.id'))
    .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id'))
    .addColumn('worker_id', 'text', (c) => c.notNull().references('workers.id'))
    .addColumn('submission_id', 'text')
    .addColumn('opened_by', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('worker_amount_nano', 'bigint')
    .addColumn('fee_amount_nano', 'bigint')
    .addColumn('agent_amount_nano', 'bigint')
    .addColumn('note', 'text')
    .addColumn('resolved_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addCheckConstraint(
      'disputes_split',
      sql`(status = 'OPEN' and worker_amount_nano is null) or (status = 'RESOLVED' and worker_amount_nano >= 0 and fee_amount_nano >= 0 and agent_amount_nano >= 0)`,
    )
    .execute();
  await db.schema.createIndex('disputes_queue').on('disputes').columns(['status', 'created_at']).execute();
  await db.schema.createIndex('disputes_agent').on('disputes').columns(['agent_id', 'status']).execute();

  await db.schema
    .createTable('dispute_statements')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('dispute_id', 'text', (c) => c.notNull().references('disputes.id'))
    .addColumn('author', 'text', (c) => c.notNull())
    .addColumn('author_id', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('attachments_json', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('dispute_statements_dispute')
    .on('dispute_statements')
    .columns(['dispute_id', 'created_at'])
    .execute();

  await db.schema.alterTable('tasks').addColumn('dispute_id', 'text').execute();
}
