import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completedTask, ledger, ok, walk } from '../helpers/agentApi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import {
  agentMe,
  createAgent,
  createTask,
  createWorker,
  deposit,
  expectBooksBalanced,
} from '../helpers/fixtures.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const TX_HASH = /^[0-9a-f]{64}$/;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('GET /agents/me', () => {
  it('shows the profile, balance, locked funds and task count', async () => {
    const createdAt = t.clock.now().toISOString();
    const agent = await createAgent(t, { name: 'Profile agent', deposit: '50' });
    const res = await t.app.inject({ method: 'GET', url: '/agents/me', headers: agent.headers });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      agent: {
        id: agent.id,
        name: 'Profile agent',
        webhookUrl: null,
        balance: '50',
        lockedByTasks: '0',
        balances: {
          TON: { balance: '50', lockedByTasks: '0', lowBalanceThreshold: null },
          USDT: { balance: '0', lockedByTasks: '0', lowBalanceThreshold: null },
        },
        createdAt,
        updatedAt: createdAt,
        taskCount: 0,
        avgRating: null,
        ratingCount: 0,
        livemode: true,
      },
      // The calling key, its scopes and spend policy (issue 38; test/owners covers them).
      apiKey: expect.objectContaining({ id: expect.stringMatching(/^key_/) }),
    });
    expect(agent.id).toMatch(/^agt_/);

    await createTask(t, agent, { reward: '10' });
    await createTask(t, agent, { reward: '0.5' });
    expect(await agentMe(t, agent)).toMatchObject({ balance: '36.35', lockedByTasks: '13.65', taskCount: 2 });
    await expectBooksBalanced(t);
  });

  it('counts cancelled and completed tasks but locks only active ones', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const worker = await createWorker(t);
    const cancelled = await createTask(t, agent, { reward: '10' });
    await ok(t, agent, 'DELETE', `/tasks/${cancelled.id}`);
    await completedTask(t, agent, worker, { reward: '6.5' });
    await createTask(t, agent, { reward: '1' });
    expect(await agentMe(t, agent)).toMatchObject({ balance: '90.25', lockedByTasks: '1.3', taskCount: 3 });
    await expectBooksBalanced(t);
  });
});

describe('PATCH /agents/me', () => {
  it('changes the name and the webhook URL, and null removes the URL', async () => {
    const agent = await createAgent(t, { name: 'Before' });
    const { createdAt } = (await ok(t, agent, 'GET', '/agents/me')).agent;
    t.clock.advance(60_000);
    const body = await ok(t, agent, 'PATCH', '/agents/me', {
      name: '  After  ',
      webhookUrl: 'https://hooks.example.com/handoff',
    });
    expect(body).toEqual({
      agent: {
        id: agent.id,
        name: 'After',
        webhookUrl: 'https://hooks.example.com/handoff',
        createdAt,
      },
    });
    const me = await ok(t, agent, 'GET', '/agents/me');
    expect(me.agent).toMatchObject({ name: 'After', webhookUrl: 'https://hooks.example.com/handoff' });
    expect(me.agent.updatedAt).toBe(t.clock.now().toISOString());
    expect(me.agent.updatedAt).not.toBe(me.agent.createdAt);

    // Only the given fields change.
    const renamed = await ok(t, agent, 'PATCH', '/agents/me', { name: 'Third' });
    expect(renamed.agent).toMatchObject({ name: 'Third', webhookUrl: 'https://hooks.example.com/handoff' });
    const cleared = await ok(t, agent, 'PATCH', '/agents/me', { webhookUrl: null });
    expect(cleared.agent).toMatchObject({ name: 'Third', webhookUrl: null });
    expect((await ok(t, agent, 'GET', '/agents/me')).agent.webhookUrl).toBeNull();
  });

  it.each([
    ['a blank name', { name: '   ' }, 'name'],
    ['a name over 100 characters', { name: 'n'.repeat(101) }, 'name'],
    ['a webhook URL that is not http(s)', { webhookUrl: 'ftp://example.com/x' }, 'webhookUrl'],
    ['a webhook URL that is not a URL', { webhookUrl: 'not a url' }, 'webhookUrl'],
    ['a webhook URL with credentials', { webhookUrl: 'https://u:p@example.com/' }, 'webhookUrl'],
  ])('refuses %s with 400 and changes nothing', async (_case, payload, path) => {
    const agent = await createAgent(t, { name: 'Unchanged' });
    const res = await t.app.inject({ method: 'PATCH', url: '/agents/me', headers: agent.headers, payload });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'Validation failed' });
    expect(res.json().details.map((d: { path: string }) => d.path)).toContain(path);
    expect((await ok(t, agent, 'GET', '/agents/me')).agent).toMatchObject({
      name: 'Unchanged',
      webhookUrl: null,
    });
  });

  it('ignores fields that are not the profile (balance cannot be patched)', async () => {
    const agent = await createAgent(t, { deposit: '5' });
    await ok(t, agent, 'PATCH', '/agents/me', { name: 'Greedy', balance: '1000000', lockedByTasks: '0' });
    expect(await agentMe(t, agent)).toMatchObject({ balance: '5', lockedByTasks: '0' });
    await expectBooksBalanced(t);
  });
});

describe('GET /platform/stats', () => {
  it('counts tasks by status and sums the ledger', async () => {
    const agent = await createAgent(t, { name: 'Stats agent', deposit: '100' });
    const worker = await createWorker(t);
    await createTask(t, agent, { reward: '10' });
    const cancelled = await createTask(t, agent, { reward: '5' });
    await ok(t, agent, 'DELETE', `/tasks/${cancelled.id}`);
    await completedTask(t, agent, worker, { reward: '6.5' });

    const stats = await ok(t, agent, 'GET', '/platform/stats');
    expect(stats).toEqual({
      agent: { id: agent.id, name: 'Stats agent' },
      tasks: {
        total: 3,
        byStatus: {
          OPEN: 0,
          FUNDED: 1,
          OFFERED: 0,
          ASSIGNED: 0,
          IN_PROGRESS: 0,
          REVIEW: 0,
          COMPLETED: 1,
          CANCELLED: 1,
        },
      },
      transactions: {
        deposits: { count: 1, total: '100' },
        payouts: { count: 1, total: '6.5' },
        refunds: { count: 1, total: '6.5' },
      },
      summary: {
        totalDeposited: '100',
        totalSpent: '8.45',
        platformFeesCollected: '1.95',
        currency: 'TON',
      },
    });
  });

  it('answers zeros for a new agent', async () => {
    const agent = await createAgent(t, { name: null });
    const stats = await ok(t, agent, 'GET', '/platform/stats');
    expect(stats.agent).toEqual({ id: agent.id, name: null });
    expect(stats.tasks.total).toBe(0);
    expect(Object.values(stats.tasks.byStatus).every((n) => n === 0)).toBe(true);
    expect(stats.transactions.deposits).toEqual({ count: 0, total: '0' });
    expect(stats.summary).toEqual({
      totalDeposited: '0',
      totalSpent: '0',
      platformFeesCollected: '0',
      currency: 'TON',
    });
  });

  it('is cached for 5 minutes per agent', async () => {
    const a = await createAgent(t, { deposit: '100' });
    const b = await createAgent(t, { deposit: '100' });
    const total = async (agent: typeof a) => (await ok(t, agent, 'GET', '/platform/stats')).tasks.total;

    expect(await total(a)).toBe(0); // a cached at T
    t.clock.advance(3 * 60_000);
    expect(await total(b)).toBe(0); // b cached at T+3min
    await createTask(t, a);
    await createTask(t, b);
    expect(await total(a)).toBe(0);
    expect(await total(b)).toBe(0);

    t.clock.advance(2 * 60_000 - 1); // T+5min-1ms: both still cached
    expect(await total(a)).toBe(0);
    t.clock.advance(1); // T+5min: a's entry expired, b's (T+3min) has not
    expect(await total(a)).toBe(1);
    expect(await total(b)).toBe(0);

    await createTask(t, a);
    t.clock.advance(3 * 60_000); // T+8min: b expired; a was refreshed at T+5min
    expect(await total(b)).toBe(1);
    expect(await total(a)).toBe(1);
    t.clock.advance(2 * 60_000);
    expect(await total(a)).toBe(2);
  });
});

describe('GET /transactions', () => {
  it('lists the ledger newest first with amounts, addresses and tasks', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    t.clock.advance(1000);
    await deposit(t, agent.id, '20');
    t.clock.advance(1000);
    const task = await createTask(t, agent, { title: 'Ledger task', reward: '10' });
    t.clock.advance(1000);
    await ok(t, agent, 'DELETE', `/tasks/${task.id}`);

    const body = await ok(t, agent, 'GET', '/transactions');
    expect(body.nextCursor).toBeNull();
    expect(body.hasMore).toBe(false);
    const rows = body.transactions;
    expect(rows.map((r: { type: string; amount: string }) => [r.type, r.amount])).toEqual([
      ['REFUND', '13'],
      ['TASK_ESCROW', '13'],
      ['DEPOSIT', '20'],
      ['DEPOSIT', '100'],
    ]);
    for (const deposited of rows.slice(2)) {
      expect(deposited).toMatchObject({ status: 'confirmed', task: null });
      expect(deposited.id).toMatch(/^txn_/);
      expect(deposited.txHash).toMatch(TX_HASH);
      expect(deposited.fromAddress).toEqual(expect.any(String));
      expect(deposited.toAddress).toEqual(expect.any(String));
      expect(deposited.createdAt).toMatch(ISO);
    }
    for (const internal of rows.slice(0, 2)) {
      expect(internal).toMatchObject({
        fromAddress: null,
        toAddress: null,
        txHash: null,
        status: 'confirmed',
        task: { id: task.id, title: 'Ledger task' },
      });
    }
    expect(rows[0].createdAt > rows[1].createdAt).toBe(true);
  });

  it('filters by type', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const worker = await createWorker(t);
    await deposit(t, agent.id, '1');
    const { taskId } = await completedTask(t, agent, worker, { reward: '10' });

    const deposits = await ledger(t, agent, 'DEPOSIT');
    expect(deposits.map((r) => r.amount).sort()).toEqual(['1', '100']);
    const payouts = await ledger(t, agent, 'PAYOUT');
    expect(payouts).toHaveLength(1);
    expect(payouts[0]).toMatchObject({
      type: 'PAYOUT',
      amount: '10',
      toAddress: worker.wallet,
      fromAddress: t.services.chain.hotWalletAddress,
      status: 'confirmed',
      task: { id: taskId },
    });
    expect(payouts[0]!.txHash).toMatch(TX_HASH);
    const fees = await ledger(t, agent, 'FEE');
    expect(fees).toHaveLength(1);
    expect(fees[0]).toMatchObject({
      amount: '3',
      toAddress: t.services.chain.feeAddress,
      status: 'confirmed',
    });
    expect(await ledger(t, agent, 'TASK_ESCROW')).toHaveLength(1);
    expect(await ledger(t, agent, 'REFUND')).toEqual([]);

    const bad = await t.app.inject({
      method: 'GET',
      url: '/transactions?type=GIFT',
      headers: agent.headers,
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: 'Validation failed' });
  });

  it('pages through every entry exactly once, also when entries share a timestamp', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    // Seven escrow rows with the same createdAt: the id breaks the tie.
    for (let i = 0; i < 7; i++) await createTask(t, agent, { reward: '1' });
    const all = await ledger(t, agent);
    expect(all).toHaveLength(8);

    const { items, pages } = await walk(t, agent, '/transactions?limit=3', 'transactions');
    expect(pages.map((p) => p.transactions.length)).toEqual([3, 3, 2]);
    expect(items.map((r) => r.id)).toEqual(all.map((r) => r.id));
    expect(new Set(items.map((r) => r.id)).size).toBe(8);

    const escrows = await walk(t, agent, '/transactions?type=TASK_ESCROW&limit=2', 'transactions');
    expect(escrows.pages).toHaveLength(4);
    expect(new Set(escrows.items.map((r) => r.id)).size).toBe(7);
    expect(escrows.items.every((r) => r.type === 'TASK_ESCROW')).toBe(true);
  });

  it('defaults to 50 per page and refuses a limit over 100 and a bad cursor', async () => {
    const agent = await createAgent(t, { deposit: '1000' });
    t.clock.advance(1000); // the deposit is older than every escrow row
    for (let i = 0; i < 50; i++) await createTask(t, agent, { reward: '1' });
    const first = await ok(t, agent, 'GET', '/transactions');
    expect(first.transactions).toHaveLength(50);
    expect(first.hasMore).toBe(true);
    const second = await ok(t, agent, 'GET', `/transactions?cursor=${first.nextCursor}`);
    expect(second.transactions).toHaveLength(1);
    expect(second.transactions[0].type).toBe('DEPOSIT');
    expect(second.nextCursor).toBeNull();

    for (const query of ['limit=101', 'limit=0', 'cursor=not-a-cursor', 'cursor=WzEsMl0']) {
      const res = await t.app.inject({
        method: 'GET',
        url: `/transactions?${query}`,
        headers: agent.headers,
      });
      expect(res.statusCode, query).toBe(400);
      expect(res.json().error).toBe('Validation failed');
    }
  });

  it('shows only the caller’s own entries', async () => {
    const a = await createAgent(t, { deposit: '7' });
    const b = await createAgent(t, { deposit: '9' });
    await createTask(t, b, { reward: '1' });
    expect((await ledger(t, a)).map((r) => r.amount)).toEqual(['7']);
  });
});

describe('authentication', () => {
  const routes: [string, string, unknown?][] = [
    ['GET', '/agents/me'],
    ['PATCH', '/agents/me', { name: 'x' }],
    ['GET', '/platform/stats'],
    ['GET', '/transactions'],
    ['GET', '/agents/workers'],
    ['GET', '/agents/tasks'],
    ['POST', '/tasks', { title: 'x', description: 'y', reward: '1' }],
    ['POST', '/tasks/tsk_00000000000000000000000000/complete'],
    ['PATCH', '/applications/app_00000000000000000000000000', { status: 'ACCEPTED' }],
    ['GET', '/tasks/tsk_00000000000000000000000000/ratings'],
  ];
  const badHeaders: [string, Record<string, string>][] = [
    ['no Authorization header', {}],
    ['an unknown key', { authorization: `Bearer hr_${'a'.repeat(64)}` }],
    ['a key without the hr_ prefix', { authorization: `Bearer ${'a'.repeat(67)}` }],
    ['a too short key', { authorization: 'Bearer hr_abc' }],
    ['another scheme', { authorization: `Basic hr_${'a'.repeat(64)}` }],
    ['an empty Bearer', { authorization: 'Bearer ' }],
  ];

  for (const [method, url, payload] of routes) {
    it(`${method} ${url} answers 401 without a valid key`, async () => {
      for (const [what, headers] of badHeaders) {
        const res = await t.app.inject({
          method: method as 'GET',
          url,
          headers,
          ...(payload ? { payload: payload as object } : {}),
        });
        expect(res.statusCode, what).toBe(401);
        // docs/decisions/idempotency-errors-request-ids.md: 401 body `{error: "Unauthorized"}`. The app adds `reason` (missing,
        // malformed or unknown) and a `message` hint on how to send the key, and nothing else.
        expect(res.json(), what).toMatchObject({ error: 'Unauthorized' });
        expect(['missing', 'malformed', 'unknown'], what).toContain(res.json().reason);
        expect(
          Object.keys(res.json()).filter((k) => k !== 'message' && k !== 'reason'),
          what,
        ).toEqual(['error']);
      }
    });
  }

  it('refuses the admin token, a worker credential and a revoked-looking key, and moves no money', async () => {
    const agent = await createAgent(t, { deposit: '10' });
    const worker = await createWorker(t);
    for (const headers of [
      t.admin,
      worker.headers,
      { authorization: `Bearer ${agent.apiKey}x` },
      { authorization: `Bearer ${agent.apiKey.slice(0, -1)}` },
    ]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/tasks',
        headers,
        payload: { title: 'x', description: 'y', reward: '1' },
      });
      expect(res.statusCode).toBe(401);
      expect(res.json().error).toBe('Unauthorized');
    }
    expect(await agentMe(t, agent)).toMatchObject({ balance: '10', taskCount: 0 });
    // The key works with either spelling of the scheme.
    const lower = await t.app.inject({
      method: 'GET',
      url: '/agents/me',
      headers: { authorization: `bearer ${agent.apiKey}` },
    });
    expect(lower.statusCode).toBe(200);
  });

  it('checks the key before the body: malformed JSON without a key is 401', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/tasks',
      headers: { 'content-type': 'application/json' },
      payload: '{"title": ',
    });
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toBe('Unauthorized');
  });
});
