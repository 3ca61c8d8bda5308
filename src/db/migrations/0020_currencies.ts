import { type Kysely, PostgresAdapter, sql } from 'kysely';

// Frozen once released. Currencies (issue 29, docs/decisions/usdt-in-the-books.md):
// - tasks, transactions, chain_transfers and disputes carry `currency` ('TON' | 'USDT', default 'TON', so
//   every existing row stays what it was). Their `*_nano` amounts are integers of the smallest
//   unit of that currency: nanotons for TON, micro-USDT (10^-6) for USDT. A ledger row and its
//   chain transfer always have their task's currency.
// - agents keep their TON balance in the four `*_nano` columns the hot path already reads, and
//   gain four `usdt_*_micro` columns for USDT with the same conservation and no-negative checks.
//   Columns rather than a balances table: each balance move stays one compare-and-set UPDATE of
//   the agent's row (the same row lock as today), POST /tasks reads and writes the same one row
//   with no extra query, and GET /agents/me reads both currencies in the one SELECT it makes.
//   A third currency would be four more columns and a line in src/db/repositories/balances.ts.
// - workers gain `usdt_earned_micro` beside `total_earned_nano` (TON): earnings per currency.

const CURRENCY_CHECK = sql`currency in ('TON', 'USDT')`;

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types
export async function up(db: Kysely<any>): Promise<void> {
  for (const table of ['tasks', 'transactions', 'chain_transfers', 'disputes']) {
    await db.schema
      .alterTable(table)
      .addColumn('currency', 'text', (c) => c.notNull().defaultTo('TON').check(CURRENCY_CHECK))
      .execute();
  }
  const agents = () => db.schema.alterTable('agents');
  await agents()
    .addColumn('usdt_balance_micro', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await agents()
    .addColumn('usdt_locked_micro', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await agents()
    .addColumn('usdt_spent_micro', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  const noNegative = sql`usdt_balance_micro >= 0 and usdt_locked_micro >= 0 and usdt_spent_micro >= 0`;
  const conservation = sql`usdt_deposited_micro = usdt_balance_micro + usdt_locked_micro + usdt_spent_micro`;
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await agents()
      .addColumn('usdt_deposited_micro', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await agents().addCheckConstraint('agents_usdt_no_negative', noNegative).execute();
    await agents().addCheckConstraint('agents_usdt_conservation', conservation).execute();
  } else {
    // SQLite adds no constraint to an existing table, but a column's CHECK may name the row's
    // other columns: the last column added carries both rules.
    await agents()
      .addColumn('usdt_deposited_micro', 'bigint', (c) =>
        c.notNull().defaultTo(0).check(sql`(${noNegative}) and (${conservation})`),
      )
      .execute();
  }
  await db.schema
    .alterTable('workers')
    .addColumn('usdt_earned_micro', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
}
