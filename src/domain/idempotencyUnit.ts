import { AsyncLocalStorage } from 'node:async_hooks';
import type { Executor } from '../db/repositories/executor.js';

// Apart from idempotency.ts so that inTransaction (which binds keys) and idempotent() (which runs
// effects in transactions) do not import each other.

export interface Unit {
  bindInTransaction(trx: Executor, result: unknown): Promise<void>;
  bound: boolean;
}

/**
 * The unit of the request being run, seen by inTransaction: the first transaction the effect
 * commits completes the key and stores its response in that same transaction.
 */
export const currentUnit = new AsyncLocalStorage<Unit>();

/** Called by inTransaction inside each transaction, after its work and before its commit. */
export async function bindIdempotencyKey(trx: Executor, result: unknown): Promise<boolean> {
  const unit = currentUnit.getStore();
  if (!unit || unit.bound) return false;
  await unit.bindInTransaction(trx, result);
  return true;
}

/** Called by inTransaction once the binding transaction committed. */
export function markIdempotencyKeyBound(): void {
  const unit = currentUnit.getStore();
  if (unit) unit.bound = true;
}
