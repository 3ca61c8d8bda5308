import { Address, toNano } from '@ton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listTaskEvents } from '../../src/db/repositories/events.js';
import { reconcileUsdt } from '../../src/domain/chain/reconciliation.js';
import { sendDueJettonTransfers } from '../../src/domain/money/jettonTransfers.js';
import { sendDueTransfers } from '../../src/domain/money/payouts.js';
import { MAINNET_USDT_MASTER, USDT_DEFAULTS } from '../../src/usdtConfig.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { disputeOk } from '../helpers/disputeApi.js';
import {
  assignedTask,
  createAgent,
  createWorker,
  expectBooksBalanced,
  type TestAgent,
} from '../helpers/fixtures.js';
import { createLiveTestApp, type LiveTestApp, roundsUntil } from '../helpers/liveChain.js';
import { expectAgentBooks } from '../helpers/moneyChecks.js';
import { submittedTask } from '../helpers/submissionApi.js';
import { call, workerMe } from '../helpers/workerApi.js';

/**
 * Issue 29: USDT next to TON in the books. USDT is on exactly when the chain gateway has a jetton:
 * always in the sandbox (its own "USDT (sandbox)"), whose faucet sends real jettons to the deposit
 * address and whose jetton sender pays USDT payouts and fees (test/money/usdtSandbox.test.ts
 * follows those on the chain); on testnet only with TON_USDT_MASTER.
 */

interface Balances {
  TON: { balance: string; lockedByTasks: string };
  USDT: { balance: string; lockedByTasks: string };
}

async function balances(t: TestApp, agent: TestAgent): Promise<Balances> {
  const res = await call(t, 'GET', '/agents/me', agent.headers);
  expect(res.statusCode, res.body).toBe(200);
  const me = res.json().agent;
  // The spec's two fields stay the TON ones.
  expect(me.balances.TON).toMatchObject({ balance: me.balance, lockedByTasks: me.lockedByTasks });
  return me.balances;
}

async function depositIn(t: TestApp, agentId: string, amount: string, currency: 'TON' | 'USDT') {
  const res = await call(t, 'POST', `/admin/agents/${agentId}/deposits`, t.admin, { amount, currency });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().transaction;
}

/** Everything an agent's money is seen through: a refused request must change none of it. */
async function books(t: TestApp, agent: TestAgent) {
  const me = await call(t, 'GET', '/agents/me', agent.headers);
  const tx = await call(t, 'GET', '/transactions?limit=100', agent.headers);
  const tasks = await call(t, 'GET', '/agents/tasks?limit=100', agent.headers);
  return { me: me.json(), transactions: tx.json(), tasks: tasks.json() };
}

function task(t: TestApp, agent: TestAgent, body: Record<string, unknown>) {
  return call(t, 'POST', '/tasks', agent.headers, {
    title: 'Take a photo',
    description: 'Of the town hall',
    reward: '1',
    ...body,
  });
}

describe('USDT on testnet follows TON_USDT_MASTER (the network gateway opens its jetton)', () => {
  let l: LiveTestApp;
  beforeAll(async () => {
    l = await createLiveTestApp({ fund: 0n });
  }, 180_000); // a fresh fake chain, app and mnemonic on a busy 2-core machine
  afterAll(() => l?.close());

  it('answers every USDT request 400 "USDT is not enabled" and changes nothing; TON works as before', async () => {
    const { t } = l;
    // The one switch: no master configured, so the gateway has no jetton and the books take no USDT.
    expect(t.services.chain.jetton).toBeUndefined();
    expect(t.ctx.usdt).toMatchObject({ enabled: false, master: null });
    expect(t.ctx.usdt.disabledReason).toContain('TON_USDT_MASTER is not set');
    const agent = await createAgent(t);
    await l.fake.sendFromFaucet(l.live.wallet.address, toNano('10'), agent.id);
    await roundsUntil(l, async () => (await balances(t, agent)).TON.balance === '10');
    const before = await books(t, agent);
    for (const res of [
      await task(t, agent, { currency: 'USDT' }),
      await call(t, 'POST', `/admin/agents/${agent.id}/deposits`, t.admin, { amount: '5', currency: 'USDT' }),
      await call(t, 'GET', '/agents/me/deposit?currency=USDT', agent.headers),
    ]) {
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error).toBe('USDT is not enabled');
    }
    expect(await books(t, agent)).toEqual(before);
    // TON is the default; the task names it.
    const ton = await task(t, agent, {});
    expect(ton.statusCode, ton.body).toBe(201);
    expect(ton.json().task.currency).toBe('TON');
    expect(ton.json().task.totalAmount).toBe('1.3');
  });

  it('with TON_USDT_MASTER the network gateway opens that master and USDT is on with it', async () => {
    const other = await createLiveTestApp({
      sharedWith: l,
      config: { usdt: { master: MAINNET_USDT_MASTER, ...USDT_DEFAULTS } },
    });
    try {
      const jetton = other.t.services.chain.jetton!;
      expect(Address.parse(jetton.masterAddress).equals(Address.parse(MAINNET_USDT_MASTER))).toBe(true);
      expect(other.t.ctx.usdt).toMatchObject({ enabled: true, master: jetton.masterAddress });
      expect(other.t.ctx.usdt.disabledReason).toBeUndefined();
    } finally {
      await other.close();
    }
  });
});

describe('USDT in the books', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('a USDT task escrows reward + 30% fee in micro-USDT from the USDT balance only', async () => {
    const agent = await createAgent(t, { deposit: '10' });
    const credit = await depositIn(t, agent.id, '5', 'USDT');
    // The faucet's jettons arrived on the chain: the credit carries the deposit address's transaction.
    expect(credit).toMatchObject({ type: 'DEPOSIT', amount: '5', currency: 'USDT' });
    expect(credit.txHash).toMatch(/^[0-9a-f]{64}$/);
    const res = await task(t, agent, { reward: '1.000001', currency: 'USDT' });
    expect(res.statusCode, res.body).toBe(201);
    // 30% of 1000001 micro-USDT is 300000.3, half-up 300000.
    expect(res.json().task).toMatchObject({
      currency: 'USDT',
      reward: '1.000001',
      platformFee: '0.3',
      totalAmount: '1.300001',
      status: 'FUNDED',
    });
    expect(await balances(t, agent)).toEqual({
      TON: { balance: '10', lockedByTasks: '0', lowBalanceThreshold: null },
      USDT: { balance: '3.699999', lockedByTasks: '1.300001', lowBalanceThreshold: null },
    });
    const escrow = (await call(t, 'GET', '/transactions?type=TASK_ESCROW', agent.headers)).json();
    expect(escrow.transactions).toEqual([
      expect.objectContaining({ amount: '1.300001', currency: 'USDT', task: expect.anything() }),
    ]);
    const funded = (await listTaskEvents(t.ctx.db, res.json().task.id)).find((e) => e.type === 'task.funded');
    expect(JSON.parse(funded!.data_json).deposit).toEqual({
      amount: '1.300001',
      txHash: null,
      currency: 'USDT',
    });
    await expectAgentBooks(t, agent);
    await expectBooksBalanced(t);
  });

  it('refuses a USDT amount with more than 6 decimals, naming the limit, and writes nothing', async () => {
    const agent = await createAgent(t);
    await depositIn(t, agent.id, '5', 'USDT');
    const before = await books(t, agent);
    const res = await task(t, agent, { reward: '1.0000001', currency: 'USDT' });
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual([
      { path: 'reward', message: expect.stringContaining('USDT amounts have at most 6 decimals') },
    ]);
    const faucet = await call(t, 'POST', `/admin/agents/${agent.id}/deposits`, t.admin, {
      amount: '0.0000001',
      currency: 'USDT',
    });
    expect(faucet.statusCode).toBe(400);
    expect(faucet.json().details[0].message).toContain('at most 6 decimals');
    // Nine decimals stay fine for TON.
    expect((await task(t, agent, { reward: '1.000000001' })).statusCode).toBe(402);
    expect(await books(t, agent)).toEqual(before);
  });

  it('gives USDT deposit instructions: the same address and memo, a jetton transfer link', async () => {
    const agent = await createAgent(t);
    const res = await call(t, 'GET', '/agents/me/deposit?currency=USDT', agent.headers);
    expect(res.statusCode, res.body).toBe(200);
    const address = t.services.chain.depositAddress;
    // The sandbox's own master, as the chain gateway holds it.
    const master = t.services.chain.jetton!.masterAddress;
    expect(t.ctx.usdt.master).toBe(master);
    expect(res.json()).toEqual({
      network: 'sandbox',
      address,
      memo: agent.id,
      link: `ton://transfer/${address}?jetton=${master}&text=${agent.id}`,
      minimum: '0.01',
      currency: 'USDT',
      jettonMaster: master,
    });
    const ton = (await call(t, 'GET', '/agents/me/deposit', agent.headers)).json();
    expect(ton).toEqual({
      network: 'sandbox',
      address,
      memo: agent.id,
      link: `ton://transfer/${address}?text=${agent.id}`,
      minimum: '0.01',
      currency: 'TON',
    });
    expect((await call(t, 'GET', '/agents/me/deposit?currency=EUR', agent.headers)).statusCode).toBe(400);
  });

  describe('books never mix currencies', () => {
    it('a TON balance cannot pay a USDT task, nor a USDT balance a TON task: 402 naming the currency, nothing written', async () => {
      const worker = await createWorker(t);
      const rich = await createAgent(t, { deposit: '1000' });
      const before = await books(t, rich);
      for (const body of [
        { currency: 'USDT' },
        { currency: 'USDT', assignToUserId: worker.id },
        { currency: 'USDT', reward: '0.01' },
      ]) {
        const res = await task(t, rich, body);
        expect(res.statusCode, res.body).toBe(402);
        expect(res.json()).toMatchObject({ currentBalance: '0', currency: 'USDT' });
        expect(res.json().message).toContain('USDT balance is 0\u00a0USDT');
      }
      expect(await books(t, rich)).toEqual(before);

      const usdtOnly = await createAgent(t);
      await depositIn(t, usdtOnly.id, '1000', 'USDT');
      const usdtBefore = await books(t, usdtOnly);
      for (const body of [{}, { currency: 'TON' }, { assignToUserId: worker.id }]) {
        const res = await task(t, usdtOnly, body);
        expect(res.statusCode, res.body).toBe(402);
        expect(res.json()).toEqual({
          error: 'Insufficient balance',
          currentBalance: '0',
          requiredAmount: '1.3',
          currency: 'TON',
          message: expect.stringContaining('your TON balance is 0\u00a0TON'),
        });
      }
      expect(await books(t, usdtOnly)).toEqual(usdtBefore);
      await expectAgentBooks(t, rich);
      await expectAgentBooks(t, usdtOnly);
      await expectBooksBalanced(t);
    });

    it('accepting, refunding and cancelling a USDT task move only USDT', async () => {
      const agent = await createAgent(t, { deposit: '7' });
      await depositIn(t, agent.id, '3', 'USDT');
      const worker = await createWorker(t);
      const { taskId } = await assignedTask(t, agent, worker, { currency: 'USDT', reward: '1' });
      expect(await balances(t, agent)).toEqual({
        TON: { balance: '7', lockedByTasks: '0', lowBalanceThreshold: null },
        USDT: { balance: '1.7', lockedByTasks: '1.3', lowBalanceThreshold: null },
      });
      const refund = await call(t, 'POST', `/tasks/${taskId}/refund`, agent.headers, {
        reason: 'No longer needed',
      });
      expect(refund.statusCode, refund.body).toBe(200);
      expect(refund.json().refund).toEqual({ amount: '1.3', destination: 'agent_balance', currency: 'USDT' });
      const open = await task(t, agent, { currency: 'USDT', reward: '2' });
      const cancelled = await call(t, 'DELETE', `/tasks/${open.json().task.id}`, agent.headers);
      expect(cancelled.statusCode, cancelled.body).toBe(200);
      expect(cancelled.json().refund).toMatchObject({ amount: '2.6', currency: 'USDT' });
      expect(await balances(t, agent)).toEqual({
        TON: { balance: '7', lockedByTasks: '0', lowBalanceThreshold: null },
        USDT: { balance: '3', lockedByTasks: '0', lowBalanceThreshold: null },
      });
      const refunds = (await call(t, 'GET', '/transactions?type=REFUND', agent.headers)).json().transactions;
      expect(refunds.map((r: { currency?: string }) => r.currency)).toEqual(['USDT', 'USDT']);
      await expectAgentBooks(t, agent);
      await expectBooksBalanced(t);
    });

    it('a dispute split names the task currency: another one is 400 and nothing is resolved', async () => {
      const agent = await createAgent(t);
      await depositIn(t, agent.id, '1', 'USDT');
      const worker = await createWorker(t);
      const { taskId, dispute } = await disputedOn(t, agent, worker, '0.5');
      const before = await books(t, agent);
      const wrong = await call(t, 'POST', `/admin/disputes/${dispute.id}/resolve`, t.admin, {
        workerAmount: '0.25',
        currency: 'TON',
        note: 'Half',
      });
      expect(wrong.statusCode, wrong.body).toBe(400);
      expect(wrong.json().details).toEqual([
        { path: 'currency', message: "this dispute's task is paid in USDT: the split is in USDT" },
      ]);
      const tooFine = await call(t, 'POST', `/admin/disputes/${dispute.id}/resolve`, t.admin, {
        workerAmount: '0.0000001',
        note: 'Too fine',
      });
      expect(tooFine.statusCode).toBe(400);
      expect(await books(t, agent)).toEqual(before);
      expect((await call(t, 'GET', `/tasks/${taskId}`, agent.headers)).json().task.dispute.status).toBe(
        'OPEN',
      );
    });
  });

  it('pays to the micro-USDT: completion pays payout and fee as jettons at once, never as TON', async () => {
    const agent = await createAgent(t, { deposit: '5' });
    await depositIn(t, agent.id, '1', 'USDT');
    const worker = await createWorker(t);
    const { taskId } = await assignedTask(t, agent, worker, { currency: 'USDT', reward: '0.01' });
    const done = await call(t, 'POST', `/tasks/${taskId}/complete`, agent.headers);
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json().payment).toMatchObject({ amount: '0.01', currency: 'USDT', pending: false });
    expect(done.json().fee).toMatchObject({ amount: '0.003', currency: 'USDT', success: true });
    // Sent by the jetton sender, once; neither sender finds anything left to send.
    expect(await sendDueTransfers(t.ctx)).toBe(0);
    expect(await sendDueJettonTransfers(t.ctx)).toBe(0);
    const rows = await t.ctx.db
      .selectFrom('chain_transfers')
      .innerJoin('transactions', 'transactions.id', 'chain_transfers.txn_id')
      .select([
        'chain_transfers.currency',
        'chain_transfers.status',
        'chain_transfers.attempts',
        'chain_transfers.amount_nano',
      ])
      .where('transactions.task_id', '=', taskId)
      .orderBy('chain_transfers.amount_nano')
      .execute();
    expect(rows).toEqual([
      { currency: 'USDT', status: 'sent', attempts: 1, amount_nano: 3_000n },
      { currency: 'USDT', status: 'sent', attempts: 1, amount_nano: 10_000n },
    ]);
    // The worker's wallet got jettons, not TON: of TON only the notification's forward_ton_amount.
    expect(await t.services.chain.jetton!.balance(worker.wallet!)).toBe(10_000n);
    expect(await t.services.chain.getBalance(worker.wallet!)).toBe(1n);
    expect(await balances(t, agent)).toEqual({
      TON: { balance: '5', lockedByTasks: '0', lowBalanceThreshold: null },
      USDT: { balance: '0.987', lockedByTasks: '0', lowBalanceThreshold: null },
    });
    const me = await workerMe(t, worker.headers);
    expect(me.earnings).toEqual({ TON: '0', USDT: '0.01' });
    expect(me.totalEarned).toBe('0');
    const payouts = (await call(t, 'GET', '/worker/payouts', worker.headers)).json().payouts;
    expect(payouts).toEqual([
      expect.objectContaining({ amount: '0.01', currency: 'USDT', status: 'confirmed' }),
    ]);
    await expectAgentBooks(t, agent);
    await expectBooksBalanced(t);
  });

  it('splits a USDT dispute from 0.01 USDT: worker, fee in proportion (rounded down), the rest back', async () => {
    const agent = await createAgent(t);
    await depositIn(t, agent.id, '1', 'USDT');
    const worker = await createWorker(t);
    // Reward 0.03 USDT: fee 9000 micro, total 39000 micro.
    const first = await disputedOn(t, agent, worker, '0.03');
    // Issue #35, finding 12: a payout under 0.01 USDT costs more in gas than it pays.
    for (const dust of ['0.000001', '0.009999']) {
      const refused = await call(t, 'POST', `/admin/disputes/${first.dispute.id}/resolve`, t.admin, {
        workerAmount: dust,
        currency: 'USDT',
        note: 'Dust',
      });
      expect(refused.statusCode, refused.body).toBe(400);
      expect(refused.json().details).toEqual([
        { path: 'workerAmount', message: expect.stringMatching(/at least 0\.01\sUSDT/) },
      ]);
    }
    const one = await call(t, 'POST', `/admin/disputes/${first.dispute.id}/resolve`, t.admin, {
      workerAmount: '0.01',
      currency: 'USDT',
      note: 'The smallest payout',
    });
    expect(one.statusCode, one.body).toBe(200);
    // 9000 * 10000 / 30000 = 3000 micro of fee; 26000 micro back.
    expect(one.json()).toMatchObject({
      payout: { amount: '0.01', currency: 'USDT', status: 'confirmed' },
      fee: { amount: '0.003', currency: 'USDT' },
      refund: { amount: '0.026', destination: 'agent_balance', currency: 'USDT' },
    });
    expect(one.json().dispute.resolution).toMatchObject({
      workerAmount: '0.01',
      platformFee: '0.003',
      agentAmount: '0.026',
      currency: 'USDT',
    });
    const second = await disputedOn(t, agent, worker, '0.03');
    const odd = await call(t, 'POST', `/admin/disputes/${second.dispute.id}/resolve`, t.admin, {
      workerAmount: '0.010004',
      note: 'A micro-USDT above',
    });
    expect(odd.statusCode, odd.body).toBe(200);
    // 9000 * 10004 / 30000 = 3001.2 micro: a fee of 3001 micro-USDT (rounded down).
    expect(odd.json()).toMatchObject({
      payout: { amount: '0.010004', currency: 'USDT' },
      fee: { amount: '0.003001', currency: 'USDT' },
      refund: { amount: '0.025995', currency: 'USDT' },
    });
    expect(await balances(t, agent)).toEqual({
      TON: { balance: '0', lockedByTasks: '0', lowBalanceThreshold: null },
      USDT: { balance: '0.973995', lockedByTasks: '0', lowBalanceThreshold: null },
    });
    expect((await workerMe(t, worker.headers)).earnings).toEqual({ TON: '0', USDT: '0.020004' });
    await expectAgentBooks(t, agent);
    await expectBooksBalanced(t);
  });

  it('two USDT tasks racing for the last USDT: exactly one wins, TON untouched', async () => {
    const agent = await createAgent(t, { deposit: '3' });
    await depositIn(t, agent.id, '1.3', 'USDT');
    const results = await Promise.all(
      Array.from({ length: 6 }, () => task(t, agent, { currency: 'USDT', reward: '1' })),
    );
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 402, 402, 402, 402, 402]);
    expect(await balances(t, agent)).toEqual({
      TON: { balance: '3', lockedByTasks: '0', lowBalanceThreshold: null },
      USDT: { balance: '0', lockedByTasks: '1.3', lowBalanceThreshold: null },
    });
    await expectAgentBooks(t, agent);
    await expectBooksBalanced(t);
  });

  it('reconciliation sums the USDT books in USDT only', async () => {
    const report = await reconcileUsdt(t.ctx, null);
    // The USDT deposits and payouts of the tests above, summed in USDT only, all paid on chain.
    expect(report.books.deposits.count).toBeGreaterThan(0);
    expect(report.books.payoutsPending).toEqual({ count: 0, total: '0' });
    expect(report.books.payoutsConfirmed).toEqual({ count: 3, total: '0.030004' });
  });
});

/** A USDT task with a waiting submission, disputed by the agent. */
async function disputedOn(
  t: TestApp,
  agent: TestAgent,
  worker: Awaited<ReturnType<typeof createWorker>>,
  reward: string,
) {
  const { taskId } = await submittedTask(t, agent, worker, { currency: 'USDT', reward });
  const dispute = await disputeOk(t, agent, taskId);
  return { taskId, dispute };
}
