import { type Kysely, type Migration, type MigrationProvider, Migrator, PostgresAdapter, sql } from 'kysely';
import * as initial from './migrations/0001_initial.js';
import * as conversation from './migrations/0002_conversation.js';
import * as workersSide from './migrations/0003_workers_side.js';
import * as chainNetwork from './migrations/0004_chain_network.js';
import * as workerApp from './migrations/0005_worker_app.js';
import * as idempotency from './migrations/0006_idempotency.js';
import * as hardening from './migrations/0007_hardening.js';
import * as owners from './migrations/0010_owners.js';
import * as batchOutbox from './migrations/0011_batch_outbox.js';
import * as writePathIndexes from './migrations/0012_write_path_indexes.js';
import * as accessLimits from './migrations/0013_access_limits.js';
import * as webhookFairness from './migrations/0014_webhook_fairness.js';
import * as chainWalk from './migrations/0015_chain_walk.js';
import * as submissions from './migrations/0016_submissions.js';
import * as disputes from './migrations/0017_disputes.js';
import * as chainLease from './migrations/0018_chain_lease.js';
import * as workerLanguage from './migrations/0019_worker_language.js';
import * as currencies from './migrations/0020_currencies.js';
import * as chatReadMarker from './migrations/0022_chat_read_marker.js';
import * as unmatchedCurrency from './migrations/0023_unmatched_currency.js';
import * as jettonPayouts from './migrations/0025_jetton_payouts.js';
import * as taskSettlement from './migrations/0028_task_settlement.js';
import * as keyPolicies from './migrations/0031_key_policies.js';
import * as agentFreeze from './migrations/0032_agent_freeze.js';
import * as moderation from './migrations/0033_moderation.js';
import * as batches from './migrations/0035_batches.js';
import * as partialOffers from './migrations/0037_partial_offers.js';
import * as approvals from './migrations/0039_approvals.js';
import * as workerProtection from './migrations/0040_worker_protection.js';
import * as bonuses from './migrations/0041_bonuses.js';
import * as testMode from './migrations/0042_test_mode.js';
import * as lowBalance from './migrations/0043_low_balance.js';
import type { Database } from './schema.js';

// Migrations are listed here rather than read from disk, so they work the same from tsx, a
// bundle or a test, and their order is explicit.
export const migrations: Record<string, Migration> = {
  '0001_initial': initial,
  '0002_conversation': conversation,
  '0003_workers_side': workersSide,
  '0004_chain_network': chainNetwork,
  '0005_worker_app': workerApp,
  '0006_idempotency': idempotency,
  '0007_hardening': hardening,
  '0010_owners': owners,
  '0011_batch_outbox': batchOutbox,
  '0012_write_path_indexes': writePathIndexes,
  '0013_access_limits': accessLimits,
  '0014_webhook_fairness': webhookFairness,
  '0015_chain_walk': chainWalk,
  '0016_submissions': submissions,
  '0017_disputes': disputes,
  '0018_chain_lease': chainLease,
  '0019_worker_language': workerLanguage,
  '0020_currencies': currencies,
  '0022_chat_read_marker': chatReadMarker,
  '0023_unmatched_currency': unmatchedCurrency,
  '0025_jetton_payouts': jettonPayouts,
  '0028_task_settlement': taskSettlement,
  '0031_key_policies': keyPolicies,
  '0032_agent_freeze': agentFreeze,
  '0037_partial_offers': partialOffers,
  '0040_worker_protection': workerProtection,
  '0035_batches': batches,
  '0033_moderation': moderation,
  '0039_approvals': approvals,
  '0041_bonuses': bonuses,
  // 0042, not the 0038 once reserved for it: Kysely refuses a migration that sorts before one a
  // database has already applied (0039-0041 were applied first).
  '0042_test_mode': testMode,
  '0043_low_balance': lowBalance,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

export async function migrateToLatest(db: Kysely<Database>): Promise<void> {
  const migrator = new Migrator({ db, provider, ...(await migrationTableSchema(db)) });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    const reason = error instanceof Error ? error.message : String(error ?? 'unknown error');
    throw new Error(`Database migration ${failed?.migrationName ?? ''} failed: ${reason}`, { cause: error });
  }
}

/**
 * On PostgreSQL, Kysely looks for its migration tables in every schema of the database unless
 * told which one: with another schema holding them (the tests' schema per app, run in parallel),
 * it skips creating its own and fails with `relation "kysely_migration_lock" does not exist`.
 * Pin them to the schema the connection works in (search_path; "public" by default).
 */
async function migrationTableSchema(db: Kysely<Database>): Promise<{ migrationTableSchema?: string }> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return {};
  const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db);
  return rows[0]?.schema ? { migrationTableSchema: rows[0].schema } : {};
}
