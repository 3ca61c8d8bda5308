import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, ok } from '../helpers/agentApi.js';
import type { TestApp } from '../helpers/app.js';
import { agentMe, createAgent, type TestAgent } from '../helpers/fixtures.js';
import { createUnthrottledTestApp } from '../helpers/moneyChecks.js';

/** Spend policy per API key (issue 38): set by the operator, enforced at every escrow. */
let t: TestApp;

beforeAll(async () => {
  t = await createUnthrottledTestApp();
});
afterAll(async () => {
  await t?.close();
});

async function keyOf(agent: TestAgent): Promise<string> {
  const { keys } = await ok(t, { headers: t.admin }, 'GET', `/admin/agents/${agent.id}/keys`);
  expect(keys).toHaveLength(1);
  return keys[0].id;
}

function setPolicy(agent: TestAgent, keyId: string, body: unknown) {
  return call(t, { headers: t.admin }, 'PATCH', `/admin/agents/${agent.id}/keys/${keyId}`, body);
}

/** A task of reward 10 TON escrows 13 TON (reward + 30% fee). */
function post(agent: TestAgent, reward = '10') {
  return call(t, agent, 'POST', '/tasks', { title: 'Photo', description: 'Of the hall', reward });
}

async function balance(agent: TestAgent): Promise<string> {
  return (await agentMe(t, agent)).balance;
}

describe('setting a policy', () => {
  it('lists keys with no limits and every scope; a patch sets, keeps and removes limits', async () => {
    const agent = await createAgent(t);
    const keyId = await keyOf(agent);
    const before = await ok(t, { headers: t.admin }, 'GET', `/admin/agents/${agent.id}/keys`);
    expect(before.keys[0].spendPolicy.TON).toEqual({
      maxTaskAmount: null,
      dailyLimit: null,
      monthlyLimit: null,
      approvalAbove: null,
    });
    expect(before.keys[0].scopes).toHaveLength(6);
    const set = await setPolicy(agent, keyId, {
      spendPolicy: { TON: { maxTaskAmount: '13', dailyLimit: 50 } },
    });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json().key.spendPolicy.TON).toMatchObject({ maxTaskAmount: '13', dailyLimit: '50' });
    const kept = await setPolicy(agent, keyId, {
      spendPolicy: { TON: { dailyLimit: null }, USDT: { monthlyLimit: '7.5' } },
    });
    expect(kept.json().key.spendPolicy).toEqual({
      TON: { maxTaskAmount: '13', dailyLimit: null, monthlyLimit: null, approvalAbove: null },
      USDT: { maxTaskAmount: null, dailyLimit: null, monthlyLimit: '7.5', approvalAbove: null },
    });
  });

  it('refuses bad input with 400 and changes nothing', async () => {
    const agent = await createAgent(t);
    const keyId = await keyOf(agent);
    await setPolicy(agent, keyId, { spendPolicy: { TON: { maxTaskAmount: '20' } } });
    for (const bad of [
      { TON: { dailyLimit: '-1' } },
      { TON: { dailyLimit: -1 } },
      { TON: { dailyLimit: '1000000000.000000001' } },
      { TON: { monthlyLimit: '1e30' } },
      { TON: { dailyLimit: '0.0000000001' } },
      { USDT: { dailyLimit: '1.0000001' } },
      { EUR: { dailyLimit: '5' } },
      { TON: { approvalAbove: '21' } },
      { TON: { maxTaskAmount: '5', approvalAbove: '6' } },
    ]) {
      const res = await setPolicy(agent, keyId, { spendPolicy: bad });
      expect(res.statusCode, JSON.stringify(bad)).toBe(400);
      expect(res.json().error).toBeTruthy();
    }
    const { keys } = await ok(t, { headers: t.admin }, 'GET', `/admin/agents/${agent.id}/keys`);
    expect(keys[0].spendPolicy.TON).toEqual({
      maxTaskAmount: '20',
      dailyLimit: null,
      monthlyLimit: null,
      approvalAbove: null,
    });
  });

  it("another agent's key and an unknown key are 404; the key itself cannot reach the route", async () => {
    const agent = await createAgent(t);
    const other = await createAgent(t);
    const keyId = await keyOf(agent);
    expect((await setPolicy(other, keyId, { spendPolicy: {} })).statusCode).toBe(404);
    expect((await setPolicy(agent, 'key_nope', { spendPolicy: {} })).statusCode).toBe(404);
    const self = await call(t, agent, 'PATCH', `/admin/agents/${agent.id}/keys/${keyId}`, {
      spendPolicy: { TON: { dailyLimit: null } },
    });
    expect(self.statusCode).toBe(401);
  });
});

describe('enforcing it at the escrow', () => {
  it('maxTaskAmount refuses exactly above its edge, with nothing escrowed', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const keyId = await keyOf(agent);
    await setPolicy(agent, keyId, { spendPolicy: { TON: { maxTaskAmount: '12.999999999' } } });
    const refused = await post(agent);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({
      limit: 'maxTaskAmount',
      currency: 'TON',
      limitAmount: '12.999999999',
    });
    expect(refused.json().error).toMatch(/maxTaskAmount/);
    expect(await balance(agent)).toBe('100');
    await setPolicy(agent, keyId, { spendPolicy: { TON: { maxTaskAmount: '13' } } });
    expect((await post(agent)).statusCode).toBe(201);
    expect(await balance(agent)).toBe('87');
  });

  it('dailyLimit: used and left in the refusal and in GET /agents/me; a refund gives room back; a new day starts at 0', async () => {
    const agent = await createAgent(t, { deposit: '200' });
    const keyId = await keyOf(agent);
    await setPolicy(agent, keyId, { spendPolicy: { TON: { dailyLimit: '26' } } });
    const first = await post(agent);
    expect(first.statusCode).toBe(201);
    expect((await post(agent)).statusCode).toBe(201);
    const refused = await post(agent, '0.01');
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ limit: 'dailyLimit', used: '26', left: '0', limitAmount: '26' });
    expect(refused.json().error).toMatch(/dailyLimit of 26\sTON: 26\sTON used today.*0\sTON left/);
    expect(await balance(agent)).toBe('174');
    const me = await ok(t, agent, 'GET', '/agents/me');
    expect(me.apiKey).toMatchObject({ id: keyId, spending: { TON: { spentToday: '26', leftToday: '0' } } });
    expect(me.apiKey.spendPolicy.TON.dailyLimit).toBe('26');

    // Cancelling gives the 13 TON back to today's room.
    await ok(t, agent, 'DELETE', `/tasks/${first.json().task.id}`);
    expect((await ok(t, agent, 'GET', '/agents/me')).apiKey.spending.TON).toMatchObject({
      spentToday: '13',
      leftToday: '13',
    });
    expect((await post(agent)).statusCode).toBe(201);
    expect((await post(agent, '0.01')).statusCode).toBe(403);

    // The next UTC day starts from nothing.
    const now = t.clock.now();
    t.clock.set(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1, 0, 0, 1)));
    expect((await ok(t, agent, 'GET', '/agents/me')).apiKey.spending.TON.spentToday).toBe('0');
    expect((await post(agent)).statusCode).toBe(201);
  });

  it('monthlyLimit counts across days and refuses at its edge', async () => {
    const agent = await createAgent(t, { deposit: '200' });
    const keyId = await keyOf(agent);
    await setPolicy(agent, keyId, { spendPolicy: { TON: { monthlyLimit: '39', dailyLimit: '26' } } });
    const now = t.clock.now();
    t.clock.set(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1, 0, 0, 0)));
    expect((await post(agent)).statusCode).toBe(201);
    expect((await post(agent)).statusCode).toBe(201);
    t.clock.advance(86_400_000);
    expect((await post(agent)).statusCode).toBe(201);
    const refused = await post(agent, '0.01');
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ limit: 'monthlyLimit', used: '39', left: '0' });
    expect(await balance(agent)).toBe('161');
  });

  it('approvalAbove turns a larger task into an approval (test/owners/approvals.test.ts), and limits in USDT do not touch TON', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const keyId = await keyOf(agent);
    await setPolicy(agent, keyId, {
      spendPolicy: { TON: { approvalAbove: '13' }, USDT: { dailyLimit: '0' } },
    });
    expect((await post(agent)).statusCode).toBe(201);
    const waiting = await post(agent, '10.01');
    expect(waiting.statusCode).toBe(202);
    expect(waiting.json().approval.status).toBe('PENDING');
    expect(await balance(agent)).toBe('87');
  });

  it('40 concurrent creates against a daily limit never pass it', async () => {
    const agent = await createAgent(t, { deposit: '1000' });
    const keyId = await keyOf(agent);
    await setPolicy(agent, keyId, { spendPolicy: { TON: { dailyLimit: '130' } } });
    const results = await Promise.all(Array.from({ length: 40 }, () => post(agent)));
    const codes = results.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 201)).toHaveLength(10);
    expect(codes.filter((c) => c === 403)).toHaveLength(30);
    for (const r of results.filter((r) => r.statusCode === 403)) expect(r.json().limit).toBe('dailyLimit');
    expect(await balance(agent)).toBe('870');
    expect((await ok(t, agent, 'GET', '/agents/me')).apiKey.spending.TON).toMatchObject({
      spentToday: '130',
      leftToday: '0',
    });
  });
});
