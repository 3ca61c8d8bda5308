import type { Kysely } from 'kysely';

// Frozen once released. Network mode (testnet/mainnet): the Highload Wallet v3 batches with their
// query ids and signed messages (persisted before sending), the link from each chain transfer to
// the batch that carries it, the chain follower's cursor, and deposits nobody could match.

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('chain_batches')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('seq', 'bigint', (c) => c.notNull().unique())
    .addColumn('query_id', 'integer', (c) => c.notNull())
    .addColumn('chain_created_at', 'bigint', (c) => c.notNull())
    .addColumn('chain_expires_at', 'bigint', (c) => c.notNull())
    .addColumn('boc', 'text', (c) => c.notNull())
    .addColumn('message_hash', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('transfer_count', 'integer', (c) => c.notNull())
    .addColumn('total_nano', 'bigint', (c) => c.notNull())
    .addColumn('send_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_send_at', 'text', (c) => c.notNull())
    .addColumn('tx_hash', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('chain_batches_status')
    .on('chain_batches')
    .columns(['status', 'next_send_at'])
    .execute();

  await db.schema.alterTable('chain_transfers').addColumn('batch_id', 'text').execute();
  // The wallet transaction that sent it (one per batch, so several transfers share it; the ledger
  // row's tx_hash, unique, is then the hash of the transfer's own out-message).
  await db.schema.alterTable('chain_transfers').addColumn('chain_tx_hash', 'text').execute();
  await db.schema.createIndex('chain_transfers_batch').on('chain_transfers').column('batch_id').execute();

  await db.schema
    .createTable('chain_state')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('unmatched_deposits')
    .addColumn('tx_hash', 'text', (c) => c.primaryKey())
    .addColumn('lt', 'text', (c) => c.notNull())
    .addColumn('from_address', 'text', (c) => c.notNull())
    .addColumn('amount_nano', 'bigint', (c) => c.notNull())
    .addColumn('memo', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('agent_id', 'text')
    .addColumn('resolved_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('unmatched_deposits_status')
    .on('unmatched_deposits')
    .columns(['status', 'created_at'])
    .execute();
}
