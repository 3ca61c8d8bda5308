import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { CHECKPOINT_INTERVAL_MS, FALLBACK_AUTOCHECKPOINT_PAGES } from '../../src/db/checkpointer.js';
import { type Db, openDatabase } from '../../src/db/database.js';

const dirs: string[] = [];
const open: Db[] = [];

afterEach(async () => {
  for (const db of open.splice(0)) await db.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function openSqlite(): { db: Db; file: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'handoff-checkpoints-'));
  dirs.push(dir);
  const db = openDatabase({ databaseUrl: null, dataDir: dir });
  open.push(db);
  return { db, file: path.join(dir, 'handoff.sqlite') };
}

async function until(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return check();
}

// SQLite only: PostgreSQL has no WAL of ours to checkpoint.
describe.skipIf(Boolean(process.env.TEST_DATABASE_URL))('SQLite checkpoints', () => {
  it('copies committed pages into the database file off the committing connection', async () => {
    const { db, file } = openSqlite();
    await sql`create table filler (id integer primary key, body text not null)`.execute(db.db);
    const before = statSync(file).size;
    // About 300 pages of commits: below SQLite's default automatic checkpoint (1,000 pages), so
    // only a checkpoint from elsewhere moves them into the database file this soon.
    const body = 'x'.repeat(3000);
    for (let i = 0; i < 300; i++) await sql`insert into filler (body) values (${body})`.execute(db.db);
    const copied = await until(() => statSync(file).size > before + 500_000, 50 * CHECKPOINT_INTERVAL_MS);
    expect(copied).toBe(true);
    // Every row is there, read through the committing connection and through a fresh one.
    const count = await sql<{ n: bigint }>`select count(*) as n from filler`.execute(db.db);
    expect(Number(count.rows[0]!.n)).toBe(300);
    const other = new SQLite(file, { readonly: true });
    try {
      expect(other.prepare('select count(*) as n from filler').get()).toEqual({ n: 300 });
    } finally {
      other.close();
    }
  });

  it('keeps the committing connection’s own checkpoint only as a fallback', async () => {
    const { db } = openSqlite();
    const rows = await sql<{ wal_autocheckpoint: bigint }>`pragma wal_autocheckpoint`.execute(db.db);
    expect(Number(rows.rows[0]!.wal_autocheckpoint)).toBe(FALLBACK_AUTOCHECKPOINT_PAGES);
  });

  it('closes cleanly: the WAL is folded into the file and a reopened database has every row', async () => {
    const { db, file } = openSqlite();
    await sql`create table kept (id integer primary key)`.execute(db.db);
    for (let i = 0; i < 50; i++) await sql`insert into kept default values`.execute(db.db);
    await db.close();
    open.splice(open.indexOf(db), 1);
    const reopened = new SQLite(file, { readonly: true });
    try {
      expect(reopened.prepare('select count(*) as n from kept').get()).toEqual({ n: 50 });
    } finally {
      reopened.close();
    }
  });
});
