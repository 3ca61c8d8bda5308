import { type Kysely, sql } from 'kysely';

// Frozen once released. A deposit that reached the deposit address but could not be credited
// (a limit, a failed credit) is kept in uncredited_deposits for the operator; since USDT deposits
// exist (0020) its amount may be micro-USDT, so the row names its currency (default 'TON': every
// row written before was a TON deposit).

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('uncredited_deposits')
    .addColumn('currency', 'text', (c) =>
      c.notNull().defaultTo('TON').check(sql`currency in ('TON', 'USDT')`),
    )
    .execute();
}
