import { toNano } from '@ton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatUnits, parseUnits } from '../../src/domain/money/money.js';
import { completedTask } from '../helpers/agentApi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { consoleOk, signInOwner } from '../helpers/consoleApi.js';
import { createAgent, createWorker } from '../helpers/fixtures.js';
import { createLiveTestApp, roundsUntil } from '../helpers/liveChain.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('GET /admin/overview', () => {
  it('needs the ADMIN_TOKEN', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/admin/overview' });
    expect(res.statusCode).toBe(401);
    const owner = await signInOwner(t);
    const asOwner = await t.app.inject({
      method: 'GET',
      url: '/admin/overview',
      headers: { cookie: owner.cookie },
    });
    expect(asOwner.statusCode).toBe(401);
  });

  it('sums the money held for agents, lists them with their owners, and reports health', async () => {
    const owner = await signInOwner(t);
    const { agent, apiKey } = await consoleOk(t, owner, 'POST', '/agents', { name: 'Owned' }, 201);
    await consoleOk(t, owner, 'POST', `/agents/${agent.id}/faucet`, { amount: '7' }, 201);
    const admin = await t.app.inject({ method: 'POST', url: '/admin/agents', headers: t.admin, payload: {} });
    const operatorAgent = admin.json().agent.id;
    await t.app.inject({
      method: 'POST',
      url: `/admin/agents/${operatorAgent}/deposits`,
      headers: t.admin,
      payload: { amount: '3' },
    });
    const task = await t.app.inject({
      method: 'POST',
      url: '/tasks',
      headers: { authorization: `Bearer ${apiKey}` },
      payload: { title: 'Count the chairs', description: 'In the lobby', reward: '1' },
    });
    const locked = task.json().task.totalAmount;

    const res = await t.app.inject({ method: 'GET', url: '/admin/overview', headers: t.admin });
    expect(res.statusCode, res.body).toBe(200);
    const o = res.json();
    expect(o.health).toEqual({ database: 'ok' });
    expect(o.network).toBe('sandbox');
    expect(o.agents).toMatchObject({ count: 2, deposited: '10', spent: '0', locked });
    expect(Number(o.agents.balance) + Number(o.agents.locked)).toBe(10);
    expect(o.audit).toEqual({ ok: true, problems: 0 });
    expect(o.topAgents.map((a: { id: string }) => a.id)).toEqual([agent.id, operatorAgent]);
    expect(o.topAgents[0].ownerWallet).toMatch(/^0Q|^kQ|^EQ|^UQ/);
    expect(o.topAgents[1].ownerWallet).toBeNull();
    expect(o.recentDeposits.map((d: { amount: string }) => d.amount)).toEqual(['3', '7']);
    // Names next to ids: the owned agent's name; the operator's agent has none.
    expect(o.recentDeposits.map((d: { agentName: string | null }) => d.agentName)).toEqual([null, 'Owned']);
    expect(o.deposits).toEqual({ unmatched: 0 });
    expect(o.transfers).toEqual({ pending: 0, failed: 0 });
    expect(o.openTransfers).toEqual([]);
    expect(o.approvals).toEqual({ pending: 0 });
    expect(Number(o.chain.hotWalletBalance)).toBeGreaterThan(0);
  });

  it('counts the approvals waiting for owners (issue 38)', async () => {
    const owner = await signInOwner(t);
    const { agent, apiKey } = await consoleOk(t, owner, 'POST', '/agents', { name: 'Asker' }, 201);
    await consoleOk(t, owner, 'POST', `/agents/${agent.id}/faucet`, { amount: '20' }, 201);
    const { keys } = await consoleOk(t, owner, 'GET', `/agents/${agent.id}`);
    await consoleOk(t, owner, 'PATCH', `/agents/${agent.id}/keys/${keys[0].id}`, {
      spendPolicy: { TON: { approvalAbove: '1' } },
    });
    const asked = await t.app.inject({
      method: 'POST',
      url: '/tasks',
      headers: { authorization: `Bearer ${apiKey}` },
      payload: { title: 'Count the lamps', description: 'In the hall', reward: '2' },
    });
    expect(asked.statusCode, asked.body).toBe(202);
    const o = (await t.app.inject({ method: 'GET', url: '/admin/overview', headers: t.admin })).json();
    expect(o.approvals).toEqual({ pending: 1 });
  });

  it('lists a USDT deposit in USDT: 50 USDT, never 0.05 TON (issue 36)', async () => {
    const admin = await t.app.inject({ method: 'POST', url: '/admin/agents', headers: t.admin, payload: {} });
    const agentId = admin.json().agent.id;
    const deposit = await t.app.inject({
      method: 'POST',
      url: `/admin/agents/${agentId}/deposits`,
      headers: t.admin,
      payload: { amount: '50', currency: 'USDT' },
    });
    expect(deposit.statusCode, deposit.body).toBe(201);
    const o = (await t.app.inject({ method: 'GET', url: '/admin/overview', headers: t.admin })).json();
    expect(o.recentDeposits[0]).toMatchObject({ agentId, amount: '50', currency: 'USDT' });
    expect(o.recentDeposits.slice(1).every((d: { currency: string }) => d.currency === 'TON')).toBe(true);
  });
});

describe('GET /admin/overview in both currencies (issue 36)', () => {
  const overview = async () => {
    const res = await t.app.inject({ method: 'GET', url: '/admin/overview', headers: t.admin });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  const inCurrency = (o: { money: { currency: string }[] }, currency: string) =>
    o.money.find((m) => m.currency === currency) as Record<string, string>;
  // Exact sums of decimal strings (no float): both sides to 9-decimal units and back.
  const units = (a: string) => parseUnits(a, 9, 'TON');
  const plus = (a: string, b: string) => formatUnits(units(a) + units(b), 9);

  it('keeps tiles, deposits, payouts, fees and agents per currency: USDT in USDT, TON in TON', async () => {
    const before = await overview();
    expect(before.money.map((m: { currency: string }) => m.currency)).toEqual(['TON', 'USDT']);
    const agent = await createAgent(t, { name: 'Two purses', deposit: '20' });
    const deposit = await t.app.inject({
      method: 'POST',
      url: `/admin/agents/${agent.id}/deposits`,
      headers: t.admin,
      payload: { amount: '50', currency: 'USDT' },
    });
    expect(deposit.statusCode, deposit.body).toBe(201);
    const worker = await createWorker(t);
    await completedTask(t, agent, worker, { reward: '10', currency: 'USDT' });
    await completedTask(t, agent, worker, { reward: '2' });
    // The platform's 30%.
    const [usdtFee, tonFee] = ['3', '0.6'];

    const after = await overview();
    const [tonBefore, usdtBefore] = [inCurrency(before, 'TON'), inCurrency(before, 'USDT')];
    const [tonAfter, usdtAfter] = [inCurrency(after, 'TON'), inCurrency(after, 'USDT')];
    // Each currency's sums moved by its own task only: 10 USDT paid out, never 0.01 TON.
    expect(usdtAfter.deposited).toBe(plus(usdtBefore.deposited!, '50'));
    expect(usdtAfter.paidOut).toBe(plus(usdtBefore.paidOut!, '10'));
    expect(usdtAfter.fees).toBe(plus(usdtBefore.fees!, usdtFee));
    expect(usdtAfter.spent).toBe(plus(usdtBefore.spent!, '13'));
    expect(tonAfter.deposited).toBe(plus(tonBefore.deposited!, '20'));
    expect(tonAfter.paidOut).toBe(plus(tonBefore.paidOut!, '2'));
    expect(tonAfter.fees).toBe(plus(tonBefore.fees!, tonFee));
    // The TON-only `agents` sums stay what they were: TON.
    expect(after.agents.deposited).toBe(tonAfter.deposited);
    expect(after.agents.balance).toBe(tonAfter.balance);

    const row = after.topAgents.find((a: { id: string }) => a.id === agent.id);
    expect(row).toMatchObject({
      balance: '17.4',
      deposited: '20',
      usdt: { balance: '37', deposited: '50', lockedByTasks: '0' },
    });
    const deposits = after.recentDeposits.filter((d: { agentId: string }) => d.agentId === agent.id);
    expect(deposits.map((d: { amount: string; currency: string }) => `${d.amount} ${d.currency}`)).toEqual([
      '50 USDT',
      '20 TON',
    ]);
  });
});

describe('GET /admin/overview on the TON network', () => {
  it('counts the unmatched deposits still open, until the operator resolves them', async () => {
    const l = await createLiveTestApp();
    try {
      const overview = async () => {
        const res = await l.t.app.inject({ method: 'GET', url: '/admin/overview', headers: l.t.admin });
        expect(res.statusCode, res.body).toBe(200);
        return res.json();
      };
      // The hot wallet's funding ("funding") and a transfer with a memo nobody has.
      await l.fake.sendFromFaucet(l.live.wallet.address, toNano('2'), 'agt_nobody');
      const open = async () => (await overview()).deposits.unmatched;
      await roundsUntil(l, async () => (await open()) === 2);
      const list = await l.t.app.inject({
        method: 'GET',
        url: '/admin/deposits/unmatched',
        headers: l.t.admin,
      });
      const nobody = list.json().deposits.find((d: { memo: string }) => d.memo === 'agt_nobody');
      const returned = await l.t.app.inject({
        method: 'POST',
        url: `/admin/deposits/unmatched/${nobody.txHash}/returned`,
        headers: l.t.admin,
      });
      expect(returned.statusCode, returned.body).toBe(200);
      expect(await open()).toBe(1);
      expect((await overview()).network).toBe('testnet');
    } finally {
      await l.close();
    }
  });
});

describe('the console page', () => {
  it('is served at /console with its assets, and unknown console API paths stay JSON 404s', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/console/' });
    // Built by npm run build:web (the test script builds first); without a build it says so.
    if (page.statusCode === 503) {
      expect(page.json().error).toMatch(/npm run build:web/);
    } else {
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toMatch(/text\/html/);
      const asset = /src="(\/console\/assets\/[^"]+\.js)"/.exec(page.body)![1]!;
      const js = await t.app.inject({ method: 'GET', url: asset });
      expect(js.statusCode).toBe(200);
      expect(js.headers['cache-control']).toMatch(/immutable/);
    }
    const api = await t.app.inject({ method: 'GET', url: '/console/api/nothing-here' });
    expect(api.statusCode).toBe(404);
    expect(api.json().error).toMatch(/not found/);
    const traversal = await t.app.inject({ method: 'GET', url: '/console/..%2f..%2fpackage.json' });
    expect(traversal.body).not.toMatch(/"name": "handoff"/);
  });
});
