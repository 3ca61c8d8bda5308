import type { Kysely } from 'kysely';

// Frozen once released. Network mode, USDT payouts: a jetton transfer that left the hot wallet in a
// landed batch is not yet paid (the jetton wallets decide that, a few transactions later). The
// follower records the lt of the batch's wallet transaction that sent it; the jetton confirmation
// pass searches the jetton wallets from there. Null: not sent in a landed batch (yet, or again).

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('chain_transfers').addColumn('sent_lt', 'text').execute();
}
