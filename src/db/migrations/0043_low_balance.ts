import type { Kysely } from 'kysely';

// Frozen once released. Low-balance alerts (issue 38, docs/decisions/low-balance-alerts.md): the
// owner's threshold per agent and currency, null when no alert is set. Columns on the agent's row,
// beside the balances they watch (as 0020 chose for the balances): the spend's compare-and-set
// UPDATE already returns the row, so telling whether it crossed the threshold costs no query.

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('agents').addColumn('ton_low_balance_nano', 'bigint').execute();
  await db.schema.alterTable('agents').addColumn('usdt_low_balance_micro', 'bigint').execute();
}
