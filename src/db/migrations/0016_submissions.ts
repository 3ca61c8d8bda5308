import { type Kysely, sql } from 'kysely';

// Frozen once released. Trust between agents and workers (issue 25,
// docs/decisions/submissions-and-reviews.md):
// - submissions: what a worker hands in for review, numbered per task (1, 2, ...); the unique
//   (task_id, number) makes two racing submissions of one task impossible even before the task's
//   compare-and-set. `status` PENDING | ACCEPTED | REVISION_REQUESTED | DISPUTED. Attachments are
//   JSON text ([{fileUrl, name, contentType, size}]), copied from the worker's own stored uploads.
// - tasks.review_hours: the review window the agent chose (1-336 h); null when it chose none and
//   the default (72 h) applies: such a task answers the agent API exactly as before until work
//   is submitted (see taskView);
//   tasks.review_deadline: when the waiting submission is accepted for the agent (auto-release);
//   tasks.review_reminder_at: when the agent is reminded (a quarter of the window left), cleared
//   once the reminder is written, so it is sent once; tasks.revision_count: revisions asked;
//   tasks.submission_count: submissions made, on the task row itself so that the refund's
//   compare-and-set can require none (a subquery would read a stale snapshot on PostgreSQL).
// - tasks.location_*: an optional place for the work ({latitude, longitude, radiusMeters, label}).
// Both deadline columns are indexed with the status: the deadline job reads the due REVIEW ones.

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('submissions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('task_id', 'text', (c) => c.notNull().references('tasks.id'))
    .addColumn('worker_id', 'text', (c) => c.notNull().references('workers.id'))
    .addColumn('number', 'integer', (c) => c.notNull())
    .addColumn('note', 'text', (c) => c.notNull())
    .addColumn('attachments_json', 'text', (c) => c.notNull())
    .addColumn('latitude', 'double precision')
    .addColumn('longitude', 'double precision')
    .addColumn('accuracy_meters', 'double precision')
    .addColumn('within_area', 'integer')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('revision_reason', 'text')
    .addColumn('decided_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('submissions_task_number', ['task_id', 'number'])
    .execute();
  await db.schema
    .createIndex('submissions_worker')
    .on('submissions')
    .columns(['worker_id', 'created_at'])
    .execute();

  const tasks = () => db.schema.alterTable('tasks');
  await tasks().addColumn('review_hours', 'integer').execute();
  await tasks().addColumn('review_deadline', 'text').execute();
  await tasks().addColumn('review_reminder_at', 'text').execute();
  await tasks()
    .addColumn('revision_count', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await tasks()
    .addColumn('submission_count', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await tasks().addColumn('location_latitude', 'double precision').execute();
  await tasks().addColumn('location_longitude', 'double precision').execute();
  await tasks().addColumn('location_radius_meters', 'integer').execute();
  await tasks().addColumn('location_label', 'text').execute();
  await db.schema
    .createIndex('tasks_review_deadline')
    .on('tasks')
    .columns(['status', 'review_deadline'])
    .where(sql.ref('review_deadline'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('tasks_review_reminder')
    .on('tasks')
    .columns(['status', 'review_reminder_at'])
    .where(sql.ref('review_reminder_at'), 'is not', null)
    .execute();
}
