import {
  deleteChainState,
  readChainState,
  readChainStates,
  writeChainState,
} from '../../db/repositories/chainState.js';
import type { Executor } from '../../db/repositories/executor.js';
import { withoutControlCharacters } from '../text.js';

/**
 * One transaction the wallet follower cannot process must never stop it (anyone can send the
 * deposit address a transfer). A transaction that fails is tried again on the next rounds (a
 * failure may be passing: a lost connection, a busy database) and is `stuck` meanwhile; after
 * MAX_TX_ATTEMPTS failures it is skipped: kept for the operator (as an unmatched deposit when it
 * brought money) and counted in `skipped`, and the follower moves on. Both are shown on
 * GET /admin/chain and the console's chain status.
 */
export const MAX_TX_ATTEMPTS = 3;
export const STUCK_KEY = 'wallet_stuck';
export const SKIPPED_KEY = 'wallet_skipped';
/** Error texts are kept this short (they come from anywhere, a database driver included). */
const MAX_ERROR_LENGTH = 500;

export interface StuckTransaction {
  txHash: string;
  lt: string;
  attempts: number;
  error: string;
  at: string;
}

export interface SkippedTransactions {
  count: number;
  last: { txHash: string; lt: string; error: string; at: string };
}

export async function readStuck(db: Executor): Promise<StuckTransaction | null> {
  const raw = await readChainState(db, STUCK_KEY);
  return raw ? (JSON.parse(raw) as StuckTransaction) : null;
}

export async function readSkipped(db: Executor): Promise<SkippedTransactions | null> {
  const raw = await readChainState(db, SKIPPED_KEY);
  return raw ? (JSON.parse(raw) as SkippedTransactions) : null;
}

/** Both records in one query (the follower's log reads them after every round). */
export async function readFollowerProblems(
  db: Executor,
): Promise<{ stuck: StuckTransaction | null; skipped: SkippedTransactions | null }> {
  const values = await readChainStates(db, [STUCK_KEY, SKIPPED_KEY]);
  const stuck = values.get(STUCK_KEY);
  const skipped = values.get(SKIPPED_KEY);
  return {
    stuck: stuck ? (JSON.parse(stuck) as StuckTransaction) : null,
    skipped: skipped ? (JSON.parse(skipped) as SkippedTransactions) : null,
  };
}

/** Counts one more failure of this transaction; returns the count (1 for a newly stuck one). */
export async function recordFailure(
  db: Executor,
  tx: { txHash: string; lt: string },
  error: unknown,
  now: string,
): Promise<number> {
  const before = await readStuck(db);
  const attempts = before?.txHash === tx.txHash ? before.attempts + 1 : 1;
  const stuck: StuckTransaction = { ...tx, attempts, error: errorText(error), at: now };
  await writeChainState(db, STUCK_KEY, JSON.stringify(stuck), now);
  return attempts;
}

/** The stuck transaction is given up on: counted as skipped, no longer stuck. */
export async function recordSkipped(
  db: Executor,
  tx: { txHash: string; lt: string },
  error: unknown,
  now: string,
): Promise<void> {
  const before = await readSkipped(db);
  const skipped: SkippedTransactions = {
    count: (before?.count ?? 0) + 1,
    last: { ...tx, error: errorText(error), at: now },
  };
  await writeChainState(db, SKIPPED_KEY, JSON.stringify(skipped), now);
  await deleteChainState(db, STUCK_KEY);
}

/** The stuck transaction went through after all. */
export function clearStuck(db: Executor): Promise<void> {
  return deleteChainState(db, STUCK_KEY);
}

function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  // PostgreSQL cannot store NUL, and an error may quote what a stranger sent.
  return Array.from(withoutControlCharacters(text)).slice(0, MAX_ERROR_LENGTH).join('');
}
