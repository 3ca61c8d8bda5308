import { type Kysely, sql } from 'kysely';

// Frozen once released. USDT deposits by memo in network mode (issue 29, docs/decisions/usdt-deposits-on-the-network.md): a deposit nobody could be credited for may now be USDT, so
// unmatched_deposits gains `currency` ('TON' | 'USDT', default 'TON': every existing row was TON),
// and its `amount_nano` is in that currency's smallest unit. A jetton notification that is not
// from the deposit address's own USDT wallet (a look-alike jetton, a forged notification) is kept
// with reason `foreign_jetton` (reason is free text: no change) as the TON it brought, and what
// it claimed is kept beside it: the sending contract (`jetton_wallet`) and the jetton amount it
// named (`jetton_amount`, a decimal string of the foreign jetton's own units, whose decimals we
// do not know). Own-USDT rows keep the deposit address's jetton wallet there too.
// uncredited_deposits (a transfer the books refused, e.g. past a deposit limit) gains `currency`
// for the same reason: a USDT one's amount is micro-USDT.

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types
export async function up(db: Kysely<any>): Promise<void> {
  const unmatched = () => db.schema.alterTable('unmatched_deposits');
  await unmatched()
    .addColumn('currency', 'text', (c) =>
      c.notNull().defaultTo('TON').check(sql`currency in ('TON', 'USDT')`),
    )
    .execute();
  await unmatched().addColumn('jetton_wallet', 'text').execute();
  await unmatched().addColumn('jetton_amount', 'text').execute();
  await db.schema
    .alterTable('uncredited_deposits')
    .addColumn('currency', 'text', (c) =>
      c.notNull().defaultTo('TON').check(sql`currency in ('TON', 'USDT')`),
    )
    .execute();
}
