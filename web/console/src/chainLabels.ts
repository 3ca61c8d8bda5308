/**
 * The deposit watcher's states in words, in one place (GET /admin/chain and the unmatched
 * deposits list): an operator never sees a raw reason code or an object.
 */

/** Why a deposit waits for the operator. */
export function unmatchedReasonLabel(reason: string): string {
  switch (reason) {
    case 'below_minimum':
      return 'below the minimum';
    case 'unreadable_memo':
      return 'unreadable comment';
    case 'not_credited':
      return 'could not be credited';
    default:
      return 'unknown memo';
  }
}

interface WatcherProblems {
  stuck: { txHash: string; attempts: number; error: string } | null;
  maxAttempts: number;
  skipped: { count: number; last: { txHash: string; at: string; error: string } | null };
}

const short = (hash: string) => `${hash.slice(0, 12)}…`;
const when = (iso: string) => iso.slice(0, 16).replace('T', ' ');

/** The transaction the watcher is retrying, and those it gave up on; 'none' when all went through. */
export function watcherProblemsLabel(watcher: WatcherProblems): string {
  const parts: string[] = [];
  if (watcher.stuck) {
    const { txHash, attempts, error } = watcher.stuck;
    parts.push(
      `retrying transaction ${short(txHash)} (failed ${attempts} of ${watcher.maxAttempts} times): ${error}`,
    );
  }
  const { count, last } = watcher.skipped;
  if (count > 0 && last) {
    parts.push(
      `${count} ${count === 1 ? 'transaction' : 'transactions'} skipped after failing ${watcher.maxAttempts} times (any money they brought is listed under unmatched deposits); the last, ${short(last.txHash)} at ${when(last.at)}: ${last.error}`,
    );
  }
  return parts.length > 0 ? parts.join('. ') : 'none';
}

interface WatcherWalk {
  pages: number;
  transactions: number;
  reachedCursor: boolean;
  unprocessed: number;
}

/** A backlog being read or processed, or null when the watcher is up to date. */
export function watcherBacklogLabel(walk: WatcherWalk | null): string | null {
  if (!walk) return null;
  if (!walk.reachedCursor) {
    return `catching up: ${walk.transactions} new transactions read so far (${walk.pages} pages)`;
  }
  return walk.unprocessed > 0 ? `processing ${walk.unprocessed} new transactions` : null;
}

/** The provider's last error, with when it happened. */
export function providerErrorLabel(error: { message: string; at: string } | null): string {
  return error ? `last error at ${when(error.at)}: ${error.message}` : 'no error';
}
