import { type Kysely, sql } from 'kysely';

// Frozen once released. Index entries that every task creation (POST /tasks) wrote and no read
// needs: each is one more B-tree written by the request, and on SQLite one more page in the
// commit's WAL frames (1-2 us a request each, measured in place; bench/profile-notes.md, ninth
// pass).
// - tasks_worker finds a worker's tasks (always `worker_id = ?`), yet every open task, which has
//   no worker, wrote an entry for NULL into it. It now holds only tasks that have a worker;
//   `worker_id = ?` implies `worker_id IS NOT NULL`, so both databases still use it.
// - events_agent ordered an agent's events, but nothing reads events by agent: they are read by
//   id (a delivery's event). Agents are never deleted, so no foreign-key check needs it either.

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('tasks_worker').execute();
  await db.schema
    .createIndex('tasks_worker')
    .on('tasks')
    .columns(['worker_id', 'status'])
    .where(sql.ref('worker_id'), 'is not', null)
    .execute();
  await db.schema.dropIndex('events_agent').execute();
}
