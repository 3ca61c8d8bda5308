import type { Kysely, Transaction } from 'kysely';
import { whileRunning } from '../db/atOnce.js';
import type { Database } from '../db/schema.js';
import { GROUP_UNDONE_CODE } from '../db/sqliteDriver.js';
import { passTrace } from './events/traceContext.js';
import { bindIdempotencyKey, markIdempotencyKeyBound } from './idempotencyUnit.js';

const MAX_ATTEMPTS = 5;
/**
 * Failures that undid the whole transaction and ask for it to be run again: PostgreSQL's
 * serialization failure and deadlock, and SQLite's group undone by another member's failure
 * (sqliteDriver.ts).
 */
const RETRYABLE_CODES = new Set(['40001', '40P01', GROUP_UNDONE_CODE]);

/**
 * Runs `work` in one database transaction: the state change, its ledger rows and its events
 * commit together or not at all. A transaction the database undid for a reason other than its
 * own (above) is run again from the start (bounded), which is safe because `work` does only
 * database work and nothing of the undone run was committed or acknowledged.
 */
export async function inTransaction<T>(
  db: Kysely<Database>,
  work: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      let bound = false;
      const result = await db.transaction().execute(async (trx) => {
        // A request's trace reaches the events this transaction records (traceContext.ts).
        passTrace(db, trx);
        const value = await whileRunning(trx, () => work(trx));
        // Under an Idempotency-Key, the request's first transaction also completes the key
        // (see idempotent(), whose handle `db` is then), so the effect and its stored response
        // commit together.
        bound = await bindIdempotencyKey(db, trx, value);
        return value;
      });
      if (bound) markIdempotencyKeyBound(db);
      return result;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (attempt >= MAX_ATTEMPTS || typeof code !== 'string' || !RETRYABLE_CODES.has(code)) throw error;
    }
  }
}

/** True for a unique-constraint violation on either database. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: unknown };
  return (
    e.code === '23505' || e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
  );
}
