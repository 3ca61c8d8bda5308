import type { FastifyBaseLogger } from 'fastify';
import type { SkippedTransactions, StuckTransaction } from './domain/chain/followerProblems.js';

export interface FollowerProblems {
  stuck: StuckTransaction | null;
  skipped: SkippedTransactions | null;
}

/**
 * The wallet follower records a transaction it failed to process (tried again next round, up to
 * MAX_TX_ATTEMPTS, then skipped and kept for the operator) in the database, where GET
 * /admin/chain shows it. This turns those records into log lines after each round: a warn with
 * the error for each new failed attempt and each transaction given up, nothing while they do not
 * change, so a stuck transaction writes at most MAX_TX_ATTEMPTS + 1 lines.
 */
export function followerProblemLog(read: () => Promise<FollowerProblems>, log: FastifyBaseLogger) {
  let seenStuck: string | null = null;
  let seenSkipped: number | null = null;
  return async function check(): Promise<void> {
    const { stuck, skipped } = await read();
    const stuckKey = stuck ? `${stuck.txHash}#${stuck.attempts}` : null;
    if (stuck && stuckKey !== seenStuck) {
      log.warn(
        {
          background: 'chain follower',
          txHash: stuck.txHash,
          lt: stuck.lt,
          attempt: stuck.attempts,
          error: stuck.error,
        },
        `chain follower: wallet transaction ${stuck.txHash} failed (attempt ${stuck.attempts}); tried again next round: ${stuck.error}`,
      );
    }
    seenStuck = stuckKey;
    const count = skipped?.count ?? 0;
    // The first reading after a start only sets the baseline: those were logged by the last run.
    if (seenSkipped !== null && count > seenSkipped && skipped) {
      log.warn(
        {
          background: 'chain follower',
          txHash: skipped.last.txHash,
          lt: skipped.last.lt,
          error: skipped.last.error,
        },
        `chain follower: wallet transaction ${skipped.last.txHash} given up after its attempts and kept for the operator (GET /admin/chain): ${skipped.last.error}`,
      );
    }
    seenSkipped = count;
  };
}
