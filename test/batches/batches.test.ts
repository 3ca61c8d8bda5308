import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accept, apply, call, type Json, ok } from '../helpers/agentApi.js';
import type { TestApp } from '../helpers/app.js';
import { createAgent, createWorker, type TestAgent } from '../helpers/fixtures.js';
import {
  createUnthrottledTestApp,
  expectAgentBooks,
  expectAuditOkFor,
  readBooks,
  statusCounts,
  toUnits,
} from '../helpers/moneyChecks.js';
import { submitOk } from '../helpers/submissionApi.js';

/** Issue 40, scope 1: POST /batches and what follows from it (docs/decisions/batches.md). */

let t: TestApp;
beforeAll(async () => {
  t = await createUnthrottledTestApp();
}, 120_000);
afterAll(() => t?.close());

type Currency = 'TON' | 'USDT';

async function fundedAgent(amount: string, currency: Currency): Promise<TestAgent> {
  const agent = await createAgent(t);
  await ok(t, { headers: t.admin }, 'POST', `/admin/agents/${agent.id}/deposits`, { amount, currency }, 201);
  return agent;
}

const template = (reward = '2') => ({
  title: 'Photograph a café menu',
  description: 'The whole menu',
  reward,
});

function createBatch(agent: TestAgent, body: Record<string, unknown>, key?: string) {
  return t.app.inject({
    method: 'POST',
    url: '/batches',
    headers: { ...agent.headers, ...(key ? { 'idempotency-key': key } : {}) },
    payload: body,
  });
}

async function batchEvents(agentId: string) {
  const rows = await t.ctx.db
    .selectFrom('events')
    .select(['type', 'data_json'])
    .where('agent_id', '=', agentId)
    .where('type', 'in', ['batch.created', 'batch.completed', 'task.funded'])
    .execute();
  return rows.map((r) => ({ type: r.type, data: JSON.parse(r.data_json) }));
}

describe.each(['TON', 'USDT'] as const)('POST /batches in %s', (currency) => {
  it('creates 500 tasks and escrows their sum in one go; the books add up', async () => {
    // 500 x (2 + 0.6) = 1300; 1400 deposited leaves 100.
    const agent = await fundedAgent('1400', currency);
    const res = await createBatch(agent, { template: template(), count: 500, maxPerWorker: 1, currency });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body.batch).toMatchObject({
      count: 500,
      currency,
      totalAmount: '1300',
      maxPerWorker: 1,
      completedAt: null,
    });
    expect(body.batch.id).toMatch(/^bat_/);
    expect(body.batch.counts).toMatchObject({ FUNDED: 500, CANCELLED: 0, COMPLETED: 0 });
    expect(body.tasks).toHaveLength(500);
    expect(new Set(body.tasks.map((task: Json) => task.id)).size).toBe(500);
    for (const task of body.tasks) {
      expect(task).toMatchObject({
        status: 'FUNDED',
        currency,
        reward: '2',
        totalAmount: '2.6',
        batchId: body.batch.id,
      });
    }
    const books = await expectAgentBooks(t, agent);
    const balances = books.me.balances as Record<Currency, { balance: string; lockedByTasks: string }>;
    expect(balances[currency]).toMatchObject({ balance: '100', lockedByTasks: '1300' });
    expect(books.tasks).toHaveLength(500);
    expect(books.transactions.filter((r) => r.type === 'TASK_ESCROW')).toHaveLength(500);
    await expectAuditOkFor(t, [agent.id]);
    // One batch.created instead of 500 task.funded.
    expect(await batchEvents(agent.id)).toEqual([
      {
        type: 'batch.created',
        data: { batchId: body.batch.id, count: 500, currency, totalAmount: '1300', maxPerWorker: 1 },
      },
    ]);
    const got = await ok(t, agent, 'GET', `/batches/${body.batch.id}`);
    expect(got.batch).toEqual(body.batch);
    const page = await ok(t, agent, 'GET', `/agents/tasks?batchId=${body.batch.id}&limit=100`);
    expect(page.tasks).toHaveLength(100);
    expect(page.hasMore).toBe(true);
  }, 120_000);

  it('answers 402 with the arithmetic when the balance does not cover the sum, and creates nothing', async () => {
    const agent = await fundedAgent('1299.9', currency);
    const before = await readBooks(t, agent);
    const res = await createBatch(agent, { template: template(), count: 500, currency });
    expect(res.statusCode, res.body).toBe(402);
    expect(res.json()).toMatchObject({
      error: 'Insufficient balance',
      currentBalance: '1299.9',
      requiredAmount: '1300',
      currency,
    });
    // Sentences write amounts as people read them (src/shared/money.ts): grouped digits and a
    // no-break space before the currency.
    expect(res.json().message.replaceAll('\u00a0', ' ')).toBe(
      `This batch of 500 tasks costs 1,300 ${currency} (rewards 1,000 ${currency} + 30% fees 300 ${currency}); your ${currency} balance is 1,299.9 ${currency}, 0.1 ${currency} short. Nothing was created: top up your ${currency} balance and try again.`,
    );
    expect(await readBooks(t, agent)).toEqual(before);
    expect(before.tasks).toEqual([]);
    expect((await ok(t, agent, 'GET', '/batches')).batches).toEqual([]);
    expect(await batchEvents(agent.id)).toEqual([]);
  });
});

describe('bad batches change nothing', () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await fundedAgent('10000', 'TON');
  });

  const cases: [string, Record<string, unknown>, string][] = [
    ['501 tasks from a template', { template: template(), count: 501 }, 'count'],
    ['501 task bodies', { tasks: Array.from({ length: 501 }, () => template()) }, 'tasks'],
    ['an empty list', { tasks: [] }, 'tasks'],
    ['neither tasks nor template', { maxPerWorker: 1 }, 'tasks'],
    ['a template without count', { template: template() }, 'count'],
    ['maxPerWorker 0', { template: template(), count: 3, maxPerWorker: 0 }, 'maxPerWorker'],
    [
      'a bad item',
      { tasks: [template(), template(), { ...template(), reward: '0.001' }] },
      'tasks[2].reward',
    ],
    [
      'a template with a bad field',
      { template: { ...template(), executionDeadlineDays: 0 }, count: 2 },
      'template',
    ],
    [
      'mixed currencies',
      {
        tasks: [
          { ...template(), currency: 'TON' },
          { ...template(), currency: 'USDT' },
        ],
      },
      'tasks[1].currency',
    ],
    [
      'an item in another currency than the batch',
      { currency: 'USDT', tasks: [template(), { ...template(), currency: 'TON' }] },
      'tasks[1].currency',
    ],
    ['a direct offer in a batch', { tasks: [{ ...template(), assignToUserId: 'wrk_x' }] }, 'tasks[0]'],
  ];

  it.each(cases)('%s: 400 naming the field', async (_name, body, path) => {
    const before = await readBooks(t, agent);
    const res = await createBatch(agent, body);
    expect(res.statusCode, res.body).toBe(400);
    const details = (res.json().details ?? []) as { path: string; message: string }[];
    expect(
      details.some((d) =>
        d.path
          .replaceAll('/', '.')
          .replace(/\.(\d+)/g, '[$1]')
          .startsWith(path),
      ),
      res.body,
    ).toBe(true);
    expect(await readBooks(t, agent)).toEqual(before);
    expect((await ok(t, agent, 'GET', '/batches')).batches).toEqual([]);
  });

  it('the 400 of a bad item names its index and field', async () => {
    const res = await createBatch(agent, { tasks: [template(), { ...template(), reward: '0.001' }] });
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual([
      { path: 'tasks[1].reward', message: 'must be at least 0.01\u00a0TON' },
    ]);
  });
});

describe('a batch, followed', () => {
  it('an Idempotency-Key makes a retry replay the batch instead of creating another', async () => {
    const agent = await fundedAgent('100', 'TON');
    const body = { tasks: [template('1'), { ...template('3'), title: 'Another café' }] };
    const first = await createBatch(agent, body, 'batch-key-1');
    const again = await createBatch(agent, body, 'batch-key-1');
    expect(first.statusCode, first.body).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect(first.json().batch).toMatchObject({ count: 2, totalAmount: '5.2' });
    expect(first.json().tasks.map((task: Json) => task.title)).toEqual([
      'Photograph a café menu',
      'Another café',
    ]);
    const other = await createBatch(agent, { ...body, maxPerWorker: 2 }, 'batch-key-1');
    expect(other.statusCode).toBe(422);
    const books = await expectAgentBooks(t, agent);
    expect(books.tasks).toHaveLength(2);
  });

  it('GET /batches pages newest first; another agent’s batch is 403, an unknown one 404', async () => {
    const agent = await fundedAgent('100', 'TON');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await createBatch(agent, { template: template('1'), count: i + 1 });
      expect(res.statusCode, res.body).toBe(201);
      ids.push(res.json().batch.id);
    }
    const first = await ok(t, agent, 'GET', '/batches?limit=2');
    expect(first.batches.map((b: Json) => b.id)).toEqual([ids[2], ids[1]]);
    expect(first.batches[0].counts.FUNDED).toBe(3);
    expect(first.hasMore).toBe(true);
    const second = await ok(t, agent, 'GET', `/batches?limit=2&cursor=${first.nextCursor}`);
    expect(second.batches.map((b: Json) => b.id)).toEqual([ids[0]]);
    expect(second.hasMore).toBe(false);
    const stranger = await fundedAgent('1', 'TON');
    expect((await call(t, stranger, 'GET', `/batches/${ids[0]}`)).statusCode).toBe(403);
    expect((await call(t, stranger, 'POST', `/batches/${ids[0]}/cancel`, {})).statusCode).toBe(403);
    expect((await call(t, agent, 'GET', '/batches/bat_nope')).statusCode).toBe(404);
    const tasks = await ok(t, agent, 'GET', `/agents/tasks?batchId=${ids[1]}`);
    expect(tasks.tasks).toHaveLength(2);
    expect(tasks.tasks.every((task: Json) => task.batchId === ids[1])).toBe(true);
  });

  it.each(['TON', 'USDT'] as const)(
    'cancel refunds exactly the open tasks (%s), says why the others stay; the last ending completes the batch',
    async (currency) => {
      const agent = await fundedAgent('100', currency);
      const created = await createBatch(agent, { template: template('1'), count: 5, currency });
      expect(created.statusCode, created.body).toBe(201);
      const batchId = created.json().batch.id as string;
      const [assigned, submitted, completed, applied, open] = created
        .json()
        .tasks.map((task: Json) => task.id);
      const worker = await createWorker(t);
      const take = async (taskId: string) => accept(t, agent, await apply(t, worker, taskId));
      await take(assigned);
      await take(submitted);
      await submitOk(t, worker, submitted);
      await take(completed);
      await ok(t, agent, 'POST', `/tasks/${completed}/complete`);
      const waiting = await createWorker(t);
      await apply(t, waiting, applied);
      const result = await ok(t, agent, 'POST', `/batches/${batchId}/cancel`, { reason: 'Enough' });
      expect([...result.refunded].sort()).toEqual([assigned, applied, open].sort());
      expect(result.refundedAmount).toBe('3.9');
      expect(result.notRefunded).toEqual([
        { id: submitted, status: 'REVIEW', reason: expect.stringContaining('Work was submitted') },
        { id: completed, status: 'COMPLETED', reason: 'The task is already COMPLETED' },
      ]);
      expect(result.batch.counts).toMatchObject({ CANCELLED: 3, REVIEW: 1, COMPLETED: 1 });
      expect(result.batch.completedAt).toBeNull();
      // Each refunded task looks exactly as after a single refund.
      const task = await ok(t, agent, 'GET', `/tasks/${applied}`);
      expect(task.task).toMatchObject({ status: 'CANCELLED', paymentStatus: 'REFUNDED' });
      expect(task.task.applications[0].status).toBe('REJECTED');
      const books = await expectAgentBooks(t, agent);
      const balances = books.me.balances as Record<Currency, { balance: string }>;
      // 100 - 5 x 1.3 + 3 x 1.3
      expect(toUnits(balances[currency].balance, currency)).toBe(toUnits('97.4', currency));
      // Again: nothing more to refund.
      const again = await ok(t, agent, 'POST', `/batches/${batchId}/cancel`);
      expect(again.refunded).toEqual([]);
      expect(again.notRefunded).toHaveLength(5);
      expect((await batchEvents(agent.id)).filter((e) => e.type === 'batch.completed')).toEqual([]);
      // The last open task ends: batch.completed, once.
      await ok(t, agent, 'POST', `/tasks/${submitted}/complete`);
      const done = await ok(t, agent, 'GET', `/batches/${batchId}`);
      expect(done.batch.completedAt).not.toBeNull();
      expect((await batchEvents(agent.id)).filter((e) => e.type === 'batch.completed')).toEqual([
        { type: 'batch.completed', data: { batchId, count: 5, completedAt: done.batch.completedAt } },
      ]);
      await expectAgentBooks(t, agent);
      await expectAuditOkFor(t, [agent.id]);
    },
    60_000,
  );
});

describe('maxPerWorker', () => {
  it('1: of 20 concurrent applications by one worker to 20 tasks of the batch, exactly one gets through', async () => {
    const agent = await fundedAgent('100', 'TON');
    const created = await createBatch(agent, { template: template('1'), count: 20, maxPerWorker: 1 });
    expect(created.statusCode, created.body).toBe(201);
    const taskIds = created.json().tasks.map((task: Json) => task.id as string);
    const worker = await createWorker(t);
    const answers = await Promise.all(
      taskIds.map((id: string) =>
        call(t, worker, 'POST', `/worker/tasks/${id}/applications`, { message: 'Me' }),
      ),
    );
    expect(statusCounts(answers)).toEqual({ 201: 1, 409: 19 });
    const refused = answers.find((a) => a.statusCode === 409)!;
    expect(refused.json().error).toBe(
      'This task is one of a batch that takes each person once, and you already applied for or hold one of its tasks',
    );
    // Another person may still apply; the first, once accepted, still counts (held).
    const other = await createWorker(t);
    await apply(t, other, taskIds[0]);
    const winner = answers.findIndex((a) => a.statusCode === 201);
    await accept(t, agent, answers[winner]!.json().application.id);
    const later = await call(
      t,
      worker,
      'POST',
      `/worker/tasks/${taskIds[(winner + 1) % 20]}/applications`,
      {},
    );
    expect(later.statusCode).toBe(409);
  });

  it('2: a rejected application frees its place; a third place is refused', async () => {
    const agent = await fundedAgent('100', 'TON');
    const created = await createBatch(agent, { template: template('1'), count: 4, maxPerWorker: 2 });
    const [a, b, c] = created.json().tasks.map((task: Json) => task.id as string);
    const worker = await createWorker(t);
    const rival = await createWorker(t);
    await apply(t, worker, a);
    await apply(t, worker, b);
    const third = await call(t, worker, 'POST', `/worker/tasks/${c}/applications`, {});
    expect(third.statusCode).toBe(409);
    expect(third.json().error).toContain('at most 2 times');
    // The agent takes someone else for a: the worker's application there is rejected.
    await accept(t, agent, await apply(t, rival, a));
    await apply(t, worker, c);
  });

  it('a task outside any batch is not limited', async () => {
    const agent = await fundedAgent('100', 'TON');
    const worker = await createWorker(t);
    for (let i = 0; i < 2; i++) {
      const task = await ok(t, agent, 'POST', '/tasks', template('1'), 201);
      expect(task.task.batchId).toBeUndefined();
      await apply(t, worker, task.task.id);
    }
  });
});
