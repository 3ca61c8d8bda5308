import { describe, expect, it } from 'vitest';
import {
  providerErrorLabel,
  unmatchedReasonLabel,
  watcherBacklogLabel,
  watcherProblemsLabel,
} from '../../web/console/src/chainLabels.js';

const hash = 'ab'.repeat(32);

describe("the console's words for the deposit watcher", () => {
  it('names every reason a deposit is unmatched', () => {
    expect(unmatchedReasonLabel('unknown_memo')).toBe('unknown memo');
    expect(unmatchedReasonLabel('below_minimum')).toBe('below the minimum');
    expect(unmatchedReasonLabel('unreadable_memo')).toBe('unreadable comment');
    expect(unmatchedReasonLabel('not_credited')).toBe('could not be credited');
  });

  it('says none, stuck, skipped, or both', () => {
    const none = { stuck: null, maxAttempts: 3, skipped: { count: 0, last: null } };
    expect(watcherProblemsLabel(none)).toBe('none');
    const stuck = { txHash: hash, attempts: 2, error: 'database is locked' };
    const last = { txHash: hash, at: '2026-11-26T08:00:00.000Z', error: 'limit' };
    expect(watcherProblemsLabel({ ...none, stuck })).toBe(
      'retrying transaction abababababab… (failed 2 of 3 times): database is locked',
    );
    const skipped = watcherProblemsLabel({ ...none, skipped: { count: 1, last } });
    expect(skipped).toBe(
      '1 transaction skipped after failing 3 times (any money they brought is listed under unmatched deposits); the last, abababababab… at 2026-11-26 08:00: limit',
    );
    const both = watcherProblemsLabel({ ...none, stuck, skipped: { count: 2, last } });
    expect(both).toMatch(/^retrying transaction .+\. 2 transactions skipped /);
  });

  it('shows a backlog only while there is one', () => {
    expect(watcherBacklogLabel(null)).toBeNull();
    const walk = { pages: 4, transactions: 116, reachedCursor: false, unprocessed: 116 };
    expect(watcherBacklogLabel(walk)).toBe('catching up: 116 new transactions read so far (4 pages)');
    expect(watcherBacklogLabel({ ...walk, reachedCursor: true })).toBe('processing 116 new transactions');
    expect(watcherBacklogLabel({ ...walk, reachedCursor: true, unprocessed: 0 })).toBeNull();
  });

  it("shows the provider's last error as text", () => {
    expect(providerErrorLabel(null)).toBe('no error');
    expect(providerErrorLabel({ message: 'getTransactions: HTTP 503', at: '2026-11-26T08:00:00.000Z' })).toBe(
      'last error at 2026-11-26 08:00: getTransactions: HTTP 503',
    );
  });
});
