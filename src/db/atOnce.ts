import type { CompiledQuery } from 'kysely';
import { GroupCommitSqliteAdapter } from './sqliteDriver.js';

/** What rowsAtOnce needs of a Kysely handle (any database type, a transaction or not). */
interface Handle {
  readonly isTransaction: boolean;
  getExecutor(): { readonly adapter: unknown; readonly plugins: readonly unknown[] };
}

/**
 * Runs a compiled query on the embedded SQLite database at once, when it can: outside a
 * transaction, with nobody holding the connection, and with no Kysely plugin (whose result
 * transform this would skip). Returns its rows, exactly as `db.executeQuery` would have; null
 * means "go the usual way" (PostgreSQL, a transaction, a busy connection).
 *
 * Inside a transaction this holds only while the transaction's own work is running (see
 * `whileRunning`): transactions hold SQLite's one connection one at a time, so the running one
 * holds it, and its statements may run at once too.
 *
 * Why: Kysely's path to the connection (executor, connection provider, runtime driver, our
 * driver's acquire and release) costs about ten promises per statement, for a statement that
 * itself runs synchronously in a few microseconds.
 */
export function rowsAtOnce<Row>(db: Handle, query: CompiledQuery<Row>): Row[] | null {
  if (db.isTransaction && !running.has(db)) return null;
  const executor = db.getExecutor();
  const { adapter, plugins } = executor;
  if (!(adapter instanceof GroupCommitSqliteAdapter)) return null;
  // A plugin's result transform would be skipped here (the driver shapes SQLite's rows itself).
  if (plugins.length > 0) return null;
  const result = adapter.dialect.runAtOnce(query, db.isTransaction);
  return result ? (result.rows as Row[]) : null;
}

/** Transactions whose work is running now (at most one on SQLite, which has one connection). */
const running = new WeakSet<object>();

/**
 * Runs a transaction's work, marked as running for rowsAtOnce. The mark goes when the work
 * ends, before the commit: a statement issued after that goes Kysely's way, which refuses it.
 */
export async function whileRunning<T>(trx: Handle, work: () => Promise<T>): Promise<T> {
  running.add(trx);
  try {
    return await work();
  } finally {
    running.delete(trx);
  }
}
