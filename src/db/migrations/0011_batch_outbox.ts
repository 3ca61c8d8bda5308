import { type Kysely, sql } from 'kysely';

// Frozen once released. Network mode's batches become outbox rows served by the one runner
// (src/outbox/): the claim columns get the names every outbox table has (`attempts`,
// `next_attempt_at`), and the two open states (`prepared`: persisted, maybe never sent; `sent`)
// become the runner's `pending` (`attempts` says whether it was sent). The index on
// (status, next_send_at) follows the renamed column.

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('chain_batches').renameColumn('send_count', 'attempts').execute();
  await db.schema.alterTable('chain_batches').renameColumn('next_send_at', 'next_attempt_at').execute();
  await sql`update chain_batches set status = 'pending' where status in ('prepared', 'sent')`.execute(db);
}
