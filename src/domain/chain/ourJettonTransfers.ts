import { jettonQueryId } from '../../chain/jetton/payout.js';
import type { Executor } from '../../db/repositories/executor.js';

/**
 * Whether a jetton query id is one of our USDT chain transfers' (jettonQueryId(txn id)): the
 * `excesses` that carries it is our own payout's unused TON coming back, not a deposit. The query
 * id is a hash, so the set is kept in memory per database, and only a miss reads the transfers
 * recorded since the last read (our excesses arrive seconds after their batch, so a miss is a
 * new transfer or a stranger's excesses; a stranger pays a chain message for each such read).
 */
const known = new WeakMap<object, { ids: Set<bigint>; since: string | null }>();
/**
 * A miss re-reads from this long before the newest transfer seen: rows commit in roughly, not
 * exactly, created_at order (two instances, a slow transaction), and re-reading a few is cheap.
 */
const REREAD_MS = 10 * 60_000;

export async function isOurJettonQueryId(db: Executor, queryId: bigint): Promise<boolean> {
  let entry = known.get(db);
  if (!entry) {
    entry = { ids: new Set(), since: null };
    known.set(db, entry);
  }
  if (entry.ids.has(queryId)) return true;
  let query = db
    .selectFrom('chain_transfers')
    .select(['txn_id', 'created_at'])
    .where('currency', '=', 'USDT');
  if (entry.since) query = query.where('created_at', '>=', entry.since);
  let newest = entry.since ? Date.parse(entry.since) + REREAD_MS : 0;
  for (const row of await query.execute()) {
    entry.ids.add(jettonQueryId(row.txn_id));
    newest = Math.max(newest, Date.parse(row.created_at));
  }
  if (newest > 0) entry.since = new Date(newest - REREAD_MS).toISOString();
  return entry.ids.has(queryId);
}
