import { type Kysely, type Migration, type MigrationProvider, Migrator } from 'kysely';
import * as initial from './migrations/0001_initial.js';
import * as conversation from './migrations/0002_conversation.js';
import type { Database } from './schema.js';

// Migrations are listed here rather than read from disk, so they work the same from tsx, a
// bundle or a test, and their order is explicit.
const migrations: Record<string, Migration> = {
  '0001_initial': initial,
  '0002_conversation': conversation,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

export async function migrateToLatest(db: Kysely<Database>): Promise<void> {
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    const reason = error instanceof Error ? error.message : String(error ?? 'unknown error');
    throw new Error(`Database migration ${failed?.migrationName ?? ''} failed: ${reason}`);
  }
}
