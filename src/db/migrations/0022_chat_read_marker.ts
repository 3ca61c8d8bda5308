import type { Kysely } from 'kysely';

// Frozen once released. The worker's read point in each chat: the last message the Mini App's
// chat screen showed them, as its (created_at, id) position, the order messages are listed in.
// Unread counts are the agent's messages after it. One chat has one worker, so the marker lives
// on the chat's row; null until the worker first opens the chat (then every agent message counts).

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('chats').addColumn('worker_read_at', 'text').execute();
  await db.schema.alterTable('chats').addColumn('worker_read_message_id', 'text').execute();
  await db.schema
    .createIndex('ratings_ratee')
    .on('ratings')
    .columns(['ratee_id', 'created_at', 'id'])
    .execute();
}
