import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';

/** SQLite's `PRAGMA synchronous` values. */
const FULL = 2;

// SQLite only: PostgreSQL's durability is its server's (fsync, synchronous_commit).
describe.skipIf(Boolean(process.env.TEST_DATABASE_URL))('SQLite durability', () => {
  it('commits with synchronous = FULL on the connection the app writes through', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'handoff-durability-'));
    const db = openDatabase({ databaseUrl: null, dataDir: dir });
    try {
      // Through Kysely, as every request's statements go: the connection the app commits on.
      // NORMAL (1) in WAL mode syncs the WAL only at checkpoints, so a power cut could take
      // transactions that were already answered 201; FULL syncs the WAL at every commit.
      const rows = await sql<{ synchronous: number }>`pragma synchronous`.execute(db.db);
      expect(rows.rows).toEqual([{ synchronous: FULL }]);
      const mode = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(db.db);
      expect(mode.rows).toEqual([{ journal_mode: 'wal' }]);
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
