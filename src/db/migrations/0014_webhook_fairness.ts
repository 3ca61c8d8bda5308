import { type Kysely, sql } from 'kysely';

// Frozen once released. Fair webhook delivery (docs/decisions/webhook-fairness.md):
// - webhook_deliveries.origin: the endpoint (scheme://host:port of the URL) a delivery goes to,
//   so the deliveries in flight to one endpoint can be counted;
// - webhook_deliveries.claimed_until: set while an attempt is in flight (its lease), cleared when
//   the attempt is recorded; the in-flight caps count these rows, so they hold across instances;
// - webhook_endpoints: the health of each agent's endpoint (time-outs in a row, quarantine).
// Partial indexes keep the in-flight counts to the few rows in flight.

/** The endpoint a URL reaches, as the app computes it (URL.origin). */
function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_deliveries').addColumn('origin', 'text').execute();
  await db.schema.alterTable('webhook_deliveries').addColumn('claimed_until', 'text').execute();
  // Only pending deliveries are ever counted or sent again (a redelivery sets its own origin).
  const pending = await db
    .selectFrom('webhook_deliveries')
    .select(['id', 'url'])
    .where('status', '=', 'pending')
    .execute();
  for (const row of pending as { id: string; url: string }[]) {
    await db
      .updateTable('webhook_deliveries')
      .set({ origin: originOf(row.url) })
      .where('id', '=', row.id)
      .execute();
  }
  await db.schema
    .createIndex('webhook_deliveries_in_flight_agent')
    .on('webhook_deliveries')
    .columns(['agent_id', 'claimed_until'])
    .where(sql.ref('claimed_until'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_in_flight_origin')
    .on('webhook_deliveries')
    .columns(['origin', 'claimed_until'])
    .where(sql.ref('claimed_until'), 'is not', null)
    .execute();
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id'))
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('consecutive_timeouts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('quarantines', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('quarantined_until', 'text')
    .addColumn('last_error', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('webhook_endpoints_pk', ['agent_id', 'origin'])
    .execute();
}
