import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { expect } from 'vitest';
import { adminQuery, TEST_DATABASE_URL } from './app.js';

/**
 * The real service as a child process (`node --import tsx src/main.ts`), so a test can SIGKILL it
 * and start it again on the same database.
 */
export interface ServiceProcess {
  url: string;
  child: ChildProcess;
  /** Resolves with the signal or exit code when the process ends. */
  exited: Promise<string>;
  output(): string;
  stop(): Promise<void>;
}

export async function startService(env: Record<string, string>): Promise<ServiceProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: process.cwd(),
    env: { ...process.env, NODE_ENV: 'development', LOG_LEVEL: 'info', HOST: '127.0.0.1', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<string>((resolve) => {
    child.on('exit', (code, signal) => resolve(signal ?? `exit ${code}`));
  });
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match) resolve(match[1]!);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((how) => reject(new Error(`the service ended (${how}) before listening:\n${out}`)));
  });
  return {
    url,
    child,
    exited,
    output: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Polls `check` until it holds (bounded); a bug fails the test instead of hanging it. */
export async function eventually(check: () => Promise<boolean>, what: string, maxTries = 300): Promise<void> {
  for (let i = 0; i < maxTries; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(await check(), `never happened: ${what}`).toBe(true);
}

/**
 * The database a child service runs on: a fresh PostgreSQL schema (its `DATABASE_URL`) when the
 * suite runs on PostgreSQL, else nothing (the SQLite default in its DATA_DIR). `drop` removes it.
 */
export async function serviceDatabase(
  prefix: string,
): Promise<{ env: Record<string, string>; schema: string | null; drop(): Promise<void> }> {
  if (!TEST_DATABASE_URL) return { env: {}, schema: null, drop: async () => {} };
  const schema = `${prefix}_${randomBytes(5).toString('hex')}`;
  await adminQuery(`create schema ${schema}`);
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    env: { DATABASE_URL: url.toString() },
    schema,
    drop: () => adminQuery(`drop schema ${schema} cascade`),
  };
}

/**
 * What every child service of these tests is started with: its data directory, its database,
 * fresh secrets and a bot token, and a per-key request limit the tests' polling never reaches.
 * `extra` adds or overrides settings.
 */
export function serviceEnv(
  dataDir: string,
  database: { env: Record<string, string> },
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    DATA_DIR: dataDir,
    ...database.env,
    ADMIN_TOKEN: randomBytes(16).toString('hex'),
    SECRET_KEY: randomBytes(32).toString('hex'),
    TELEGRAM_BOT_TOKEN: `100000:${randomBytes(16).toString('hex')}`,
    RATE_LIMIT_STANDARD: '100000',
    ...extra,
  };
}

/**
 * Runs `sql` on a child service's own database, its SQLite file in `dataDir` or its PostgreSQL
 * `schema` (serviceDatabase), and returns the rows. SQLite opens read-only unless `write`.
 */
export async function queryServiceDatabase<T>(
  where: { dataDir: string; schema: string | null },
  sql: string,
  write = false,
): Promise<T[]> {
  if (!where.schema) {
    const file = new Database(path.join(where.dataDir, 'handoff.sqlite'), { readonly: !write });
    try {
      const statement = file.prepare(sql);
      if (!statement.reader) {
        statement.run();
        return [];
      }
      return statement.all() as T[];
    } finally {
      file.close();
    }
  }
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL! });
  await client.connect();
  try {
    await client.query(`set search_path to ${where.schema}`);
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}
