import type { Insertable, Selectable } from 'kysely';
import type { UncreditedDepositTable } from '../schema.js';
import type { Executor } from './executor.js';

export type UncreditedDepositRow = Selectable<UncreditedDepositTable>;

/** Records the transfer once; a replay of the same chain transaction changes nothing. */
export async function recordUncreditedDeposit(db: Executor, row: Insertable<UncreditedDepositTable>) {
  await db
    .insertInto('uncredited_deposits')
    .values(row)
    .onConflict((c) => c.column('tx_hash').doNothing())
    .execute();
}

/** The newest first, at most `limit`. */
export function listUncreditedDeposits(db: Executor, limit: number) {
  return db
    .selectFrom('uncredited_deposits')
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('tx_hash', 'desc')
    .limit(limit)
    .execute();
}
