import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accept,
  apply,
  call,
  completedTask,
  DAY_MS,
  eventsOfType,
  getTask,
  type Json,
  ledger,
  ok,
  unknownId,
  walk,
} from '../helpers/agentApi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import {
  agentMe,
  assignedTask,
  createAgent,
  createTask,
  createWorker,
  expectBooksBalanced,
  type TestAgent,
} from '../helpers/fixtures.js';

const TX_HASH = /^[0-9a-f]{64}$/;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

function post(agent: TestAgent, body: Record<string, unknown>) {
  return call(t, agent, 'POST', '/tasks', { title: 'A task', description: 'Details', ...body });
}

/** The request failed validation on `path` and changed nothing for the agent. */
async function expectRefused(
  res: { statusCode: number; json(): Json },
  agent: TestAgent,
  path: string,
  before: Json,
) {
  expect(res.statusCode).toBe(400);
  expect(res.json().error).toBe('Validation failed');
  expect(res.json().details.map((d: { path: string }) => d.path)).toContain(path);
  expect(await agentMe(t, agent)).toEqual(before);
}

describe('POST /tasks', () => {
  it('creates a funded task and escrows reward + 30% fee', async () => {
    const agent = await createAgent(t, { name: 'Creator', deposit: '100' });
    const now = t.clock.now().toISOString();
    const res = await post(agent, { title: 'Photo', description: 'Of the town hall', reward: '6.5' });
    expect(res.statusCode).toBe(201);
    const { task } = res.json();
    expect(task.id).toMatch(/^tsk_[0-9a-z]{40}$/);
    expect(res.json()).toEqual({
      task: {
        id: task.id,
        title: 'Photo',
        description: 'Of the town hall',
        currency: 'TON',
        reward: '6.5',
        platformFee: '1.95',
        totalAmount: '8.45',
        status: 'FUNDED',
        paymentStatus: 'DEPOSITED',
        executionDeadlineDays: 7,
        executionDeadline: null,
        webhookUrl: null,
        createdAt: now,
        updatedAt: now,
        agent: { id: agent.id, name: 'Creator' },
        livemode: true,
        worker: null,
        reviewHours: 72,
      },
    });
    expect(await agentMe(t, agent)).toMatchObject({ balance: '91.55', lockedByTasks: '8.45', taskCount: 1 });
    const escrow = await ledger(t, agent, 'TASK_ESCROW');
    expect(escrow).toHaveLength(1);
    expect(escrow[0]).toMatchObject({
      amount: '8.45',
      txHash: null,
      fromAddress: null,
      toAddress: null,
      task: { id: task.id, title: 'Photo' },
    });
    expect(await eventsOfType(t, task.id, 'task.funded')).toEqual([
      { taskId: task.id, deposit: { amount: '8.45', txHash: null, currency: 'TON' } },
    ]);
    // Workers see it at once.
    const worker = await createWorker(t);
    const open = await ok(t, worker, 'GET', '/worker/tasks?limit=100');
    expect(open.tasks.map((x: { id: string }) => x.id)).toContain(task.id);
    await expectBooksBalanced(t);
  });

  describe('deadline variants', () => {
    it('takes executionDeadlineDays (relative) and counts it from acceptance', async () => {
      const agent = await createAgent(t, { deposit: '100' });
      const worker = await createWorker(t);
      const created = (await ok(t, agent, 'POST', '/tasks', taskBody({ executionDeadlineDays: 3 }), 201))
        .task;
      expect(created).toMatchObject({ executionDeadlineDays: 3, executionDeadline: null });
      expect(created).not.toHaveProperty('deadline');
      const applicationId = await apply(t, worker, created.id);
      t.clock.advance(3_600_000);
      const acceptedAt = t.clock.now().getTime();
      await accept(t, agent, applicationId);
      const task = await getTask(t, agent, created.id);
      expect(task.executionDeadline).toBe(new Date(acceptedAt + 3 * DAY_MS).toISOString());
      expect(task.executionDeadlineDays).toBe(3);
    });

    it('takes an absolute deadline instead, returned as a timestamp and used on acceptance', async () => {
      const agent = await createAgent(t, { deposit: '100' });
      const worker = await createWorker(t);
      const deadline = new Date(t.clock.now().getTime() + 10 * DAY_MS).toISOString();
      const created = (await ok(t, agent, 'POST', '/tasks', taskBody({ deadline }), 201)).task;
      expect(created).toMatchObject({ deadline, executionDeadlineDays: null, executionDeadline: null });
      const applicationId = await apply(t, worker, created.id);
      t.clock.advance(60_000);
      await accept(t, agent, applicationId);
      const task = await getTask(t, agent, created.id);
      expect(task).toMatchObject({ deadline, executionDeadline: deadline, status: 'ASSIGNED' });
    });

    it('normalizes an absolute deadline with an offset to UTC', async () => {
      const agent = await createAgent(t, { deposit: '100' });
      const local = '2030-06-01T12:00:00+02:00';
      const created = (await ok(t, agent, 'POST', '/tasks', taskBody({ deadline: local }), 201)).task;
      expect(created.deadline).toBe('2030-06-01T10:00:00.000Z');
    });

    it.each([
      ['both variants at once', { executionDeadlineDays: 3, deadline: '2030-06-01T00:00:00Z' }, 'deadline'],
      ['a deadline in the past', { deadline: '2029-12-31T00:00:00Z' }, 'deadline'],
      ['a deadline that is not a date', { deadline: 'next friday' }, 'deadline'],
      ['a deadline over a year ahead', { deadline: '2032-01-01T00:00:00Z' }, 'deadline'],
      ['0 days', { executionDeadlineDays: 0 }, 'executionDeadlineDays'],
      ['91 days', { executionDeadlineDays: 91 }, 'executionDeadlineDays'],
      ['fractional days', { executionDeadlineDays: 1.5 }, 'executionDeadlineDays'],
    ])('refuses %s with 400', async (_case, body, path) => {
      const agent = await createAgent(t, { deposit: '100' });
      const before = await agentMe(t, agent);
      await expectRefused(await post(agent, { reward: '1', ...body }), agent, path, before);
    });

    it('accepts 1 and 90 days', async () => {
      const agent = await createAgent(t, { deposit: '100' });
      for (const days of [1, 90]) {
        const task = (await ok(t, agent, 'POST', '/tasks', taskBody({ executionDeadlineDays: days }), 201))
          .task;
        expect(task.executionDeadlineDays).toBe(days);
      }
    });
  });

  describe('agentName', () => {
    it('is required on the first task of an agent without a name, then becomes its name', async () => {
      const agent = await createAgent(t, { name: null, deposit: '100' });
      const before = await agentMe(t, agent);
      await expectRefused(await post(agent, { reward: '1' }), agent, 'agentName', before);
      await expectRefused(await post(agent, { reward: '1', agentName: '   ' }), agent, 'agentName', before);
      expect(await ledger(t, agent, 'TASK_ESCROW')).toEqual([]);

      const first = await ok(t, agent, 'POST', '/tasks', taskBody({ agentName: ' Robo ' }), 201);
      expect(first.task.agent).toEqual({ id: agent.id, name: 'Robo' });
      expect((await ok(t, agent, 'GET', '/agents/me')).agent.name).toBe('Robo');

      const second = await ok(t, agent, 'POST', '/tasks', taskBody({ agentName: 'Other name' }), 201);
      expect(second.task.agent).toEqual({ id: agent.id, name: 'Robo' });
      expect((await ok(t, agent, 'GET', '/agents/me')).agent.name).toBe('Robo');
    });

    it('is ignored when the agent already has a name', async () => {
      const agent = await createAgent(t, { name: 'Named', deposit: '100' });
      const task = (await ok(t, agent, 'POST', '/tasks', taskBody({ agentName: 'Ignored' }), 201)).task;
      expect(task.agent.name).toBe('Named');
      expect((await ok(t, agent, 'GET', '/agents/me')).agent.name).toBe('Named');
      // Ignored means not checked either: a blank one does not refuse the task.
      await ok(t, agent, 'POST', '/tasks', taskBody({ agentName: '   ' }), 201);
    });

    it('is refused before the offered worker and the balance are', async () => {
      const agent = await createAgent(t, { name: null });
      const before = await agentMe(t, agent);
      const offer = { reward: '1', assignToUserId: unknownId('wrk') };
      await expectRefused(await post(agent, offer), agent, 'agentName', before);
      await expectRefused(await post(agent, { ...offer, agentName: '\u200b' }), agent, 'agentName', before);
      expect((await post(agent, { ...offer, agentName: 'Named now' })).statusCode).toBe(404);
      expect((await post(agent, { reward: '1', agentName: 'Named now' })).statusCode).toBe(402);
      expect((await ok(t, agent, 'GET', '/agents/me')).agent.name).toBeNull();
    });

    it('is not set when the first task fails for lack of money', async () => {
      const agent = await createAgent(t, { name: null });
      const res = await post(agent, { reward: '1', agentName: 'Broke' });
      expect(res.statusCode).toBe(402);
      expect((await ok(t, agent, 'GET', '/agents/me')).agent.name).toBeNull();
    });
  });

  describe('402 Insufficient balance', () => {
    it('answers exactly {error, currentBalance, requiredAmount, currency, message} and writes nothing', async () => {
      const agent = await createAgent(t, { deposit: '10' });
      const before = await agentMe(t, agent);
      const res = await post(agent, { reward: '10' });
      expect(res.statusCode).toBe(402);
      expect(res.json()).toEqual({
        error: 'Insufficient balance',
        currentBalance: '10',
        requiredAmount: '13',
        currency: 'TON',
        message: expect.any(String),
      });
      expect(res.json().message.length).toBeGreaterThan(0);
      expect(await agentMe(t, agent)).toEqual(before);
      expect((await ledger(t, agent)).map((r) => r.type)).toEqual(['DEPOSIT']);
      expect((await ok(t, agent, 'GET', '/agents/tasks')).tasks).toEqual([]);
      await expectBooksBalanced(t);
    });

    it('counts only the available balance, not money locked in other tasks', async () => {
      const agent = await createAgent(t, { deposit: '20' });
      await createTask(t, agent, { reward: '10' }); // 13 locked, 7 left
      const res = await post(agent, { reward: '6' });
      expect(res.statusCode).toBe(402);
      expect(res.json()).toMatchObject({ currentBalance: '7', requiredAmount: '7.8' });
    });

    it('answers 402 with a zero balance, and lets a balance that exactly covers the total through', async () => {
      const broke = await createAgent(t);
      expect((await post(broke, { reward: '0.01' })).json()).toMatchObject({
        error: 'Insufficient balance',
        currentBalance: '0',
        requiredAmount: '0.013',
      });
      const exact = await createAgent(t, { deposit: '13' });
      await ok(t, exact, 'POST', '/tasks', taskBody({ reward: '10' }), 201);
      expect(await agentMe(t, exact)).toMatchObject({ balance: '0', lockedByTasks: '13' });
      expect((await post(exact, { reward: '0.01' })).statusCode).toBe(402);
      await expectBooksBalanced(t);
    });
  });

  describe('reward', () => {
    it.each([
      ['6.5', '6.5', '1.95', '8.45'],
      [6.5, '6.5', '1.95', '8.45'],
      ['10', '10', '3', '13'],
      [10, '10', '3', '13'],
      ['6.50', '6.5', '1.95', '8.45'],
      ['0.01', '0.01', '0.003', '0.013'],
      [0.01, '0.01', '0.003', '0.013'],
      ['0.015', '0.015', '0.0045', '0.0195'],
      ['1.123456789', '1.123456789', '0.337037037', '1.460493826'],
      // 30% of 10000005 nanotons is 3000001.5: half-up gives 3000002.
      ['0.010000005', '0.010000005', '0.003000002', '0.013000007'],
      // 3000000.3 rounds down, 3000000.6 rounds up.
      ['0.010000001', '0.010000001', '0.003', '0.013000001'],
      ['0.010000002', '0.010000002', '0.003000001', '0.013000003'],
      [' 2 ', '2', '0.6', '2.6'],
    ])('accepts %j: reward %s, fee %s, total %s', async (reward, expected, fee, total) => {
      const agent = await createAgent(t, { deposit: '20' });
      const task = (await ok(t, agent, 'POST', '/tasks', taskBody({ reward }), 201)).task;
      expect(task).toMatchObject({ reward: expected, platformFee: fee, totalAmount: total });
      expect((await ledger(t, agent, 'TASK_ESCROW'))[0]!.amount).toBe(total);
      await expectBooksBalanced(t);
    });

    it('accepts the maximum of 1000000 (validated before the balance check)', async () => {
      const agent = await createAgent(t, { deposit: '1' });
      for (const reward of ['1000000', 1000000, '1000000.000000000']) {
        const res = await post(agent, { reward });
        expect(res.statusCode).toBe(402);
        expect(res.json()).toMatchObject({ requiredAmount: '1300000' });
      }
    });

    it.each([
      ['below the minimum', '0.009999999'],
      ['far below the minimum', '0.000000005'],
      ['zero', '0'],
      ['zero as a number', 0],
      ['negative', '-1'],
      ['negative number', -5],
      ['over the maximum', '1000000.000000001'],
      ['over the maximum as a number', 1000001],
      ['10 decimals', '1.1234567891'],
      ['10 decimals as a number', 1.1234567891],
      ['an exponent', '1e2'],
      ['an upper-case exponent', '1E2'],
      ['a tiny number that JSON prints with an exponent', 1e-7],
      ['a comma', '6,5'],
      ['empty', ''],
      ['words', 'ten'],
      ['a leading point', '.5'],
      ['a trailing point', '5.'],
      ['a plus sign', '+5'],
      ['hex', '0x10'],
      ['Infinity', 'Infinity'],
      ['null', null],
      ['an object', { amount: '5' }],
      ['a boolean', true],
      ['too long', `1${'0'.repeat(40)}`],
    ])('refuses %s (%j) with 400', async (_case, reward) => {
      const agent = await createAgent(t, { deposit: '20' });
      const before = await agentMe(t, agent);
      await expectRefused(await post(agent, { reward }), agent, 'reward', before);
    });

    it('is required', async () => {
      const agent = await createAgent(t, { deposit: '20' });
      const before = await agentMe(t, agent);
      await expectRefused(await post(agent, {}), agent, 'reward', before);
    });
  });

  describe('title and description', () => {
    it('accepts 200 and 10000 characters', async () => {
      const agent = await createAgent(t, { deposit: '20' });
      const task = (
        await ok(
          t,
          agent,
          'POST',
          '/tasks',
          taskBody({ title: 'T'.repeat(200), description: 'D'.repeat(10_000) }),
          201,
        )
      ).task;
      expect(task.title).toHaveLength(200);
      expect(task.description).toHaveLength(10_000);
    });

    it.each([
      ['an empty title', { title: '' }, 'title'],
      ['a blank title', { title: '   ' }, 'title'],
      ['a 201-character title', { title: 'T'.repeat(201) }, 'title'],
      ['a missing title', { title: undefined }, 'title'],
      ['an empty description', { description: '' }, 'description'],
      ['a blank description', { description: '\n\t ' }, 'description'],
      ['a 10001-character description', { description: 'D'.repeat(10_001) }, 'description'],
      ['a missing description', { description: undefined }, 'description'],
      ['a webhook URL that is not http(s)', { webhookUrl: 'javascript:alert(1)' }, 'webhookUrl'],
    ])('refuses %s with 400', async (_case, body, path) => {
      const agent = await createAgent(t, { deposit: '20' });
      const before = await agentMe(t, agent);
      await expectRefused(await post(agent, { reward: '1', ...body }), agent, path, before);
    });

    it('keeps a per-task webhook URL', async () => {
      const agent = await createAgent(t, { deposit: '20' });
      const task = (
        await ok(t, agent, 'POST', '/tasks', taskBody({ webhookUrl: 'https://example.com/task-hook' }), 201)
      ).task;
      expect(task.webhookUrl).toBe('https://example.com/task-hook');
    });
  });

  it('answers malformed JSON with 400 {error: "Invalid JSON body"} and creates nothing', async () => {
    const agent = await createAgent(t, { deposit: '20' });
    const before = await agentMe(t, agent);
    for (const payload of ['{"title": "x", ', '{title: x}', 'not json', '{"a":1}}']) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/tasks',
        headers: { ...agent.headers, 'content-type': 'application/json' },
        payload,
      });
      expect(res.statusCode, payload).toBe(400);
      expect(res.json()).toEqual({ error: 'Invalid JSON body' });
    }
    expect(await agentMe(t, agent)).toEqual(before);
  });

  it('ignores fields a caller may not set (status, balance, fee, paymentStatus, ids)', async () => {
    const agent = await createAgent(t, { deposit: '20' });
    const res = await post(agent, {
      reward: '10',
      status: 'COMPLETED',
      paymentStatus: 'RELEASED',
      platformFee: '0',
      totalAmount: '0',
      balance: '1000000',
      id: 'tsk_00000000000000000000000000',
      agentId: 'agt_someone_else',
      executionDeadline: '2030-01-02T00:00:00.000Z',
      worker: { id: 'wrk_x' },
    });
    expect(res.statusCode).toBe(201);
    const { task } = res.json();
    expect(task).toMatchObject({
      status: 'FUNDED',
      paymentStatus: 'DEPOSITED',
      platformFee: '3',
      totalAmount: '13',
      executionDeadline: null,
      worker: null,
      agent: { id: agent.id },
    });
    expect(task.id).not.toBe('tsk_00000000000000000000000000');
    expect(await agentMe(t, agent)).toMatchObject({ balance: '7', lockedByTasks: '13' });
    await expectBooksBalanced(t);
  });

  describe('direct offers (assignToUserId)', () => {
    it('creates an OFFERED task with the offered worker and a message', async () => {
      const agent = await createAgent(t, { name: 'Offerer', deposit: '20' });
      const worker = await createWorker(t, { firstName: 'Olga', username: 'olga_tg' });
      const res = await post(agent, { reward: '10', assignToUserId: worker.id });
      expect(res.statusCode).toBe(201);
      const body = res.json();
      expect(Object.keys(body).sort()).toEqual(['message', 'offeredWorker', 'task']);
      expect(body.task).toMatchObject({
        status: 'OFFERED',
        paymentStatus: 'DEPOSITED',
        reward: '10',
        platformFee: '3',
        totalAmount: '13',
        executionDeadline: null,
        agent: { id: agent.id, name: 'Offerer' },
        worker: { id: worker.id, username: null, firstName: 'Olga' },
      });
      // The username stays hidden until the worker chooses to show it.
      expect(body.offeredWorker).toEqual({ id: worker.id, username: null, firstName: 'Olga' });
      expect(body.message).toEqual(expect.any(String));
      expect(body.message.length).toBeGreaterThan(0);
      expect(await agentMe(t, agent)).toMatchObject({ balance: '7', lockedByTasks: '13', taskCount: 1 });
      expect(await eventsOfType(t, body.task.id, 'task.funded')).toHaveLength(1);

      // The offer is an OFFERED application and the worker sees it.
      const task = await getTask(t, agent, body.task.id);
      expect(task.applications).toHaveLength(1);
      expect(task.applications[0]).toMatchObject({ status: 'OFFERED', user: { id: worker.id } });
      const offers = await ok(t, worker, 'GET', '/worker/offers');
      expect(offers.tasks.map((x: { id: string }) => x.id)).toEqual([body.task.id]);
      // Not open to other workers.
      const other = await createWorker(t);
      const open = await ok(t, other, 'GET', '/worker/tasks?limit=100');
      expect(open.tasks.map((x: { id: string }) => x.id)).not.toContain(body.task.id);
      await expectBooksBalanced(t);
    });

    it('shows the username of a worker who shows it', async () => {
      const agent = await createAgent(t, { deposit: '20' });
      const worker = await createWorker(t, { firstName: 'Sam', username: 'sam_tg' });
      await ok(t, worker, 'PATCH', '/worker/me', { showTelegram: true });
      const body = await ok(t, agent, 'POST', '/tasks', taskBody({ assignToUserId: worker.id }), 201);
      expect(body.offeredWorker).toEqual({ id: worker.id, username: 'sam_tg', firstName: 'Sam' });
    });

    it('answers 404 for an unknown worker and moves no money', async () => {
      const agent = await createAgent(t, { deposit: '20' });
      const before = await agentMe(t, agent);
      for (const id of [unknownId('wrk'), 'nobody']) {
        const res = await post(agent, { reward: '1', assignToUserId: id });
        expect(res.statusCode, id).toBe(404);
        expect(res.json()).toEqual({ error: 'Worker not found' });
      }
      expect(await agentMe(t, agent)).toEqual(before);
    });

    it('answers 409 for a worker without a wallet and moves no money', async () => {
      const agent = await createAgent(t, { name: null, deposit: '20' });
      const worker = await createWorker(t, { wallet: false });
      const before = await agentMe(t, agent);
      const res = await post(agent, { reward: '1', assignToUserId: worker.id, agentName: 'Nobody yet' });
      expect(res.statusCode).toBe(409);
      expect(res.json().error).toMatch(/wallet/i);
      expect(await agentMe(t, agent)).toEqual(before);
      // The failed request did not register the name either.
      expect((await ok(t, agent, 'GET', '/agents/me')).agent.name).toBeNull();
      await expectBooksBalanced(t);
    });

    it('checks the balance for an offer too', async () => {
      const agent = await createAgent(t, { deposit: '1' });
      const worker = await createWorker(t);
      const res = await post(agent, { reward: '1', assignToUserId: worker.id });
      expect(res.statusCode).toBe(402);
      expect(res.json()).toMatchObject({ currentBalance: '1', requiredAmount: '1.3' });
      expect((await ok(t, worker, 'GET', '/worker/offers')).tasks).toEqual([]);
    });
  });
});

function taskBody(extra: Record<string, unknown> = {}) {
  return { title: 'A task', description: 'Details', reward: '1', ...extra };
}

describe('GET /tasks/:id', () => {
  it('returns the task with its applications, newest first', async () => {
    const agent = await createAgent(t, { name: 'Owner', deposit: '20' });
    const created = await createTask(t, agent, { reward: '2' });
    const w1 = await createWorker(t, { firstName: 'Ann' });
    const w2 = await createWorker(t, { firstName: 'Ben' });
    const a1 = await apply(t, w1, created.id, 'Pick me');
    t.clock.advance(1000);
    const a2 = await apply(t, w2, created.id, 'No, me');

    const task = await getTask(t, agent, created.id);
    expect(task).toMatchObject({
      id: created.id,
      status: 'FUNDED',
      reward: '2',
      platformFee: '0.6',
      totalAmount: '2.6',
      executionDeadline: null,
      agent: { id: agent.id, name: 'Owner' },
      worker: null,
    });
    expect(task.applications).toEqual([
      {
        id: a2,
        status: 'PENDING',
        message: 'No, me',
        createdAt: t.clock.now().toISOString(),
        user: { id: w2.id, username: null, firstName: 'Ben', lastName: null, walletAddress: w2.wallet },
      },
      {
        id: a1,
        status: 'PENDING',
        message: 'Pick me',
        createdAt: new Date(t.clock.now().getTime() - 1000).toISOString(),
        user: { id: w1.id, username: null, firstName: 'Ann', lastName: null, walletAddress: w1.wallet },
      },
    ]);
  });

  it('shows the assigned worker', async () => {
    const agent = await createAgent(t, { deposit: '20' });
    const worker = await createWorker(t, { firstName: 'Wes' });
    const { taskId } = await assignedTask(t, agent, worker);
    const task = await getTask(t, agent, taskId);
    expect(task.worker).toEqual({ id: worker.id, username: null, firstName: 'Wes' });
    expect(task.applications.map((a: { status: string }) => a.status)).toEqual(['ACCEPTED']);
  });

  it('answers 404 for an unknown task', async () => {
    const agent = await createAgent(t);
    for (const id of [unknownId('tsk'), 'nope', unknownId('wrk')]) {
      const res = await call(t, agent, 'GET', `/tasks/${id}`);
      expect(res.statusCode, id).toBe(404);
      expect(res.json()).toEqual({ error: 'Task not found' });
    }
  });
});

describe('GET /agents/tasks', () => {
  it('filters by status and paymentStatus', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const worker = await createWorker(t);
    const funded1 = await createTask(t, agent, { reward: '1' });
    const funded2 = await createTask(t, agent, { reward: '1' });
    const cancelled = await createTask(t, agent, { reward: '1' });
    await ok(t, agent, 'DELETE', `/tasks/${cancelled.id}`);
    const offered = await ok(t, agent, 'POST', '/tasks', taskBody({ assignToUserId: worker.id }), 201);
    const assigned = await assignedTask(t, agent, worker, { reward: '1' });
    const completed = await completedTask(t, agent, worker, { reward: '1' });

    const byQuery = async (query: string) =>
      ((await ok(t, agent, 'GET', `/agents/tasks?${query}`)).tasks as { id: string }[])
        .map((x) => x.id)
        .sort();
    expect(await byQuery('status=FUNDED')).toEqual([funded1.id, funded2.id].sort());
    expect(await byQuery('status=CANCELLED')).toEqual([cancelled.id]);
    expect(await byQuery('status=OFFERED')).toEqual([offered.task.id]);
    expect(await byQuery('status=ASSIGNED')).toEqual([assigned.taskId]);
    expect(await byQuery('status=COMPLETED')).toEqual([completed.taskId]);
    expect(await byQuery('status=IN_PROGRESS')).toEqual([]);
    expect(await byQuery('status=OPEN')).toEqual([]);
    expect(await byQuery('paymentStatus=DEPOSITED')).toEqual(
      [funded1.id, funded2.id, offered.task.id, assigned.taskId].sort(),
    );
    expect(await byQuery('paymentStatus=RELEASED')).toEqual([completed.taskId]);
    expect(await byQuery('paymentStatus=REFUNDED')).toEqual([cancelled.id]);
    expect(await byQuery('paymentStatus=PENDING')).toEqual([]);
    expect(await byQuery('status=FUNDED&paymentStatus=DEPOSITED')).toEqual([funded1.id, funded2.id].sort());
    expect(await byQuery('status=FUNDED&paymentStatus=RELEASED')).toEqual([]);
    expect(await byQuery('')).toHaveLength(6);

    const listed = (await ok(t, agent, 'GET', '/agents/tasks?status=COMPLETED')).tasks[0];
    expect(listed).toMatchObject({
      id: completed.taskId,
      status: 'COMPLETED',
      paymentStatus: 'RELEASED',
      worker: { id: worker.id },
      applicationCount: 1,
    });
    expect(listed).not.toHaveProperty('applications');
    const fundedListed = (await ok(t, agent, 'GET', '/agents/tasks?status=FUNDED')).tasks[0];
    expect(fundedListed.applicationCount).toBe(0);

    for (const query of ['status=DONE', 'paymentStatus=PAID', 'status=funded']) {
      const res = await call(t, agent, 'GET', `/agents/tasks?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().error).toBe('Validation failed');
    }
  });

  it('returns 20 by default, newest first, and pages through every task exactly once', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const other = await createAgent(t, { deposit: '100' });
    await createTask(t, other, { reward: '1' });
    const made: string[] = [];
    for (let i = 0; i < 23; i++) {
      made.push((await createTask(t, agent, { reward: '1' })).id);
      // Several tasks share a millisecond: the order must still be total.
      if (i % 4 === 0) t.clock.advance(1);
    }

    const first = await ok(t, agent, 'GET', '/agents/tasks');
    expect(first.tasks).toHaveLength(20);
    expect(first.hasMore).toBe(true);
    expect(first.nextCursor).toEqual(expect.any(String));
    const createdAts = first.tasks.map((x: { createdAt: string }) => x.createdAt);
    expect([...createdAts].sort().reverse()).toEqual(createdAts);

    const everything = await ok(t, agent, 'GET', '/agents/tasks?limit=100');
    expect(everything.tasks).toHaveLength(23);
    expect(everything.nextCursor).toBeNull();
    expect(everything.hasMore).toBe(false);
    expect(new Set(everything.tasks.map((x: { id: string }) => x.id))).toEqual(new Set(made));

    for (const limit of [1, 3, 7, 20]) {
      const { items, pages } = await walk(t, agent, `/agents/tasks?limit=${limit}`, 'tasks');
      expect(items.map((x) => x.id)).toEqual(everything.tasks.map((x: { id: string }) => x.id));
      expect(pages).toHaveLength(Math.ceil(23 / limit));
    }
  });

  it('refuses a bad cursor and a bad limit with 400', async () => {
    const agent = await createAgent(t);
    const catalogCursor = Buffer.from(JSON.stringify([0, '2030-01-01T00:00:00.000Z', 'wrk_x'])).toString(
      'base64url',
    );
    for (const query of ['cursor=bogus', `cursor=${catalogCursor}`, 'cursor=W10', 'limit=0', 'limit=abc']) {
      const res = await call(t, agent, 'GET', `/agents/tasks?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().error).toBe('Validation failed');
    }
  });
});

describe('PATCH /tasks/:id', () => {
  it('moves ASSIGNED -> IN_PROGRESS -> REVIEW -> IN_PROGRESS -> REVIEW', async () => {
    const agent = await createAgent(t, { deposit: '20' });
    const worker = await createWorker(t);
    const { taskId } = await assignedTask(t, agent, worker);
    for (const status of ['IN_PROGRESS', 'REVIEW', 'IN_PROGRESS', 'REVIEW']) {
      t.clock.advance(1000);
      const body = await ok(t, agent, 'PATCH', `/tasks/${taskId}`, { status });
      expect(body.task).toMatchObject({ id: taskId, status, worker: { id: worker.id } });
      expect(body.task.updatedAt).toBe(t.clock.now().toISOString());
      expect((await getTask(t, agent, taskId)).status).toBe(status);
    }
    // Money does not move on work-status changes.
    expect(await agentMe(t, agent)).toMatchObject({ balance: '7', lockedByTasks: '13' });
  });

  it('moves ASSIGNED -> REVIEW directly', async () => {
    const agent = await createAgent(t, { deposit: '20' });
    const { taskId } = await assignedTask(t, agent, await createWorker(t));
    expect((await ok(t, agent, 'PATCH', `/tasks/${taskId}`, { status: 'REVIEW' })).task.status).toBe(
      'REVIEW',
    );
  });

  it('answers 409 {error, currentStatus, requestedStatus} for a transition not in the table', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const worker = await createWorker(t);
    const funded = await createTask(t, agent);
    const offered = (await ok(t, agent, 'POST', '/tasks', taskBody({ assignToUserId: worker.id }), 201)).task;
    const inProgress = await assignedTask(t, agent, worker);
    await ok(t, agent, 'PATCH', `/tasks/${inProgress.taskId}`, { status: 'IN_PROGRESS' });
    const review = await assignedTask(t, agent, worker);
    await ok(t, agent, 'PATCH', `/tasks/${review.taskId}`, { status: 'REVIEW' });
    const cancelled = await createTask(t, agent);
    await ok(t, agent, 'DELETE', `/tasks/${cancelled.id}`);
    const completed = await completedTask(t, agent, worker);

    const cases: [string, string, string][] = [
      [funded.id, 'FUNDED', 'IN_PROGRESS'],
      [funded.id, 'FUNDED', 'REVIEW'],
      [offered.id, 'OFFERED', 'IN_PROGRESS'],
      [inProgress.taskId, 'IN_PROGRESS', 'IN_PROGRESS'],
      [review.taskId, 'REVIEW', 'REVIEW'],
      [cancelled.id, 'CANCELLED', 'IN_PROGRESS'],
      [completed.taskId, 'COMPLETED', 'REVIEW'],
    ];
    for (const [taskId, currentStatus, requestedStatus] of cases) {
      const res = await call(t, agent, 'PATCH', `/tasks/${taskId}`, { status: requestedStatus });
      expect(res.statusCode, `${currentStatus} -> ${requestedStatus}`).toBe(409);
      expect(res.json()).toEqual({ error: 'Invalid status transition', currentStatus, requestedStatus });
      expect((await getTask(t, agent, taskId)).status).toBe(currentStatus);
    }
  });

  it('answers 400 for any other status value or an empty body', async () => {
    const agent = await createAgent(t, { deposit: '20' });
    const { taskId } = await assignedTask(t, agent, await createWorker(t));
    for (const payload of [
      { status: 'COMPLETED' },
      { status: 'ASSIGNED' },
      { status: 'FUNDED' },
      { status: 'CANCELLED' },
      { status: 'in_progress' },
      { status: 'DONE' },
      { status: null },
      {},
    ]) {
      const res = await call(t, agent, 'PATCH', `/tasks/${taskId}`, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().error).toBe('Validation failed');
    }
    expect((await getTask(t, agent, taskId)).status).toBe('ASSIGNED');
  });

  it('changes executionDeadlineDays only while the task is FUNDED', async () => {
    const agent = await createAgent(t, { deposit: '20' });
    const worker = await createWorker(t);
    const task = await createTask(t, agent, { reward: '1', executionDeadlineDays: 7 });
    const patched = await ok(t, agent, 'PATCH', `/tasks/${task.id}`, { executionDeadlineDays: 2 });
    expect(patched.task).toMatchObject({ status: 'FUNDED', executionDeadlineDays: 2 });

    for (const days of [0, 91, 2.5]) {
      const res = await call(t, agent, 'PATCH', `/tasks/${task.id}`, { executionDeadlineDays: days });
      expect(res.statusCode, String(days)).toBe(400);
    }

    const applicationId = await apply(t, worker, task.id);
    const acceptedAt = t.clock.now().getTime();
    await accept(t, agent, applicationId);
    const assigned = await getTask(t, agent, task.id);
    expect(assigned.executionDeadline).toBe(new Date(acceptedAt + 2 * DAY_MS).toISOString());

    // Once assigned the field is ignored: 200, nothing changes.
    const ignored = await ok(t, agent, 'PATCH', `/tasks/${task.id}`, { executionDeadlineDays: 30 });
    expect(ignored.task).toMatchObject({
      status: 'ASSIGNED',
      executionDeadlineDays: 2,
      executionDeadline: assigned.executionDeadline,
    });
    // Together with a status the status still applies.
    const both = await ok(t, agent, 'PATCH', `/tasks/${task.id}`, {
      status: 'IN_PROGRESS',
      executionDeadlineDays: 30,
    });
    expect(both.task).toMatchObject({ status: 'IN_PROGRESS', executionDeadlineDays: 2 });
  });

  it('does not half-apply: a refused status leaves executionDeadlineDays unchanged', async () => {
    const agent = await createAgent(t, { deposit: '20' });
    const task = await createTask(t, agent, { reward: '1', executionDeadlineDays: 7 });
    const res = await call(t, agent, 'PATCH', `/tasks/${task.id}`, {
      status: 'IN_PROGRESS',
      executionDeadlineDays: 3,
    });
    expect(res.statusCode).toBe(409);
    expect((await getTask(t, agent, task.id)).executionDeadlineDays).toBe(7);
  });

  it('ignores executionDeadlineDays on a task with an absolute deadline', async () => {
    const agent = await createAgent(t, { deposit: '20' });
    const deadline = new Date(t.clock.now().getTime() + 5 * DAY_MS).toISOString();
    const task = await createTask(t, agent, { reward: '1', deadline });
    const body = await ok(t, agent, 'PATCH', `/tasks/${task.id}`, { executionDeadlineDays: 3 });
    expect(body.task).toMatchObject({ deadline, executionDeadlineDays: null });
  });

  it('answers 404 for an unknown task', async () => {
    const agent = await createAgent(t);
    const res = await call(t, agent, 'PATCH', `/tasks/${unknownId('tsk')}`, { status: 'REVIEW' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Task not found' });
  });
});

describe('DELETE /tasks/:id', () => {
  it('cancels a FUNDED task: the total returns to the balance with a REFUND entry', async () => {
    const agent = await createAgent(t, { deposit: '20' });
    const worker = await createWorker(t);
    const task = await createTask(t, agent, { title: 'To cancel', reward: '10' });
    const applicationId = await apply(t, worker, task.id);
    expect(await agentMe(t, agent)).toMatchObject({ balance: '7', lockedByTasks: '13' });

    const body = await ok(t, agent, 'DELETE', `/tasks/${task.id}`);
    expect(body).toEqual({
      success: true,
      task: { id: task.id, status: 'CANCELLED', paymentStatus: 'REFUNDED' },
      refund: { amount: '13', destination: 'agent_balance', currency: 'TON' },
    });
    expect(await agentMe(t, agent)).toMatchObject({ balance: '20', lockedByTasks: '0', taskCount: 1 });
    const refunds = await ledger(t, agent, 'REFUND');
    expect(refunds).toHaveLength(1);
    expect(refunds[0]).toMatchObject({
      amount: '13',
      status: 'confirmed',
      txHash: null,
      fromAddress: null,
      toAddress: null,
      task: { id: task.id, title: 'To cancel' },
    });
    const after = await getTask(t, agent, task.id);
    expect(after).toMatchObject({ status: 'CANCELLED', paymentStatus: 'REFUNDED' });
    expect(after.applications).toMatchObject([{ id: applicationId, status: 'REJECTED' }]);
    expect(await eventsOfType(t, task.id, 'refund.processed')).toEqual([
      {
        taskId: task.id,
        refund: { amount: '13', destination: 'agent_balance', reason: null, currency: 'TON' },
      },
    ]);
    // No longer open to workers.
    const open = await ok(t, worker, 'GET', '/worker/tasks?limit=100');
    expect(open.tasks.map((x: { id: string }) => x.id)).not.toContain(task.id);
    await expectBooksBalanced(t);
  });

  it('cancels an OFFERED task and withdraws the offer', async () => {
    const agent = await createAgent(t, { deposit: '20' });
    const worker = await createWorker(t);
    const offer = await ok(
      t,
      agent,
      'POST',
      '/tasks',
      taskBody({ reward: '5', assignToUserId: worker.id }),
      201,
    );
    const body = await ok(t, agent, 'DELETE', `/tasks/${offer.task.id}`);
    expect(body).toEqual({
      success: true,
      task: { id: offer.task.id, status: 'CANCELLED', paymentStatus: 'REFUNDED' },
      refund: { amount: '6.5', destination: 'agent_balance', currency: 'TON' },
    });
    expect(await agentMe(t, agent)).toMatchObject({ balance: '20', lockedByTasks: '0' });
    expect((await ledger(t, agent, 'REFUND')).map((r) => r.amount)).toEqual(['6.5']);
    expect((await ok(t, worker, 'GET', '/worker/offers')).tasks).toEqual([]);
    const accepted = await call(t, worker, 'POST', `/worker/offers/${offer.task.id}/accept`);
    expect(accepted.statusCode).toBe(409);
    await expectBooksBalanced(t);
  });

  it('answers 409 "Task is assigned; use POST /tasks/:id/refund" once a worker holds the task', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const worker = await createWorker(t);
    for (const status of ['ASSIGNED', 'IN_PROGRESS', 'REVIEW']) {
      const { taskId } = await assignedTask(t, agent, worker);
      if (status !== 'ASSIGNED') await ok(t, agent, 'PATCH', `/tasks/${taskId}`, { status });
      const before = await agentMe(t, agent);
      const res = await call(t, agent, 'DELETE', `/tasks/${taskId}`);
      expect(res.statusCode, status).toBe(409);
      expect(res.json()).toMatchObject({ error: 'Task is assigned; use POST /tasks/:id/refund' });
      expect((await getTask(t, agent, taskId)).status).toBe(status);
      expect(await agentMe(t, agent)).toEqual(before);
    }
    await expectBooksBalanced(t);
  });

  it('answers 409 for a completed or already cancelled task and refunds only once', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const worker = await createWorker(t);
    const { taskId } = await completedTask(t, agent, worker);
    const done = await call(t, agent, 'DELETE', `/tasks/${taskId}`);
    expect(done.statusCode).toBe(409);
    expect(done.json().error).toEqual(expect.any(String));

    const task = await createTask(t, agent);
    await ok(t, agent, 'DELETE', `/tasks/${task.id}`);
    const before = await agentMe(t, agent);
    const again = await call(t, agent, 'DELETE', `/tasks/${task.id}`);
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toEqual(expect.any(String));
    expect(await agentMe(t, agent)).toEqual(before);
    expect(await ledger(t, agent, 'REFUND')).toHaveLength(1);
    await expectBooksBalanced(t);
  });

  it('answers 404 for an unknown task', async () => {
    const agent = await createAgent(t);
    const res = await call(t, agent, 'DELETE', `/tasks/${unknownId('tsk')}`);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Task not found' });
  });
});

describe('POST /tasks/:id/refund', () => {
  it('refunds an assigned task with a reason', async () => {
    const agent = await createAgent(t, { deposit: '20' });
    const worker = await createWorker(t);
    const { taskId, applicationId } = await assignedTask(t, agent, worker, { reward: '10' });
    const body = await ok(t, agent, 'POST', `/tasks/${taskId}/refund`, { reason: 'Worker vanished' });
    expect(body).toEqual({
      success: true,
      task: { id: taskId, status: 'CANCELLED', paymentStatus: 'REFUNDED' },
      refund: { amount: '13', destination: 'agent_balance', currency: 'TON' },
    });
    expect(await agentMe(t, agent)).toMatchObject({ balance: '20', lockedByTasks: '0' });
    expect((await ledger(t, agent, 'REFUND')).map((r) => [r.amount, r.task?.id])).toEqual([['13', taskId]]);
    expect(await eventsOfType(t, taskId, 'refund.processed')).toEqual([
      {
        taskId,
        refund: { amount: '13', destination: 'agent_balance', reason: 'Worker vanished', currency: 'TON' },
      },
    ]);
    // The accepted application stays as history.
    expect((await getTask(t, agent, taskId)).applications).toMatchObject([
      { id: applicationId, status: 'ACCEPTED' },
    ]);
    // Nothing was sent on chain.
    expect(await ledger(t, agent, 'PAYOUT')).toEqual([]);
    await expectBooksBalanced(t);
  });

  it('refunds IN_PROGRESS (no body) and REVIEW (empty object) tasks', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const worker = await createWorker(t);
    const a = await assignedTask(t, agent, worker, { reward: '1' });
    await ok(t, agent, 'PATCH', `/tasks/${a.taskId}`, { status: 'IN_PROGRESS' });
    const r1 = await t.app.inject({
      method: 'POST',
      url: `/tasks/${a.taskId}/refund`,
      headers: agent.headers,
    });
    expect(r1.statusCode, r1.body).toBe(200);
    expect(r1.json().refund).toEqual({ amount: '1.3', destination: 'agent_balance', currency: 'TON' });

    const b = await assignedTask(t, agent, worker, { reward: '2' });
    await ok(t, agent, 'PATCH', `/tasks/${b.taskId}`, { status: 'REVIEW' });
    const r2 = await ok(t, agent, 'POST', `/tasks/${b.taskId}/refund`, {});
    expect(r2.task).toEqual({ id: b.taskId, status: 'CANCELLED', paymentStatus: 'REFUNDED' });
    expect(r2.refund).toEqual({ amount: '2.6', destination: 'agent_balance', currency: 'TON' });

    const c = await assignedTask(t, agent, worker, { reward: '3' });
    const r3 = await t.app.inject({
      method: 'POST',
      url: `/tasks/${c.taskId}/refund`,
      headers: { ...agent.headers, 'content-type': 'application/json' },
      payload: '',
    });
    expect(r3.statusCode, r3.body).toBe(200);
    expect(await eventsOfType(t, c.taskId, 'refund.processed')).toMatchObject([{ refund: { reason: null } }]);

    expect(await agentMe(t, agent)).toMatchObject({ balance: '100', lockedByTasks: '0' });
    await expectBooksBalanced(t);
  });

  it('refunds FUNDED and OFFERED tasks like DELETE', async () => {
    const agent = await createAgent(t, { deposit: '20' });
    const worker = await createWorker(t);
    const funded = await createTask(t, agent, { reward: '5' });
    const offered = (
      await ok(t, agent, 'POST', '/tasks', taskBody({ reward: '5', assignToUserId: worker.id }), 201)
    ).task;
    for (const id of [funded.id, offered.id]) {
      const body = await ok(t, agent, 'POST', `/tasks/${id}/refund`, { reason: 'Changed my mind' });
      expect(body).toEqual({
        success: true,
        task: { id, status: 'CANCELLED', paymentStatus: 'REFUNDED' },
        refund: { amount: '6.5', destination: 'agent_balance', currency: 'TON' },
      });
    }
    expect(await agentMe(t, agent)).toMatchObject({ balance: '20', lockedByTasks: '0' });
    await expectBooksBalanced(t);
  });

  it('answers 409 "Cannot refund a completed task" and 409 for a cancelled one', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const worker = await createWorker(t);
    const { taskId } = await completedTask(t, agent, worker);
    const before = await agentMe(t, agent);
    const res = await call(t, agent, 'POST', `/tasks/${taskId}/refund`, { reason: 'Too late' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ error: 'Cannot refund a completed task' });
    expect(await agentMe(t, agent)).toEqual(before);

    const cancelled = await createTask(t, agent);
    await ok(t, agent, 'POST', `/tasks/${cancelled.id}/refund`);
    const again = await call(t, agent, 'POST', `/tasks/${cancelled.id}/refund`);
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toEqual(expect.any(String));
    expect(await ledger(t, agent, 'REFUND')).toHaveLength(1);
    await expectBooksBalanced(t);
  });

  it('refuses a reason over 1000 characters with 400', async () => {
    const agent = await createAgent(t, { deposit: '20' });
    const task = await createTask(t, agent);
    const res = await call(t, agent, 'POST', `/tasks/${task.id}/refund`, { reason: 'r'.repeat(1001) });
    expect(res.statusCode).toBe(400);
    expect((await getTask(t, agent, task.id)).status).toBe('FUNDED');
  });

  it('answers 404 for an unknown task', async () => {
    const agent = await createAgent(t);
    const res = await call(t, agent, 'POST', `/tasks/${unknownId('tsk')}/refund`);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Task not found' });
  });
});

describe('POST /tasks/:id/complete', () => {
  it('pays the worker and the platform on chain and releases the escrow', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const worker = await createWorker(t, { firstName: 'Payee' });
    const { taskId } = await assignedTask(t, agent, worker, { reward: '6.5' });
    const workerBefore = await t.services.chain.getBalance(worker.wallet!);

    const body = await ok(t, agent, 'POST', `/tasks/${taskId}/complete`);
    expect(body).toEqual({
      success: true,
      task: { id: taskId, status: 'COMPLETED', paymentStatus: 'RELEASED' },
      payment: {
        amount: '6.5',
        currency: 'TON',
        toAddress: worker.wallet,
        txHash: expect.stringMatching(TX_HASH),
        status: 'confirmed',
        pending: false,
        recipient: { id: worker.id, username: null, firstName: 'Payee' },
      },
      fee: {
        amount: '1.95',
        currency: 'TON',
        toAddress: t.services.chain.feeAddress,
        txHash: expect.stringMatching(TX_HASH),
        success: true,
      },
    });
    expect((await t.services.chain.getBalance(worker.wallet!)) - workerBefore).toBe(6_500_000_000n);
    expect(await agentMe(t, agent)).toMatchObject({ balance: '91.55', lockedByTasks: '0' });
    const payouts = await ledger(t, agent, 'PAYOUT');
    expect(payouts).toMatchObject([{ amount: '6.5', txHash: body.payment.txHash, toAddress: worker.wallet }]);
    const fees = await ledger(t, agent, 'FEE');
    expect(fees).toMatchObject([{ amount: '1.95', txHash: body.fee.txHash }]);
    expect(await getTask(t, agent, taskId)).toMatchObject({ status: 'COMPLETED', paymentStatus: 'RELEASED' });
    const detail = (await ok(t, agent, 'GET', `/agents/workers/${worker.id}`)).worker;
    expect(detail).toMatchObject({ completedTasks: 1, totalEarned: '6.5' });
    await expectBooksBalanced(t);
  });

  it('completes from IN_PROGRESS and from REVIEW', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const worker = await createWorker(t);
    for (const status of ['IN_PROGRESS', 'REVIEW']) {
      const { taskId } = await assignedTask(t, agent, worker, { reward: '1' });
      await ok(t, agent, 'PATCH', `/tasks/${taskId}`, { status });
      const body = await ok(t, agent, 'POST', `/tasks/${taskId}/complete`);
      expect(body.task, status).toEqual({ id: taskId, status: 'COMPLETED', paymentStatus: 'RELEASED' });
    }
    expect(await agentMe(t, agent)).toMatchObject({ balance: '97.4', lockedByTasks: '0' });
    await expectBooksBalanced(t);
  });

  it('works with Content-Type: application/json and an empty body', async () => {
    const agent = await createAgent(t, { deposit: '20' });
    const { taskId } = await assignedTask(t, agent, await createWorker(t), { reward: '1' });
    const res = await t.app.inject({
      method: 'POST',
      url: `/tasks/${taskId}/complete`,
      headers: { ...agent.headers, 'content-type': 'application/json' },
      payload: '',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().task.status).toBe('COMPLETED');
  });

  it('answers 409 "Task already completed" and pays only once', async () => {
    const agent = await createAgent(t, { deposit: '20' });
    const worker = await createWorker(t);
    const { taskId } = await completedTask(t, agent, worker, { reward: '1' });
    const before = await agentMe(t, agent);
    const res = await call(t, agent, 'POST', `/tasks/${taskId}/complete`);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ error: 'Task already completed' });
    expect(await agentMe(t, agent)).toEqual(before);
    expect(await ledger(t, agent, 'PAYOUT')).toHaveLength(1);
  });

  it('pays exactly once when two completes race', async () => {
    const agent = await createAgent(t, { deposit: '20' });
    const worker = await createWorker(t);
    const { taskId } = await assignedTask(t, agent, worker, { reward: '1' });
    const results = await Promise.all([
      call(t, agent, 'POST', `/tasks/${taskId}/complete`),
      call(t, agent, 'POST', `/tasks/${taskId}/complete`),
    ]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    expect(await ledger(t, agent, 'PAYOUT')).toHaveLength(1);
    expect(await eventsOfType(t, taskId, 'task.completed')).toHaveLength(1);
    await expectBooksBalanced(t);
  });

  it('answers 409 when no worker is assigned (FUNDED, OFFERED) and for a cancelled task', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const worker = await createWorker(t);
    const funded = await createTask(t, agent);
    const offered = (await ok(t, agent, 'POST', '/tasks', taskBody({ assignToUserId: worker.id }), 201)).task;
    const cancelled = await createTask(t, agent);
    await ok(t, agent, 'DELETE', `/tasks/${cancelled.id}`);
    const refunded = await assignedTask(t, agent, worker);
    await ok(t, agent, 'POST', `/tasks/${refunded.taskId}/refund`);
    const before = await agentMe(t, agent);

    for (const [id, status] of [
      [funded.id, 'FUNDED'],
      [offered.id, 'OFFERED'],
      [cancelled.id, 'CANCELLED'],
      [refunded.taskId, 'CANCELLED'],
    ] as const) {
      const res = await call(t, agent, 'POST', `/tasks/${id}/complete`);
      expect(res.statusCode, status).toBe(409);
      expect(res.json().error, status).toEqual(expect.any(String));
      expect(res.json().error).not.toBe('Task already completed');
      expect((await getTask(t, agent, id)).status).toBe(status);
    }
    expect(await agentMe(t, agent)).toEqual(before);
    expect(await ledger(t, agent, 'PAYOUT')).toEqual([]);
    await expectBooksBalanced(t);
  });

  it('answers 404 for an unknown task', async () => {
    const agent = await createAgent(t);
    const res = await call(t, agent, 'POST', `/tasks/${unknownId('tsk')}/complete`);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Task not found' });
  });
});
