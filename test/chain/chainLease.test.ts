import { Address, toNano } from '@ton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LiveChain } from '../../src/chain/liveChain.js';
import { CURSOR_KEY, followWallet } from '../../src/domain/chain/chainFollower.js';
import { runChainSender } from '../../src/domain/chain/chainSender.js';
import { type Holder, Lease } from '../../src/domain/chain/lease.js';
import { ManualClock } from '../../src/domain/clock.js';
import { ok } from '../helpers/agentApi.js';
import { agentMe, assignedTask, createAgent } from '../helpers/fixtures.js';
import { createLiveTestApp, createLiveWorker, type LiveTestApp, roundsUntil } from '../helpers/liveChain.js';

const SETTINGS = { ttlMs: 15_000, skewMs: 5_000 };
const holder = (name: string): Holder => ({ instanceId: name, host: `${name}.example`, pid: 1, runId: name });

/**
 * Network mode's sender and follower under the chain lease, as two instances on one database
 * run them: each instance is its lease (own holder, own clock) over the same database and chain.
 */
describe('the chain sender and follower write and send only under the chain lease', () => {
  let l: LiveTestApp;
  beforeAll(async () => {
    l = await createLiveTestApp({ walletTimeoutSec: 60 });
  }, 180_000);
  afterAll(() => l.close());

  const sends = () => l.fake.requests.get('sendBoc') ?? 0;

  async function pendingPayout() {
    const agent = await createAgent(l.t);
    await l.fake.sendFromFaucet(l.live.wallet.address, toNano('20'), agent.id);
    await roundsUntil(l, async () => (await agentMe(l.t, agent)).balance === '20');
    const worker = await createLiveWorker(l.t);
    const { taskId } = await assignedTask(l.t, agent, worker, { reward: '10' });
    await ok(l.t, agent, 'POST', `/tasks/${taskId}/complete`);
    return { worker, taskId };
  }

  /** The live chain of an instance whose first balance read stops until `resume()` (a pause). */
  function pausedOnce(live: LiveChain) {
    let resume = () => {};
    let paused = false;
    const client = Object.create(live.client) as LiveChain['client'];
    client.getAccount = async (address) => {
      if (!paused) {
        paused = true;
        await new Promise<void>((resolve) => {
          resume = resolve;
        });
      }
      return live.client.getAccount(address);
    };
    return { live: { ...live, client }, resume: () => resume(), paused: () => paused };
  }

  it('a holder paused mid-round, whose lease another instance took meanwhile, writes and sends nothing when it resumes', async () => {
    const job = await pendingPayout();
    const start = l.t.clock.now();
    // a's clock stands still: on resuming it still believes it holds the lease (the worst case:
    // paused between its last check and its writes). Only the fencing token can stop it.
    const a = new Lease(l.t.ctx.db, new ManualClock(start), 'chain', holder('a'), SETTINGS);
    const clockB = new ManualClock(start);
    const b = new Lease(l.t.ctx.db, clockB, 'chain', holder('b'), SETTINGS);
    expect((await a.tick()).held).toBe(true);
    const pause = pausedOnce(l.live);
    const roundA = runChainSender(l.t.ctx, pause.live, a);
    for (let i = 0; i < 400 && !pause.paused(); i++) await new Promise((r) => setTimeout(r, 5));
    expect(pause.paused()).toBe(true);

    // a is silent for longer than its lease: b takes over, batches the transfers and sends them.
    clockB.advance(SETTINGS.ttlMs + SETTINGS.skewMs + 1_000);
    expect((await b.tick()).held).toBe(true);
    expect(a.held(), "a's own clock still says it holds").toBe(true);
    const beforeB = sends();
    await runChainSender(l.t.ctx, l.live, b);
    expect(sends() - beforeB).toBe(1);
    const batches = await l.t.ctx.db
      .selectFrom('chain_batches')
      .selectAll()
      .where('status', '=', 'pending')
      .execute();
    expect(batches).toHaveLength(1);

    // a resumes: it neither persists a batch nor claims b's (due again at once) to resend it.
    const beforeA = sends();
    pause.resume();
    expect(await roundA).toBe(0);
    expect(sends() - beforeA, 'a sent nothing after losing the lease').toBe(0);
    expect(
      await l.t.ctx.db.selectFrom('chain_batches').selectAll().where('status', '=', 'pending').execute(),
    ).toEqual(batches);
    // Nor does its follower move the cursor under b.
    const cursor = await l.t.ctx.db
      .selectFrom('chain_state')
      .selectAll()
      .where('key', '=', CURSOR_KEY)
      .execute();
    await l.fake.settle();
    expect(await followWallet(l.t.ctx, l.live, a)).toBe(0);
    expect(
      await l.t.ctx.db.selectFrom('chain_state').selectAll().where('key', '=', CURSOR_KEY).execute(),
    ).toEqual(cursor);

    // b finishes the work: the worker is paid once.
    for (let i = 0; i < 40; i++) {
      await followWallet(l.t.ctx, l.live, b);
      const rows = await l.t.ctx.db
        .selectFrom('transactions')
        .select('status')
        .where('task_id', '=', job.taskId)
        .where('status', '=', 'confirmed')
        .execute();
      if (rows.length === 2) break;
      await runChainSender(l.t.ctx, l.live, b);
      await l.fake.settle();
    }
    expect(await l.fake.balance(Address.parse(job.worker.wallet))).toBe(toNano('10'));
    await b.release();
  });

  it('a holder that cannot renew (cut off) stops before its lease ends: no request, no send', async () => {
    await pendingPayout();
    const clock = new ManualClock(l.t.clock.now());
    const a = new Lease(l.t.ctx.db, clock, 'chain', holder('cut-off'), SETTINGS);
    expect((await a.tick()).held).toBe(true);
    clock.advance(SETTINGS.ttlMs - SETTINGS.skewMs); // no renewal got through meanwhile
    const before = l.fake.totalRequests();
    expect(await runChainSender(l.t.ctx, l.live, a)).toBe(0);
    expect(await followWallet(l.t.ctx, l.live, a)).toBe(0);
    expect(l.fake.totalRequests() - before).toBe(0);
    await a.release();
  });
});
