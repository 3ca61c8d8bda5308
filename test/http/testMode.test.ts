import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { consoleOk, signInOwner } from '../helpers/consoleApi.js';
import { createWorker, deposit, expectBooksBalanced, type TestAgent } from '../helpers/fixtures.js';
import { call } from '../helpers/workerApi.js';

// Test mode, first part (issue 37, docs/decisions/test-mode.md): test keys, their separate world
// and test money.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

interface Pair {
  live: TestAgent;
  test: TestAgent;
}

async function agentPair(name = 'Pair agent'): Promise<Pair> {
  const res = await call(t, 'POST', '/admin/agents', t.admin, { name });
  expect(res.statusCode, res.body).toBe(201);
  const { agent, apiKey, testApiKey } = res.json();
  expect(apiKey).toMatch(/^hr_[0-9a-f]{64}$/);
  expect(testApiKey).toMatch(/^hr_test_[0-9a-f]{64}$/);
  const me = await call(t, 'GET', '/agents/me', { authorization: `Bearer ${testApiKey}` });
  expect(me.statusCode, me.body).toBe(200);
  return {
    live: { id: agent.id, apiKey, headers: { authorization: `Bearer ${apiKey}` } },
    test: { id: me.json().agent.id, apiKey: testApiKey, headers: { authorization: `Bearer ${testApiKey}` } },
  };
}

const faucet = (agent: TestAgent, body: Record<string, unknown>) =>
  call(t, 'POST', '/test/faucet', agent.headers, body);

async function testTask(agent: TestAgent, body: Record<string, unknown> = {}) {
  const res = await call(t, 'POST', '/tasks', agent.headers, {
    title: 'Take a photo',
    description: 'Of the town hall',
    reward: '10',
    ...body,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().task as { id: string; livemode: boolean; agent: { id: string } };
}

describe('test keys', () => {
  it('POST /admin/agents answers a live key and a test key; each says its world on /agents/me', async () => {
    const { live, test } = await agentPair();
    const liveMe = (await call(t, 'GET', '/agents/me', live.headers)).json().agent;
    const testMe = (await call(t, 'GET', '/agents/me', test.headers)).json().agent;
    expect(liveMe).toMatchObject({ id: live.id, livemode: true });
    expect(testMe).toMatchObject({ livemode: false, name: 'Pair agent' });
    expect(testMe.id).not.toBe(live.id);
  });

  it('a live key on /test/faucet gets 403 saying test keys start with hr_test_', async () => {
    const { live } = await agentPair();
    const res = await faucet(live, { amount: '10' });
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toContain('hr_test_');
    // Even with a bad body: the key is refused first.
    expect((await faucet(live, { amount: 'lots' })).statusCode).toBe(403);
  });
});

describe('console test keys', () => {
  it('an owner creates, lists and revokes test keys ({mode: "test"}); live keys are listed apart', async () => {
    const owner = await signInOwner(t);
    const { agent } = await consoleOk(t, owner, 'POST', '/agents', { name: 'Console agent' }, 201);
    const made = await consoleOk(
      t,
      owner,
      'POST',
      `/agents/${agent.id}/keys`,
      { name: 'ci', mode: 'test' },
      201,
    );
    expect(made.apiKey).toMatch(/^hr_test_[0-9a-f]{64}$/);
    const me = await call(t, 'GET', '/agents/me', { authorization: `Bearer ${made.apiKey}` });
    expect(me.json().agent).toMatchObject({ livemode: false });
    const testKeys = (await consoleOk(t, owner, 'GET', `/agents/${agent.id}?mode=test`)).keys;
    expect(testKeys.map((k: { id: string }) => k.id)).toContain(made.key.id);
    const liveKeys = (await consoleOk(t, owner, 'GET', `/agents/${agent.id}`)).keys;
    expect(liveKeys.map((k: { id: string }) => k.id)).not.toContain(made.key.id);
    await consoleOk(t, owner, 'POST', `/agents/${agent.id}/keys/${made.key.id}/revoke`);
    expect((await call(t, 'GET', '/agents/me', { authorization: `Bearer ${made.apiKey}` })).statusCode).toBe(
      401,
    );
  });
});

describe('test money', () => {
  it('the faucet credits the test balance at once with a TEST_FAUCET row; the live balance is untouched', async () => {
    const { live, test } = await agentPair();
    const res = await faucet(test, { amount: '100', currency: 'TON' });
    expect(res.statusCode, res.body).toBe(201);
    const { transaction, balances } = res.json();
    expect(transaction).toMatchObject({
      type: 'TEST_FAUCET',
      amount: '100',
      currency: 'TON',
      status: 'confirmed',
    });
    expect(transaction.txHash).toBe(`test:${transaction.id}`);
    expect(balances.TON.balance).toBe('100');
    expect((await call(t, 'GET', '/agents/me', live.headers)).json().agent.balance).toBe('0');
    const liveLedger = (await call(t, 'GET', '/transactions', live.headers)).json().transactions;
    expect(liveLedger).toEqual([]);
    const testLedger = (await call(t, 'GET', '/transactions?type=TEST_FAUCET', test.headers)).json();
    expect(testLedger.transactions.map((r: { id: string }) => r.id)).toEqual([transaction.id]);
  });

  it('bounds each call and each day; a refused call changes nothing', async () => {
    const { test } = await agentPair();
    for (const body of [
      { amount: '0' },
      { amount: '-1' },
      { amount: '1000.5' },
      { amount: 'x' },
      { amount: '1', currency: 'EUR' },
    ]) {
      const res = await faucet(test, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error).toEqual(expect.any(String));
    }
    for (let i = 0; i < 10; i++) expect((await faucet(test, { amount: '1000' })).statusCode).toBe(201);
    const over = await faucet(test, { amount: '1' });
    expect(over.statusCode).toBe(409);
    expect(over.json().error).toContain('a day');
    expect((await call(t, 'GET', '/agents/me', test.headers)).json().agent.balance).toBe('10000');
  });
});

describe('two worlds', () => {
  it('tasks, ledgers and idempotency keys never cross, in both directions', async () => {
    const { live, test } = await agentPair();
    await deposit(t, live.id, '100');
    expect((await faucet(test, { amount: '100' })).statusCode).toBe(201);
    const testT = await testTask(test);
    const liveT = await testTask(live);
    expect(testT).toMatchObject({ livemode: false, agent: { id: test.id } });
    expect(liveT).toMatchObject({ livemode: true, agent: { id: live.id } });
    for (const [who, other] of [
      [live, testT.id],
      [test, liveT.id],
    ] as const) {
      const got = await call(t, 'GET', `/tasks/${other}`, who.headers);
      expect([403, 404]).toContain(got.statusCode);
      const refund = await call(t, 'POST', `/tasks/${other}/refund`, who.headers);
      expect([403, 404]).toContain(refund.statusCode);
    }
    const liveList = (await call(t, 'GET', '/agents/tasks', live.headers)).json().tasks as { id: string }[];
    const testList = (await call(t, 'GET', '/agents/tasks', test.headers)).json().tasks as { id: string }[];
    expect(liveList.map((x) => x.id)).toEqual([liveT.id]);
    expect(testList.map((x) => x.id)).toEqual([testT.id]);
    // The same Idempotency-Key in both worlds makes two tasks, one in each.
    const key = { 'idempotency-key': 'same-key-both-worlds' };
    const a = await call(
      t,
      'POST',
      '/tasks',
      { ...live.headers, ...key },
      { title: 'A', description: 'B', reward: '1' },
    );
    const b = await call(
      t,
      'POST',
      '/tasks',
      { ...test.headers, ...key },
      { title: 'A', description: 'B', reward: '1' },
    );
    expect(a.statusCode, a.body).toBe(201);
    expect(b.statusCode, b.body).toBe(201);
    expect(a.json().task.id).not.toBe(b.json().task.id);
    expect(b.json().task.livemode).toBe(false);
    await expectBooksBalanced(t);
  });

  it('real workers never see, open or apply to a test task; a test key sees no real worker', async () => {
    const { test } = await agentPair();
    expect((await faucet(test, { amount: '100' })).statusCode).toBe(201);
    const worker = await createWorker(t);
    const task = await testTask(test);
    const feed = await call(t, 'GET', '/worker/tasks?limit=100', worker.headers);
    expect(feed.statusCode).toBe(200);
    expect((feed.json().tasks as { id: string }[]).map((x) => x.id)).not.toContain(task.id);
    expect((await call(t, 'GET', `/worker/tasks/${task.id}`, worker.headers)).statusCode).toBe(404);
    const applied = await call(t, 'POST', `/worker/tasks/${task.id}/applications`, worker.headers, {
      message: 'Me',
    });
    expect(applied.statusCode).toBe(404);
    const catalog = await call(t, 'GET', '/agents/workers', test.headers);
    expect(catalog.statusCode).toBe(200);
    expect(catalog.json()).toMatchObject({ workers: [], total: 0, hasMore: false });
    expect((await call(t, 'GET', `/agents/workers/${worker.id}`, test.headers)).statusCode).toBe(404);
    const offer = await call(t, 'POST', '/tasks', test.headers, {
      title: 'Offer',
      description: 'Direct',
      reward: '1',
      assignToUserId: worker.id,
    });
    expect(offer.statusCode, offer.body).toBe(404);
    expect((await call(t, 'GET', '/worker/offers', worker.headers)).json().tasks).toEqual([]);
  });

  it('webhook deliveries of one world are not in the other’s log', async () => {
    const { live, test } = await agentPair();
    for (const who of [live, test]) {
      const res = await call(t, 'PATCH', '/agents/me', who.headers, {
        webhookUrl: 'https://example.com/hook',
      });
      expect(res.statusCode, res.body).toBe(200);
    }
    expect((await faucet(test, { amount: '100' })).statusCode).toBe(201);
    await testTask(test);
    const testLog = (await call(t, 'GET', '/agents/webhooks/deliveries', test.headers)).json().deliveries;
    const liveLog = (await call(t, 'GET', '/agents/webhooks/deliveries', live.headers)).json().deliveries;
    expect(testLog.length).toBeGreaterThan(0);
    expect(liveLog).toEqual([]);
    expect(JSON.parse(testLog[0].requestBody).livemode).toBe(false);
  });
});

describe("the operator's books", () => {
  // Reconciliation reads a chain's history (testnet or mainnet only): its rows leave twins out the
  // same way (listChainLedgerRows), not exercised here.
  it('/admin/overview is unchanged by test money', async () => {
    const { test } = await agentPair();
    const books = async () => {
      const overview = (await call(t, 'GET', '/admin/overview', t.admin)).json();
      const { checkedAt: _o, hotWallet: _h, ...o } = overview;
      return { o };
    };
    const before = await books();
    expect((await faucet(test, { amount: '500' })).statusCode).toBe(201);
    await testTask(test, { reward: '5' });
    const after = await books();
    expect(after.o.totals).toEqual(before.o.totals);
    expect(after.o.agents).toEqual(before.o.agents);
    expect(after.o.deposits).toEqual(before.o.deposits);
  });
});
