import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, ok } from '../helpers/agentApi.js';
import { DIALECT, type TestApp } from '../helpers/app.js';
import { consoleCall, consoleOk, signInOwner, type TestOwner } from '../helpers/consoleApi.js';
import { createWorker, deposit, type TestWorker } from '../helpers/fixtures.js';
import { createUnthrottledTestApp, expectAuditOk } from '../helpers/moneyChecks.js';
import { submittedTask } from '../helpers/submissionApi.js';

/**
 * Low-balance alerts (issue 38): the owner's threshold per agent and currency; a spend that takes
 * the available balance from at or above it to below it records balance.low once, in the spend's
 * transaction; a top-up above it re-arms the alert.
 */
describe(`low-balance alerts on ${DIALECT}`, () => {
  let t: TestApp;
  let worker: TestWorker;
  beforeAll(async () => {
    t = await createUnthrottledTestApp({ pgPoolSize: 10 });
    worker = await createWorker(t);
  });
  afterAll(() => t?.close());

  interface Owned {
    owner: TestOwner;
    id: string;
    apiKey: string;
    headers: { authorization: string };
  }

  async function ownedAgent(ton: string, usdt = '0'): Promise<Owned> {
    const owner = await signInOwner(t);
    const { agent, apiKey } = await consoleOk(t, owner, 'POST', '/agents', { name: 'Scout' }, 201);
    if (ton !== '0') await deposit(t, agent.id, ton);
    if (usdt !== '0') {
      const res = await call(t, { headers: t.admin }, 'POST', `/admin/agents/${agent.id}/deposits`, {
        amount: usdt,
        currency: 'USDT',
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    return { owner, id: agent.id, apiKey, headers: { authorization: `Bearer ${apiKey}` } };
  }

  const setAlerts = (a: Owned, body: unknown) =>
    consoleCall(t, a.owner, 'PUT', `/agents/${a.id}/low-balance`, body);

  /** A task of reward 10 escrows 13 (reward + 30% fee). */
  const post = (a: Owned, reward = '10', currency = 'TON') =>
    t.app.inject({
      method: 'POST',
      url: '/tasks',
      headers: a.headers,
      payload: { title: 'Photo', description: 'Of the hall', reward, currency, agentName: 'Scout' },
    });

  async function lowEvents(agentId: string) {
    const rows = await t.ctx.db
      .selectFrom('events')
      .select(['data_json', 'task_id'])
      .where('agent_id', '=', agentId)
      .where('type', '=', 'balance.low')
      .orderBy('id')
      .execute();
    return rows.map((r) => {
      expect(r.task_id).toBeNull();
      return JSON.parse(r.data_json);
    });
  }

  it('the owner sets and removes thresholds; GET /agents/me and the console show them', async () => {
    const a = await ownedAgent('100');
    const set = await setAlerts(a, { TON: '20', USDT: 5 });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json().agent.balances.TON).toMatchObject({ lowBalanceThreshold: '20', belowThreshold: false });
    expect(set.json().agent.balances.USDT).toMatchObject({ lowBalanceThreshold: '5', belowThreshold: true });
    const me = await ok(t, a, 'GET', '/agents/me');
    expect(me.agent.balances).toMatchObject({
      TON: { balance: '100', lowBalanceThreshold: '20' },
      USDT: { balance: '0', lowBalanceThreshold: '5' },
    });
    // Absent leaves a currency's alert as it was; null removes it.
    await consoleOk(t, a.owner, 'PUT', `/agents/${a.id}/low-balance`, { USDT: null });
    const after = await consoleOk(t, a.owner, 'GET', `/agents/${a.id}`);
    expect(after.agent.balances.TON.lowBalanceThreshold).toBe('20');
    expect(after.agent.balances.USDT).toMatchObject({ lowBalanceThreshold: null, belowThreshold: false });
  });

  it('refuses bad thresholds with 400 and changes nothing; another owner’s agent is 404', async () => {
    const a = await ownedAgent('100');
    await consoleOk(t, a.owner, 'PUT', `/agents/${a.id}/low-balance`, { TON: '20' });
    for (const bad of [
      { TON: '-1' },
      { TON: -1 },
      { TON: '0' },
      { TON: 0 },
      { TON: 'ten' },
      { TON: '1e30' },
      { TON: '1000000000.000000001' },
      { TON: '0.0000000001' },
      { USDT: '1.0000001' },
      { EUR: '5' },
      { TON: { amount: '5' } },
      {},
    ]) {
      const res = await setAlerts(a, bad);
      expect(res.statusCode, JSON.stringify(bad)).toBe(400);
      expect(res.json().error).toBeTruthy();
    }
    const other = await signInOwner(t);
    const res = await consoleCall(t, other, 'PUT', `/agents/${a.id}/low-balance`, { TON: '1' });
    expect(res.statusCode).toBe(404);
    const { agent } = await consoleOk(t, a.owner, 'GET', `/agents/${a.id}`);
    expect(agent.balances.TON.lowBalanceThreshold).toBe('20');
    expect(agent.balances.USDT.lowBalanceThreshold).toBeNull();
  });

  it('a crossing emits once; a spend below emits nothing; a top-up re-arms it', async () => {
    const a = await ownedAgent('60', '100');
    await consoleOk(t, a.owner, 'PUT', `/agents/${a.id}/low-balance`, { TON: '34', USDT: '1' });
    // 60 -> 47 -> 34: still at the threshold, not below it.
    expect((await post(a)).statusCode).toBe(201);
    expect((await post(a)).statusCode).toBe(201);
    expect(await lowEvents(a.id)).toEqual([]);
    // 34 -> 21 crosses; a USDT spend never counts against the TON alert.
    expect((await post(a)).statusCode).toBe(201);
    expect((await post(a, '10', 'USDT')).statusCode).toBe(201);
    expect(await lowEvents(a.id)).toEqual([{ currency: 'TON', available: '21', threshold: '34' }]);
    const console1 = await consoleOk(t, a.owner, 'GET', `/agents/${a.id}`);
    expect(console1.agent.balances.TON.belowThreshold).toBe(true);
    // 21 -> 8: already below, nothing new.
    expect((await post(a)).statusCode).toBe(201);
    // A refused spend (402) moves nothing and says nothing.
    expect((await post(a)).statusCode).toBe(402);
    expect(await lowEvents(a.id)).toHaveLength(1);
    // A top-up to 58 re-arms; the next crossing (45 -> 32) emits again.
    await deposit(t, a.id, '50');
    expect((await post(a)).statusCode).toBe(201);
    expect(await lowEvents(a.id)).toHaveLength(1);
    expect((await post(a)).statusCode).toBe(201);
    expect(await lowEvents(a.id)).toEqual([
      { currency: 'TON', available: '21', threshold: '34' },
      { currency: 'TON', available: '32', threshold: '34' },
    ]);
    await expectAuditOk(t);
  });

  it('concurrent spends that cross emit exactly one event', async () => {
    const a = await ownedAgent('130');
    await consoleOk(t, a.owner, 'PUT', `/agents/${a.id}/low-balance`, { TON: '50' });
    const results = await Promise.all(Array.from({ length: 12 }, () => post(a)));
    // 130 covers ten tasks of 13; two are refused with 402.
    expect(results.filter((r) => r.statusCode === 201)).toHaveLength(10);
    expect(results.filter((r) => r.statusCode === 402)).toHaveLength(2);
    const events = await lowEvents(a.id);
    expect(events).toHaveLength(1);
    // Every spend is 13, so whichever order they ran in, the crossing is 52 -> 39.
    expect(events[0]).toEqual({ currency: 'TON', available: '39', threshold: '50' });
  });

  it('a batch and a bonus that cross emit it too', async () => {
    const a = await ownedAgent('100');
    await consoleOk(t, a.owner, 'PUT', `/agents/${a.id}/low-balance`, { TON: '70' });
    // A batch of 3 tasks of reward 2 escrows 7.8: 100 -> 92.2, above.
    const batch = (count: number) =>
      t.app.inject({
        method: 'POST',
        url: '/batches',
        headers: a.headers,
        payload: { template: { title: 'Menu', description: 'The whole menu', reward: '2' }, count },
      });
    expect((await batch(3)).statusCode).toBe(201);
    expect(await lowEvents(a.id)).toEqual([]);
    // 10 more: 26 -> 66.2, below.
    expect((await batch(10)).statusCode).toBe(201);
    expect(await lowEvents(a.id)).toEqual([{ currency: 'TON', available: '66.2', threshold: '70' }]);

    // A bonus: the completed task took 13 (66.2 -> 53.2); a threshold of 50 is then crossed by a
    // bonus of 3 (+ 0.9 fee): 53.2 -> 49.3.
    const { taskId } = await submittedTask(t, a, worker, { reward: '10' });
    await ok(t, a, 'POST', `/tasks/${taskId}/complete`);
    await consoleOk(t, a.owner, 'PUT', `/agents/${a.id}/low-balance`, { TON: '50' });
    const bonus = await t.app.inject({
      method: 'POST',
      url: `/tasks/${taskId}/bonus`,
      headers: { ...a.headers, 'idempotency-key': `low-${a.id}` },
      payload: { amount: '3', reason: 'Sharp photos' },
    });
    expect(bonus.statusCode, bonus.body).toBe(201);
    expect((await lowEvents(a.id)).at(-1)).toEqual({ currency: 'TON', available: '49.3', threshold: '50' });
    expect(await lowEvents(a.id)).toHaveLength(2);
  });
});
