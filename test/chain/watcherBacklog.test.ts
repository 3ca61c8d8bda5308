import { type Address, toNano } from '@ton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readChainState } from '../../src/db/repositories/chainState.js';
import { CURSOR_KEY, followWallet } from '../../src/domain/chain/chainFollower.js';
import { WALK_KEY } from '../../src/domain/chain/chainWalk.js';
import { formatTon } from '../../src/domain/money/money.js';
import { agentMe, createAgent, expectBooksBalanced, type TestAgent } from '../helpers/fixtures.js';
import { createLiveTestApp, type LiveTestApp, roundsUntil } from '../helpers/liveChain.js';

/**
 * A backlog far past what one round may read (an outage with a busy wallet, or a dust flood):
 * 5,000 transfers arrive at once. The watcher reads it back a few pages a round, within its
 * request budget, keeps what it read across rounds (and a provider error), then credits every
 * deposit exactly once, oldest first.
 */
const BACKLOG = 5_000;
const AGENTS = 20;
const PAGES_PER_ROUND = 10;

describe('the deposit watcher behind by 5,000 transactions', () => {
  let l: LiveTestApp;
  let hot: Address;
  let agents: TestAgent[];
  beforeAll(async () => {
    l = await createLiveTestApp();
    hot = l.live.wallet.address;
    await roundsUntil(l, async () => (await readChainState(l.t.ctx.db, CURSOR_KEY)) !== null);
    agents = [];
    for (let i = 0; i < AGENTS; i++) agents.push(await createAgent(l.t));
  }, 180_000); // a fresh fake chain, app and mnemonic on a busy 2-core machine
  afterAll(() => l.close());

  it('catches up within its budget and credits every deposit exactly once, oldest first', async () => {
    // Every tenth transfer is dust (below the minimum): kept for the operator, not credited.
    const transfers = Array.from({ length: BACKLOG }, (_, i) => ({
      amountNano: (i % 10 === 9 ? toNano('0.001') : toNano('0.01')) + BigInt(i),
      comment: agents[i % AGENTS]!.id,
    }));
    const made = await l.fake.appendBacklog(hot, transfers);
    const backlog = made.map((tx, i) => ({ ...tx, amountNano: transfers[i]!.amountNano }));
    expect(backlog).toHaveLength(BACKLOG);

    l.live.walkRequestsPerRound = PAGES_PER_ROUND;
    const pages = () => l.fake.requests.get('getTransactions') ?? 0;
    const startPages = pages();
    let rounds = 0;
    let walkingRounds = 0;
    for (; rounds < 60; rounds++) {
      if (rounds === 3) l.fake.inject('getTransactions', { kind: 'status', status: 503 });
      const before = pages();
      await followWallet(l.t.ctx, l.live).catch(() => undefined); // the loop logs and retries it
      expect(pages() - before).toBeLessThanOrEqual(PAGES_PER_ROUND);
      const walk = await readChainState(l.t.ctx.db, WALK_KEY);
      if (walk && !JSON.parse(walk).done) walkingRounds += 1;
      if (walk === null) break;
    }
    // Many rounds of reading, each within budget, and no page read twice: each page of 30
    // brings 29 new transactions (it starts at the last one read), plus the 503 and the last page.
    expect(walkingRounds).toBeGreaterThan(BACKLOG / 30 / PAGES_PER_ROUND - 1);
    expect(pages() - startPages).toBeLessThanOrEqual(Math.ceil(BACKLOG / 29) + 3);
    const cursor = JSON.parse((await readChainState(l.t.ctx.db, CURSOR_KEY))!);
    expect(cursor.lt).toBe(backlog.at(-1)!.lt.toString());

    const rows = await l.t.ctx.db
      .selectFrom('transactions')
      .select(['id', 'agent_id', 'amount_nano', 'tx_hash'])
      .where('type', '=', 'DEPOSIT')
      .where(
        'agent_id',
        'in',
        agents.map((a) => a.id),
      )
      .orderBy('id')
      .execute();
    const credited = backlog.filter((tx) => tx.amountNano >= toNano('0.01'));
    expect(rows).toHaveLength(BACKLOG - BACKLOG / 10);
    // Exactly once each, in the chain's order (ledger ids are made in order).
    expect(rows.map((r) => r.tx_hash)).toEqual(credited.map((tx) => tx.hash));
    const dust = await l.t.ctx.db
      .selectFrom('unmatched_deposits')
      .select('tx_hash')
      .where('reason', '=', 'below_minimum')
      .execute();
    expect(dust).toHaveLength(BACKLOG / 10);
    for (const [i, agent] of agents.entries()) {
      const sum = transfers
        .filter((t, k) => k % AGENTS === i && t.amountNano >= toNano('0.01'))
        .reduce((a, t) => a + t.amountNano, 0n);
      expect((await agentMe(l.t, agent)).balance).toBe(formatTon(sum));
    }
    await expectBooksBalanced(l.t);

    const status = (await l.t.app.inject({ method: 'GET', url: '/admin/chain', headers: l.t.admin })).json();
    expect(status.watcher).toMatchObject({ walk: null, stuck: null, skipped: { count: 0 } });
    // The books against the chain: every credited deposit and every unmatched one is accounted for.
    const reconciliation = await l.t.app.inject({
      method: 'GET',
      url: '/admin/reconciliation',
      headers: l.t.admin,
    });
    expect(reconciliation.json()).toMatchObject({ ok: true, differences: [] });
  }, 900_000); // 5,000 credits: minutes on PostgreSQL on a busy 2-core machine
});
