import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireOverdueTasks } from '../../src/domain/tasks/expiry.js';
import { DAY_MS, eventsOfType, getTask } from '../helpers/agentApi.js';
import { createTestApp, type TestApp, workerAuth } from '../helpers/app.js';
import {
  agentMe,
  assignedTask,
  createAgent,
  createWorker,
  expectBooksBalanced,
  type TestAgent,
  type TestWorker,
} from '../helpers/fixtures.js';

describe('execution deadlines', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  /** Workers sign in again after the clock moved a day (init data lasts 24 hours). */
  const headersOf = (who: TestWorker | TestAgent) =>
    'telegramId' in who ? workerAuth(t, who.telegramId) : who.headers;

  async function post(who: TestWorker | TestAgent, url: string, payload: unknown) {
    return t.app.inject({ method: 'POST', url, headers: headersOf(who), payload: payload as object });
  }

  it('expires an overdue ASSIGNED task once, even when two runs overlap, and reopens it', async () => {
    const agent = await createAgent(t, { deposit: '50' });
    const worker = await createWorker(t);
    const { taskId } = await assignedTask(t, agent, worker, { reward: '10', executionDeadlineDays: 1 });
    const before = await agentMe(t, agent);

    t.clock.advance(DAY_MS - 60_000);
    expect(await expireOverdueTasks(t.ctx)).toBe(0);
    t.clock.advance(2 * 60_000);
    const runs = await Promise.all([expireOverdueTasks(t.ctx), expireOverdueTasks(t.ctx)]);
    expect(runs[0]! + runs[1]!).toBe(1);
    expect(await expireOverdueTasks(t.ctx)).toBe(0);

    const task = await getTask(t, agent, taskId);
    expect(task).toMatchObject({
      status: 'FUNDED',
      paymentStatus: 'DEPOSITED',
      executionDeadline: null,
      worker: null,
    });
    expect(task.applications[0]).toMatchObject({ status: 'REJECTED', user: { id: worker.id } });
    expect(await eventsOfType(t, taskId, 'task.expired')).toEqual([{ taskId, workerId: worker.id }]);
    // The money stays escrowed for the next worker.
    expect(await agentMe(t, agent)).toEqual(before);
    await expectBooksBalanced(t);

    // The old chat is readable, closed to new messages, and hidden from the next worker.
    expect((await post(worker, `/worker/chat/${taskId}/messages`, { content: 'late' })).statusCode).toBe(409);
    const read = await t.app.inject({
      method: 'GET',
      url: `/chat/${taskId}/messages`,
      headers: agent.headers,
    });
    expect(read.statusCode).toBe(200);

    const next = await createWorker(t);
    const applied = await post(next, `/worker/tasks/${taskId}/applications`, { message: 'me' });
    expect(applied.statusCode, applied.body).toBe(201);
    expect(
      (await post(worker, `/worker/tasks/${taskId}/applications`, { message: 'again' })).statusCode,
    ).toBe(409);
    const accepted = await t.app.inject({
      method: 'PATCH',
      url: `/applications/${applied.json().application.id}`,
      headers: agent.headers,
      payload: { status: 'ACCEPTED' },
    });
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect((await post(next, `/worker/chat/${taskId}/messages`, { content: 'starting' })).statusCode).toBe(
      201,
    );
    const nextView = await t.app.inject({
      method: 'GET',
      url: `/worker/chat/${taskId}/messages`,
      headers: headersOf(next),
    });
    expect(nextView.json().messages.map((m: { content: string }) => m.content)).toEqual(['starting']);
    const notified = await t.ctx.db
      .selectFrom('notifications')
      .select(['kind', 'worker_id'])
      .where('task_id', '=', taskId)
      .where('kind', '=', 'task_expired')
      .execute();
    expect(notified).toEqual([{ kind: 'task_expired', worker_id: worker.id }]);
  });

  it('uses the absolute deadline, and leaves work in progress alone', async () => {
    const agent = await createAgent(t, { deposit: '50' });
    const [a, b] = [await createWorker(t), await createWorker(t)];
    const deadline = new Date(t.clock.now().getTime() + 3 * DAY_MS).toISOString();
    const absolute = await assignedTask(t, agent, a, { reward: '5', deadline });
    expect((await getTask(t, agent, absolute.taskId)).executionDeadline).toBe(deadline);
    const working = await assignedTask(t, agent, b, { reward: '5', executionDeadlineDays: 1 });
    const moved = await t.app.inject({
      method: 'PATCH',
      url: `/worker/tasks/${working.taskId}`,
      headers: headersOf(b),
      payload: { status: 'IN_PROGRESS' },
    });
    expect(moved.statusCode).toBe(200);

    // Other tests' tasks share this app, so look at these two tasks rather than the run's count.
    t.clock.advance(2 * DAY_MS);
    await expireOverdueTasks(t.ctx);
    expect((await getTask(t, agent, absolute.taskId)).status).toBe('ASSIGNED');
    t.clock.advance(DAY_MS + 1000);
    await expireOverdueTasks(t.ctx);
    expect((await getTask(t, agent, absolute.taskId)).status).toBe('FUNDED');
    expect((await getTask(t, agent, working.taskId)).status).toBe('IN_PROGRESS');
    await expectBooksBalanced(t);
  });
});
