import type { Kysely } from 'kysely';
import type { Executor } from '../db/repositories/executor.js';
import type { Database } from '../db/schema.js';
import { passTrace } from './events/traceContext.js';

// Apart from idempotency.ts so that inTransaction (which binds keys) and idempotent() (which runs
// effects in transactions) do not import each other.

export interface Unit {
  bindInTransaction(trx: Executor, result: unknown): Promise<void>;
  bound: boolean;
}

/** The unit of each handle made by withUnit; the handle goes when its request is done. */
const units = new WeakMap<object, Unit>();

/**
 * A handle on the same database (same executor, connections and plugins) that carries `unit`:
 * idempotent() gives the effect a context with it, and inTransaction, called with it, completes
 * the key in the first transaction the effect commits.
 *
 * Why a handle and not AsyncLocalStorage: once a process runs one AsyncLocalStorage, Node
 * enables its promise hooks for every promise from then on. After the first request with an
 * Idempotency-Key, every request paid for them: POST /tasks 113-121 -> 134-138 us of server
 * CPU a request, GET /tasks/:id 35-36 -> 37-39 us (bench/profile.ts, two runs each). A handle
 * also reaches only the code the effect runs with it, and only until the effect settles
 * (forgetUnit): AsyncLocalStorage's context also followed the timers and wake-ups the effect
 * set, into transactions of their own.
 */
export function withUnit(db: Kysely<Database>, unit: Unit): Kysely<Database> {
  // withTables adds no table here: it is Kysely's plain copy of a handle.
  const handle: Kysely<Database> = db.withTables<Record<never, never>>();
  units.set(handle, unit);
  passTrace(db, handle);
  return handle;
}

/** The handle's unit is done with: its transactions from now on are plain ones. */
export function forgetUnit(handle: object): void {
  units.delete(handle);
}

/**
 * Called by inTransaction inside each transaction, after its work and before its commit, with
 * the handle the transaction was opened on: true when it completed that handle's key.
 */
export async function bindIdempotencyKey(db: object, trx: Executor, result: unknown): Promise<boolean> {
  const unit = units.get(db);
  if (!unit || unit.bound) return false;
  await unit.bindInTransaction(trx, result);
  return true;
}

/** Called by inTransaction once the binding transaction committed. */
export function markIdempotencyKeyBound(db: object): void {
  const unit = units.get(db);
  if (unit) unit.bound = true;
}
