import path from 'node:path';
import SQLite, { type Database as SqliteFile } from 'better-sqlite3';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { BigintColumnsPlugin } from './bigintPlugin.js';
import { startBackgroundCheckpoints } from './checkpointer.js';
import type { Database } from './schema.js';
import { GroupCommitSqliteDialect } from './sqliteDriver.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Db {
  db: Kysely<Database>;
  dialect: Dialect;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** A postgres:// URL; null for SQLite. */
  databaseUrl: string | null;
  /** Where the SQLite file lives. */
  dataDir: string;
  /** PostgreSQL schema to use (tests give each file its own). */
  pgSchema?: string;
  /** PostgreSQL pool size. */
  pgPoolSize?: number;
}

const PG_INT8_OID = 20;

export function openDatabase(options: DatabaseOptions): Db {
  return options.databaseUrl ? openPostgres(options.databaseUrl, options) : openSqlite(options.dataDir);
}

/**
 * The embedded database's file, opened with the settings the app runs it with (WAL, pragmas,
 * bigint integers): shared with the bench's floor (bench/floor.ts), which must run as the app.
 */
export function openSqliteFile(filePath: string): SqliteFile {
  const file = new SQLite(filePath);
  file.pragma('journal_mode = WAL');
  // FULL: every commit syncs the WAL before it returns, so a 201 with money in it survives a
  // power cut or an OS crash, not only a crash of the process (NORMAL syncs the WAL only at
  // checkpoints, and a power cut could take the last acknowledged transactions). Group commit
  // (sqliteDriver.ts) makes one sync serve every transaction of the group.
  file.pragma('synchronous = FULL');
  file.pragma('foreign_keys = ON');
  file.pragma('busy_timeout = 5000');
  // Savepoints (a transaction's own, in the second after one failed: see sqliteDriver.ts) and
  // statements that may need to undo themselves copy each page they first touch into a
  // sub-journal; in a temporary file that made every insert and update two to three times as
  // expensive (measured: the task insert 38-47 us with a file, 15 us in memory). The
  // sub-journal holds only the pages one transaction touches, so memory is the right place.
  file.pragma('temp_store = MEMORY');
  // Integers come back as bigint so nanoton amounts never pass through a float.
  file.defaultSafeIntegers(true);
  return file;
}

function openSqlite(dataDir: string): Db {
  const filePath = path.join(dataDir, 'handoff.sqlite');
  const file = openSqliteFile(filePath);
  const checkpoints = startBackgroundCheckpoints(file, filePath);
  // The driver applies BigintColumnsPlugin's rule as it builds each row: no plugin pass.
  const db = new Kysely<Database>({
    dialect: new GroupCommitSqliteDialect(file, { normalizeIntegers: true }),
  });
  const close = async () => {
    await checkpoints.stop();
    await db.destroy();
  };
  return { db, dialect: 'sqlite', close };
}

function openPostgres(url: string, options: DatabaseOptions): Db {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.pgPoolSize ?? 10,
    ...(options.pgSchema ? { options: `-c search_path=${options.pgSchema}` } : {}),
    types: {
      // int8 as bigint, not the string pg returns by default; everything else as pg does.
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === PG_INT8_OID
          ? (value: string) => BigInt(value)
          : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool }),
    plugins: [new BigintColumnsPlugin()],
  });
  return { db, dialect: 'postgres', close: () => db.destroy() };
}
