import type { Executor } from './executor.js';

/**
 * The tables the outbox runner claims work from. Each keeps its own columns (a delivery log, a
 * notification log) and shares the claim columns: `status` ('pending' while there is work),
 * `attempts`, `next_attempt_at`, `last_error` and `updated_at`.
 */
export type OutboxTable = 'webhook_deliveries' | 'notifications' | 'chain_transfers' | 'chain_batches';

/** Each table's key: a chain transfer is keyed by its ledger row, the others by their own id. */
const KEY_COLUMN: Record<OutboxTable, 'id'> = {
  webhook_deliveries: 'id',
  notifications: 'id',
  chain_transfers: 'txn_id' as 'id',
  chain_batches: 'id',
};

/** The claim columns as every outbox table has them. */
type ClaimColumns = {
  status?: string;
  attempts?: number;
  next_attempt_at?: string;
  last_error?: string | null;
  updated_at: string;
};

/**
 * One shape for every outbox table: the claim columns have the same names and types in each, so
 * the statements are written once against that shape (Kysely types a single table); the key
 * column comes from KEY_COLUMN.
 */
function table(db: Executor, name: OutboxTable) {
  return db.updateTable(name as 'notifications');
}

/**
 * Claims a due row for one attempt: a compare-and-set on the `next_attempt_at` and `attempts`
 * the caller listed pushes it to `leaseUntil`, so no other instance attempts it until then.
 * `attempts` is in the guard because a settled attempt always changes it, while its new
 * `next_attempt_at` can equal the listed one (a zero wait under a clock that has not moved):
 * a caller that listed the row before another's attempt must not claim it again. Only a row due
 * at `now` is claimed: a row read outside a due listing (the payout's first send, inline with the
 * completion) may already be claimed by another runner mid-send, and its `next_attempt_at` is then
 * that runner's lease, in the future: matching it would take the claim over and send again.
 * `attempts` is written when the kind counts an attempt at its claim. Returns whether this caller
 * won the row.
 */
export async function claimDue(
  db: Executor,
  name: OutboxTable,
  id: string,
  listed: { nextAttemptAt: string; attempts: number },
  claim: { leaseUntil: string; now: string; attempts?: number },
): Promise<boolean> {
  const set: ClaimColumns = { next_attempt_at: claim.leaseUntil, updated_at: claim.now };
  if (claim.attempts !== undefined) set.attempts = claim.attempts;
  const claimed = await table(db, name)
    .set(set as never)
    .where(KEY_COLUMN[name], '=', id)
    .where('status', '=', 'pending')
    .where('next_attempt_at', '=', listed.nextAttemptAt)
    .where('next_attempt_at', '<=', claim.now)
    .where('attempts', '=', listed.attempts)
    .executeTakeFirst();
  return claimed.numUpdatedRows > 0n;
}

/**
 * Writes an attempt's outcome only while the row is still pending at `heldAt` (the lease its
 * claim set, or the listed time for rows settled without a claim): an attempt that outlived its
 * lease, whose row another instance has claimed since, changes nothing. `columns` are the
 * table's own (a status code, a sent time). Returns whether it was written.
 */
export async function settleClaimed(
  db: Executor,
  name: OutboxTable,
  id: string,
  heldAt: string,
  set: ClaimColumns,
  columns: Record<string, string | number | null> = {},
): Promise<boolean> {
  const result = await table(db, name)
    .set({ ...columns, ...set } as never)
    .where(KEY_COLUMN[name], '=', id)
    .where('status', '=', 'pending')
    .where('next_attempt_at', '=', heldAt)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
