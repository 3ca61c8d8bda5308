import type { Executor } from './executor.js';

/** Small named values the chain loops persist (the follower's cursor, the payout pause alert). */
export async function readChainState(db: Executor, key: string): Promise<string | null> {
  const row = await db.selectFrom('chain_state').select('value').where('key', '=', key).executeTakeFirst();
  return row?.value ?? null;
}

/** Several values in one query: key -> value, for the keys that are set. */
export async function readChainStates(db: Executor, keys: string[]): Promise<Map<string, string>> {
  const rows = await db.selectFrom('chain_state').select(['key', 'value']).where('key', 'in', keys).execute();
  return new Map(rows.map((row) => [row.key, row.value]));
}

export async function writeChainState(db: Executor, key: string, value: string, now: string): Promise<void> {
  await db
    .insertInto('chain_state')
    .values({ key, value, updated_at: now })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value, updated_at: now }))
    .execute();
}

export async function deleteChainState(db: Executor, key: string): Promise<void> {
  await db.deleteFrom('chain_state').where('key', '=', key).execute();
}
