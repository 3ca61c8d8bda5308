import type { Kysely } from 'kysely';

// Frozen once released. The worker's language (issue 27): the bot writes to the worker in it and
// the Mini App starts in it. `language` is a supported code ('en', 'ru'), null until the worker
// first signs in after this migration; `language_chosen` is 1 once the worker picked it in the
// profile, and from then on Telegram's language_code (read at every sign-in) no longer changes it.

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('workers').addColumn('language', 'text').execute();
  await db.schema
    .alterTable('workers')
    .addColumn('language_chosen', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
