import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listTaskEvents } from '../../src/db/repositories/events.js';
import { sendDueTransfers } from '../../src/domain/money/payouts.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { FaultyChain } from '../helpers/faultyChain.js';
import { assignedTask, createAgent, createWorker, expectBooksBalanced } from '../helpers/fixtures.js';

const REWARD_NANO = 10_000_000_000n;

describe('payouts survive chain faults and are never sent twice', () => {
  let t: TestApp;
  let chain: FaultyChain;
  beforeAll(async () => {
    t = await createTestApp({
      wrapChain: (inner) => {
        chain = new FaultyChain(inner);
        return chain;
      },
    });
  });
  afterAll(() => t.close());

  async function ledger(agentHeaders: { authorization: string }, type: string) {
    const res = await t.app.inject({
      method: 'GET',
      url: `/transactions?type=${type}`,
      headers: agentHeaders,
    });
    return res.json().transactions as { status: string; txHash: string | null; amount: string }[];
  }

  async function paymentSentEvents(taskId: string) {
    return (await listTaskEvents(t.ctx.db, taskId)).filter((e) => e.type === 'payment.sent');
  }

  it('a chain outage leaves the payout pending; the retrier sends it exactly once', async () => {
    const agent = await createAgent(t, { deposit: '50' });
    const worker = await createWorker(t);
    const { taskId } = await assignedTask(t, agent, worker, { reward: '10' });
    const before = await t.services.chain.getBalance(worker.wallet!);

    chain.down = true;
    const res = await t.app.inject({
      method: 'POST',
      url: `/tasks/${taskId}/complete`,
      headers: agent.headers,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().task.status).toBe('COMPLETED');
    expect(res.json().payment).toMatchObject({ txHash: null, status: 'pending' });
    expect(res.json().fee).toMatchObject({ txHash: null, success: false });
    expect(await ledger(agent.headers, 'PAYOUT')).toEqual([
      expect.objectContaining({ status: 'pending', txHash: null }),
    ]);
    expect(await t.services.chain.getBalance(worker.wallet!)).toBe(before);
    expect(await paymentSentEvents(taskId)).toHaveLength(0);

    // Not due yet: the failed attempt pushed the next one into the future.
    chain.down = false;
    expect(await sendDueTransfers(t.ctx)).toBe(0);
    t.clock.advance(6_000);
    expect(await sendDueTransfers(t.ctx)).toBe(2);
    expect(await sendDueTransfers(t.ctx)).toBe(0);

    const payouts = await ledger(agent.headers, 'PAYOUT');
    expect(payouts).toEqual([expect.objectContaining({ status: 'confirmed', amount: '10' })]);
    expect(payouts[0]!.txHash).toMatch(/^[0-9a-f]{64}$/);
    expect((await ledger(agent.headers, 'FEE'))[0]).toMatchObject({ status: 'confirmed', amount: '3' });
    expect((await t.services.chain.getBalance(worker.wallet!)) - before).toBe(REWARD_NANO);
    const events = await paymentSentEvents(taskId);
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0]!.data_json)).toMatchObject({
      taskId,
      payment: { amount: '10', toAddress: worker.wallet, txHash: payouts[0]!.txHash, currency: 'TON' },
    });
    await expectBooksBalanced(t);
  });

  it('a transfer sent but not recorded (crash after send) is recognised on retry, not sent again', async () => {
    const agent = await createAgent(t, { deposit: '50' });
    const worker = await createWorker(t);
    const { taskId } = await assignedTask(t, agent, worker, { reward: '10' });
    const before = await t.services.chain.getBalance(worker.wallet!);

    chain.crashAfterSend = true;
    const res = await t.app.inject({
      method: 'POST',
      url: `/tasks/${taskId}/complete`,
      headers: agent.headers,
    });
    chain.crashAfterSend = false;
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().payment.status).toBe('pending');
    // The chain already paid the worker once.
    expect((await t.services.chain.getBalance(worker.wallet!)) - before).toBe(REWARD_NANO);

    t.clock.advance(6_000);
    expect(await sendDueTransfers(t.ctx)).toBe(2);
    expect((await t.services.chain.getBalance(worker.wallet!)) - before).toBe(REWARD_NANO);
    const payouts = await ledger(agent.headers, 'PAYOUT');
    expect(payouts[0]).toMatchObject({ status: 'confirmed' });
    expect(await paymentSentEvents(taskId)).toHaveLength(1);
    await expectBooksBalanced(t);
  });

  it('two runner passes at once (two instances) send a due transfer once and record it once', async () => {
    const agent = await createAgent(t, { deposit: '50' });
    const worker = await createWorker(t);
    const { taskId } = await assignedTask(t, agent, worker, { reward: '10' });
    const before = await t.services.chain.getBalance(worker.wallet!);
    chain.down = true;
    await t.app.inject({ method: 'POST', url: `/tasks/${taskId}/complete`, headers: agent.headers });
    chain.down = false;
    t.clock.advance(6_000);

    const passes = await Promise.all([sendDueTransfers(t.ctx), sendDueTransfers(t.ctx)]);
    // Each pass lists what is due when it looks; between them they see both transfers (or more).
    expect(passes[0]! + passes[1]!).toBeGreaterThanOrEqual(2);
    expect((await t.services.chain.getBalance(worker.wallet!)) - before).toBe(REWARD_NANO);
    expect(await paymentSentEvents(taskId)).toHaveLength(1);
    expect(await sendDueTransfers(t.ctx)).toBe(0);
    await expectBooksBalanced(t);
  });
});

describe('a restart keeps the books and the chain', () => {
  it('balances, tasks and chain state survive closing and reopening the same data', async () => {
    const first = await createTestApp();
    const agent = await createAgent(first, { deposit: '40' });
    const worker = await createWorker(first);
    const { taskId } = await assignedTask(first, agent, worker, { reward: '10' });
    const depositWallet = await first.services.chain.getBalance(first.services.chain.depositAddress);
    await first.close({ keepData: true });

    const second = await createTestApp({ reopen: first });
    try {
      expect(second.services.chain.depositAddress).toBe(first.services.chain.depositAddress);
      expect(await second.services.chain.getBalance(second.services.chain.depositAddress)).toBe(
        depositWallet,
      );
      const me = await second.app.inject({ method: 'GET', url: '/agents/me', headers: agent.headers });
      expect(me.json().agent).toMatchObject({ balance: '27', lockedByTasks: '13' });
      const res = await second.app.inject({
        method: 'POST',
        url: `/tasks/${taskId}/complete`,
        headers: agent.headers,
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().payment.status).toBe('confirmed');
      expect(await second.services.chain.getBalance(worker.wallet!)).toBe(REWARD_NANO);
      await expectBooksBalanced(second);
    } finally {
      await second.close();
    }
  });
});
