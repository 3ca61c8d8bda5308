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
  /**
   * Where lost connections are reported (PostgreSQL: a client's socket closed or failed). Until a
   * listener is set they are dropped: the next query fails and says so, and GET /ready answers 503.
   */
  onConnectionError(listener: (error: Error) => void): void;
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

/**
 * A new PostgreSQL connection that is not up within this fails (a host that drops packets would
 * otherwise hold the request until the kernel gives up, minutes later): the request answers 503
 * and GET /ready says why.
 */
export const PG_CONNECT_TIMEOUT_MS = 5_000;

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
  return { db, dialect: 'sqlite', close, onConnectionError: () => {} };
}

function openPostgres(url: string, options: DatabaseOptions): Db {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.pgPoolSize ?? 10,
    connectionTimeoutMillis: PG_CONNECT_TIMEOUT_MS,
    // A peer that vanished without closing (a failover, a cut cable) is noticed by the kernel.
    keepAlive: true,
    ...(options.pgSchema ? { options: `-c search_path=${options.pgSchema}` } : {}),
    types: {
      // int8 as bigint, not the string pg returns by default; everything else as pg does.
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === PG_INT8_OID
          ? (value: string) => BigInt(value)
          : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // A connection that breaks emits 'error' on its client, and an 'error' nobody listens to ends
  // the process (a PostgreSQL restart or failover took every instance down with it). The pool
  // listens on idle clients only; this listener covers clients in use too. The broken client is
  // not queryable any more: its query fails, the pool drops it and the next one connects anew.
  let listener: (error: Error) => void = () => {};
  const report = (error: Error) => listener(error);
  pool.on('connect', (client) => client.on('error', report));
  // The pool re-emits an idle client's error, already reported by the client's own listener.
  pool.on('error', () => {});
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool }),
    plugins: [new BigintColumnsPlugin()],
  });
  return {
    db,
    dialect: 'postgres',
    close: () => db.destroy(),
    onConnectionError: (next) => {
      listener = next;
    },
  };
}
