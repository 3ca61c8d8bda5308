import type { Kysely } from 'kysely';

// Frozen once released. The Telegram updates the bot has handled (a redelivered update_id is
// handled once), and the message id of each sent notification (so a withdrawn offer's message
// can lose its Accept / Decline buttons).

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('telegram_updates')
    .addColumn('update_id', 'text', (c) => c.primaryKey())
    .addColumn('received_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('telegram_updates_received')
    .on('telegram_updates')
    .column('received_at')
    .execute();
  await db.schema.alterTable('notifications').addColumn('telegram_message_id', 'text').execute();
}
