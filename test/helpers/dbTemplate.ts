import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';

/**
 * A database migrated once per test run, copied for each test app instead of migrating each
 * one: migrating took 1.5-2 s per app on SQLite (a synced commit per migration) and 3-4 s on
 * PostgreSQL under CI load, for several hundred apps a run. Each app still gets a database of its
 * own with every migration applied (`openServices` then finds nothing to do); the migrations
 * themselves run from scratch in the template and in test/db's migration tests.
 *
 * SQLite: the migrated file, copied into the app's data directory. PostgreSQL: `pg_dump` of the
 * migrated schema (tables, indexes, constraints and the migrator's rows), replayed into the app's
 * new schema in one round trip.
 */
export interface DbTemplate {
  dir: string;
  /** SQLite: the migrated database file. */
  sqliteFile?: string;
  /** PostgreSQL: the dump, with SCHEMA_PLACEHOLDER where the schema's name goes. */
  pgDumpFile?: string;
}

const SQLITE_FILE = 'handoff.sqlite';
const SCHEMA_PLACEHOLDER = '__handoff_template_schema__';

/** Run once by the test run's global setup; null when there is nothing to copy from. */
export async function makeDbTemplate(databaseUrl: string | null): Promise<DbTemplate | null> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'handoff-db-template-'));
  if (!databaseUrl) {
    const db = openDatabase({ databaseUrl: null, dataDir: dir });
    await migrateToLatest(db.db);
    // Closing the last connection checkpoints the WAL into the file and removes it.
    await db.close();
    return { dir, sqliteFile: path.join(dir, SQLITE_FILE) };
  }
  const schema = `handoff_template_${randomBytes(6).toString('hex')}`;
  await adminQuery(databaseUrl, `create schema ${schema}`);
  try {
    const db = openDatabase({ databaseUrl, dataDir: dir, pgSchema: schema });
    await migrateToLatest(db.db);
    await db.close();
    const dump = spawnSync(
      'pg_dump',
      ['--no-owner', '--no-privileges', '--inserts', '--schema', schema, '--dbname', databaseUrl],
      { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
    // Without pg_dump each app migrates itself, as before: slower, the same result.
    if (dump.status !== 0 || !dump.stdout.includes(`CREATE TABLE ${schema}.`)) {
      process.stdout.write(
        `No PostgreSQL template (pg_dump: ${dump.error?.message ?? dump.stderr.trim()})\n`,
      );
      rmSync(dir, { recursive: true, force: true });
      return null;
    }
    const pgDumpFile = path.join(dir, 'schema.sql');
    // psql meta-commands (pg_dump 15.14+ brackets its output in \restrict ... \unrestrict) are
    // not SQL: dropped.
    const statements = dump.stdout
      .split('\n')
      .filter((line) => !line.startsWith('\\'))
      .join('\n');
    writeFileSync(pgDumpFile, statements.split(schema).join(SCHEMA_PLACEHOLDER));
    return { dir, pgDumpFile };
  } finally {
    await adminQuery(databaseUrl, `drop schema ${schema} cascade`);
  }
}

/** Gives a new app's database (its empty data directory, or its schema, not yet created) the template's. */
export async function copyDbTemplate(
  template: DbTemplate,
  target: { dataDir: string; databaseUrl: string | null; pgSchema?: string },
): Promise<void> {
  if (template.sqliteFile) {
    copyFileSync(template.sqliteFile, path.join(target.dataDir, SQLITE_FILE));
    return;
  }
  if (template.pgDumpFile && target.databaseUrl && target.pgSchema) {
    pgDump ??= readFileSync(template.pgDumpFile, 'utf8');
    // The dump creates the schema itself; one simple query runs all of its statements.
    await adminQuery(target.databaseUrl, pgDump.split(SCHEMA_PLACEHOLDER).join(target.pgSchema));
  }
}

let pgDump: string | undefined;

async function adminQuery(databaseUrl: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}
