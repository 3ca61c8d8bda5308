import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** An unreachable server should cost the run seconds, not the driver's default of forever. */
const CONNECT_TIMEOUT_MS = 3_000;
const PLAIN_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * Runs statements on one short-lived connection. The benchmark's own app uses a pool; these
 * set-up statements (create database, create/drop schema) must not come out of it.
 */
async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The database a URL names; only plain identifiers, since it is spliced into SQL and a RegExp. */
export function databaseName(url: string): string {
  const name = decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));
  if (!PLAIN_IDENTIFIER.test(name)) {
    throw new Error(`the bench database name must be a plain identifier, got "${name}"`);
  }
  return name;
}

/**
 * Makes sure the bench database exists, creating it through the `postgres` maintenance database
 * when it does not (CREATE DATABASE cannot run inside the database it creates). Returns the
 * server's `select version()`. Throws when the server cannot be reached.
 */
export async function preparePostgres(url: string): Promise<string> {
  const name = databaseName(url);
  const maintenance = new URL(url);
  maintenance.pathname = '/postgres';
  await withClient(maintenance.toString(), async (client) => {
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount === 0) await client.query(`create database "${name}"`);
  });
  return withClient(url, async (client) => {
    const result = await client.query<{ version: string }>('select version() as version');
    return result.rows[0]?.version ?? 'unknown';
  });
}

/** A fresh schema per run, as test/helpers/app.ts does, so runs never see each other's rows. */
export async function createBenchSchema(url: string): Promise<string> {
  const schema = `bench_${randomBytes(6).toString('hex')}`;
  await withClient(url, (client) => client.query(`create schema ${schema}`));
  return schema;
}

export async function dropBenchSchema(url: string, schema: string): Promise<void> {
  if (!PLAIN_IDENTIFIER.test(schema)) throw new Error(`refusing to drop schema "${schema}"`);
  await withClient(url, (client) => client.query(`drop schema if exists ${schema} cascade`));
}
