import { describe, expect, it } from 'vitest';
import { type FollowerProblems, followerProblemLog } from '../../src/followerLog.js';

/** The follower's recorded failures become log lines once each, whatever the poll rate. */
describe('chain follower failures in the log', () => {
  it('warns once per failed attempt and once per transaction given up, with the error', async () => {
    const lines: { msg: string; fields: Record<string, unknown> }[] = [];
    const log = { warn: (fields: Record<string, unknown>, msg: string) => lines.push({ fields, msg }) };
    let state: FollowerProblems = {
      stuck: null,
      skipped: { count: 4, last: { txHash: 'old', lt: '1', error: 'e', at: '' } },
    };
    const check = followerProblemLog(async () => state, log as never);
    await check(); // the baseline: skips from before this start are not repeated
    const stuck = (attempts: number) => ({ txHash: 'abc', lt: '7', attempts, error: 'bad memo', at: '' });
    state = { ...state, stuck: stuck(1) };
    await check();
    await check(); // unchanged: nothing more
    state = { ...state, stuck: stuck(2) };
    await check();
    state = {
      stuck: null,
      skipped: { count: 5, last: { txHash: 'abc', lt: '7', error: 'bad memo', at: '' } },
    };
    await check();
    await check();
    expect(lines.map((l) => l.msg)).toEqual([
      'chain follower: wallet transaction abc failed (attempt 1); tried again next round: bad memo',
      'chain follower: wallet transaction abc failed (attempt 2); tried again next round: bad memo',
      'chain follower: wallet transaction abc given up after its attempts and kept for the operator (GET /admin/chain): bad memo',
    ]);
    expect(lines[0]!.fields).toMatchObject({
      background: 'chain follower',
      txHash: 'abc',
      attempt: 1,
      error: 'bad memo',
    });
  });
});
