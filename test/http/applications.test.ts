import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accept,
  apply,
  call,
  completedTask,
  DAY_MS,
  eventsOfType,
  getTask,
  ok,
  taskEvents,
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
  type TestWorker,
} from '../helpers/fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('GET /tasks/:id/applications', () => {
  it('lists applications newest first with the applicant {id, username, firstName, lastName, walletAddress}', async () => {
    const agent = await createAgent(t, { deposit: '20' });
    const task = await createTask(t, agent);
    const plain = await createWorker(t, { firstName: 'Pia' });
    const shown = await createWorker(t, { firstName: 'Sven', username: 'sven_tg' });
    await ok(t, shown, 'PATCH', '/worker/me', { showTelegram: true, lastName: 'Svensson' });
    const hidden = await createWorker(t, { firstName: 'Hanna', username: 'hanna_tg' });

    const first = await apply(t, plain, task.id, 'First!');
    const firstAt = t.clock.now().toISOString();
    t.clock.advance(1000);
    const second = await apply(t, shown, task.id, '');
    const secondAt = t.clock.now().toISOString();
    t.clock.advance(1000);
    const third = await apply(t, hidden, task.id, 'x'.repeat(2000));
    const thirdAt = t.clock.now().toISOString();

    const body = await ok(t, agent, 'GET', `/tasks/${task.id}/applications`);
    expect(body).toEqual({
      applications: [
        {
          id: third,
          status: 'PENDING',
          message: 'x'.repeat(2000),
          createdAt: thirdAt,
          user: {
            id: hidden.id,
            username: null,
            firstName: 'Hanna',
            lastName: null,
            walletAddress: hidden.wallet,
          },
        },
        {
          id: second,
          status: 'PENDING',
          message: '',
          createdAt: secondAt,
          user: {
            id: shown.id,
            username: 'sven_tg',
            firstName: 'Sven',
            lastName: 'Svensson',
            walletAddress: shown.wallet,
          },
        },
        {
          id: first,
          status: 'PENDING',
          message: 'First!',
          createdAt: firstAt,
          user: {
            id: plain.id,
            username: null,
            firstName: 'Pia',
            lastName: null,
            walletAddress: plain.wallet,
          },
        },
      ],
      nextCursor: null,
      hasMore: false,
    });
    expect(first).toMatch(/^app_/);
  });

  it('pages through every application exactly once', async () => {
    const agent = await createAgent(t, { deposit: '20' });
    const task = await createTask(t, agent);
    const made: string[] = [];
    for (let i = 0; i < 7; i++) {
      made.push(await apply(t, await createWorker(t), task.id));
      if (i % 3 === 0) t.clock.advance(1); // some share a millisecond
    }
    const all = await ok(t, agent, 'GET', `/tasks/${task.id}/applications?limit=100`);
    expect(new Set(all.applications.map((a: { id: string }) => a.id))).toEqual(new Set(made));
    for (const limit of [1, 2, 3]) {
      const { items, pages } = await walk(
        t,
        agent,
        `/tasks/${task.id}/applications?limit=${limit}`,
        'applications',
      );
      expect(items.map((a) => a.id)).toEqual(all.applications.map((a: { id: string }) => a.id));
      expect(pages).toHaveLength(Math.ceil(7 / limit));
    }
    for (const query of ['limit=101', 'limit=0', 'cursor=zzz']) {
      const res = await call(t, agent, 'GET', `/tasks/${task.id}/applications?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().error).toBe('Validation failed');
    }
  });

  it('answers an empty list for a task without applications and 404 for an unknown task', async () => {
    const agent = await createAgent(t, { deposit: '20' });
    const task = await createTask(t, agent);
    expect(await ok(t, agent, 'GET', `/tasks/${task.id}/applications`)).toEqual({
      applications: [],
      nextCursor: null,
      hasMore: false,
    });
    const res = await call(t, agent, 'GET', `/tasks/${unknownId('tsk')}/applications`);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Task not found' });
  });
});

describe('PATCH /applications/:id', () => {
  async function threeApplicants(days = 5) {
    const agent = await createAgent(t, { deposit: '20' });
    const task = await createTask(t, agent, { reward: '10', executionDeadlineDays: days });
    const workers: TestWorker[] = [];
    const applications: string[] = [];
    for (const name of ['Ada', 'Bob', 'Cy']) {
      const worker = await createWorker(t, { firstName: name });
      workers.push(worker);
      applications.push(await apply(t, worker, task.id));
    }
    return { agent, task, workers, applications };
  }

  it('assigns the task, starts the deadline, opens a chat and rejects the other applications', async () => {
    const { agent, task, workers, applications } = await threeApplicants(5);
    t.clock.advance(2 * 3_600_000);
    const acceptedAt = t.clock.now().getTime();
    const body = await accept(t, agent, applications[1]!);
    expect(body).toEqual({
      application: {
        id: applications[1],
        status: 'ACCEPTED',
        user: { id: workers[1]!.id, username: null, firstName: 'Bob' },
      },
      chat: { id: expect.stringMatching(/^cht_/) },
      message: expect.any(String),
    });

    const after = await getTask(t, agent, task.id);
    expect(after).toMatchObject({
      status: 'ASSIGNED',
      paymentStatus: 'DEPOSITED',
      executionDeadlineDays: 5,
      executionDeadline: new Date(acceptedAt + 5 * DAY_MS).toISOString(),
      worker: { id: workers[1]!.id, firstName: 'Bob' },
    });
    const statuses = Object.fromEntries(
      after.applications.map((a: { id: string; status: string }) => [a.id, a.status]),
    );
    expect(statuses).toEqual({
      [applications[0]!]: 'REJECTED',
      [applications[1]!]: 'ACCEPTED',
      [applications[2]!]: 'REJECTED',
    });
    // The money stays in escrow until completion.
    expect(await agentMe(t, agent)).toMatchObject({ balance: '7', lockedByTasks: '13' });
    // The worker now holds the task and can move it.
    const moved = await ok(t, workers[1]!, 'PATCH', `/worker/tasks/${task.id}`, { status: 'IN_PROGRESS' });
    expect(moved.task.status).toBe('IN_PROGRESS');
    await expectBooksBalanced(t);
  });

  it('answers 409 for an application that is not PENDING', async () => {
    const { agent, task, applications } = await threeApplicants();
    await accept(t, agent, applications[0]!);
    for (const [id, status] of [
      [applications[0]!, 'ACCEPTED'],
      [applications[2]!, 'REJECTED'],
    ]) {
      const res = await call(t, agent, 'PATCH', `/applications/${id}`, { status: 'ACCEPTED' });
      expect(res.statusCode, status).toBe(409);
      expect(res.json()).toMatchObject({ error: expect.stringContaining(status!), currentStatus: status });
    }
    expect((await getTask(t, agent, task.id)).worker.firstName).toBe('Ada');
    // Only one acceptance event.
    expect(await eventsOfType(t, task.id, 'application.accepted')).toHaveLength(1);
  });

  it('answers 409 for the applications of a cancelled task', async () => {
    const { agent, task, applications } = await threeApplicants();
    await ok(t, agent, 'DELETE', `/tasks/${task.id}`);
    const res = await call(t, agent, 'PATCH', `/applications/${applications[0]}`, { status: 'ACCEPTED' });
    expect(res.statusCode).toBe(409);
    expect((await getTask(t, agent, task.id)).status).toBe('CANCELLED');
  });

  it('answers 409 when the task is no longer FUNDED', async () => {
    const { agent, task, applications } = await threeApplicants();
    // No API path leaves a PENDING application on a task that is not FUNDED (accepting rejects
    // the others, cancelling rejects them all), so put the task there directly to check the
    // compare-and-set that guards the move.
    await t.ctx.db.updateTable('tasks').set({ status: 'OFFERED' }).where('id', '=', task.id).execute();
    const res = await call(t, agent, 'PATCH', `/applications/${applications[0]}`, { status: 'ACCEPTED' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ error: expect.stringContaining('FUNDED'), currentStatus: 'OFFERED' });
    const after = await getTask(t, agent, task.id);
    expect(after.applications.every((a: { status: string }) => a.status === 'PENDING')).toBe(true);
    expect(after.executionDeadline).toBeNull();
    expect(await eventsOfType(t, task.id, 'application.accepted')).toEqual([]);
  });

  it('lets exactly one of two racing acceptances win', async () => {
    const { agent, task, applications } = await threeApplicants();
    const results = await Promise.all(
      applications
        .slice(0, 2)
        .map((id) => call(t, agent, 'PATCH', `/applications/${id}`, { status: 'ACCEPTED' })),
    );
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    const after = await getTask(t, agent, task.id);
    expect(after.applications.filter((a: { status: string }) => a.status === 'ACCEPTED')).toHaveLength(1);
    expect(await eventsOfType(t, task.id, 'application.accepted')).toHaveLength(1);
  });

  it('answers 400 for a status other than ACCEPTED', async () => {
    const { agent, task, applications } = await threeApplicants();
    for (const payload of [{ status: 'REJECTED' }, { status: 'accepted' }, { status: 'PENDING' }, {}]) {
      const res = await call(t, agent, 'PATCH', `/applications/${applications[0]}`, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().error).toBe('Validation failed');
    }
    expect((await getTask(t, agent, task.id)).status).toBe('FUNDED');
  });

  it('answers 404 for an unknown application', async () => {
    const agent = await createAgent(t);
    for (const id of [unknownId('app'), 'nope']) {
      const res = await call(t, agent, 'PATCH', `/applications/${id}`, { status: 'ACCEPTED' });
      expect(res.statusCode, id).toBe(404);
      expect(res.json()).toEqual({ error: 'Application not found' });
    }
  });
});

describe('events written to the outbox', () => {
  it('application.received, application.accepted and application.rejected', async () => {
    const agent = await createAgent(t, { deposit: '20' });
    const task = await createTask(t, agent);
    const ada = await createWorker(t, { firstName: 'Ada' });
    await ok(t, ada, 'PATCH', '/worker/me', { lastName: 'Lovelace' });
    const bob = await createWorker(t, { firstName: 'Bob' });
    const adaApp = await apply(t, ada, task.id);
    const bobApp = await apply(t, bob, task.id);

    const received = await eventsOfType(t, task.id, 'application.received');
    expect(received).toHaveLength(2);
    expect(received).toEqual(
      expect.arrayContaining([
        { applicationId: adaApp, taskId: task.id, applicant: { id: ada.id, name: 'Ada Lovelace' } },
        { applicationId: bobApp, taskId: task.id, applicant: { id: bob.id, name: 'Bob' } },
      ]),
    );

    await accept(t, agent, adaApp);
    expect(await eventsOfType(t, task.id, 'application.accepted')).toEqual([
      { taskId: task.id, applicationId: adaApp, worker: { id: ada.id, name: 'Ada Lovelace' } },
    ]);
    expect(await eventsOfType(t, task.id, 'application.rejected')).toEqual([
      { taskId: task.id, applicationId: bobApp, worker: { id: bob.id, name: 'Bob' } },
    ]);
    // Every event of the task is addressed to its agent.
    const all = await taskEvents(t, task.id);
    expect(all.every((e) => e.agentId === agent.id)).toBe(true);
    expect(all.map((e) => e.type).sort()).toEqual([
      'application.accepted',
      'application.received',
      'application.received',
      'application.rejected',
      'task.funded',
    ]);
  });

  it('task.funded on creation, refund.processed on refund', async () => {
    const agent = await createAgent(t, { deposit: '20' });
    const worker = await createWorker(t);
    const { taskId } = await assignedTask(t, agent, worker, { reward: '6.5' });
    expect(await eventsOfType(t, taskId, 'task.funded')).toEqual([
      { taskId, deposit: { amount: '8.45', txHash: null, currency: 'TON' } },
    ]);
    await ok(t, agent, 'POST', `/tasks/${taskId}/refund`, { reason: '  No longer needed  ' });
    expect(await eventsOfType(t, taskId, 'refund.processed')).toEqual([
      {
        taskId,
        refund: { amount: '8.45', destination: 'agent_balance', reason: 'No longer needed', currency: 'TON' },
      },
    ]);
  });

  it('task.completed and payment.sent on completion', async () => {
    const agent = await createAgent(t, { deposit: '20' });
    const worker = await createWorker(t);
    const { taskId, done } = await completedTask(t, agent, worker, { reward: '10' });
    expect(await eventsOfType(t, taskId, 'task.completed')).toEqual([
      { taskId, payment: { amount: '10', toAddress: worker.wallet, currency: 'TON' } },
    ]);
    expect(await eventsOfType(t, taskId, 'payment.sent')).toEqual([
      {
        taskId,
        payment: { amount: '10', toAddress: worker.wallet, txHash: done.payment.txHash, currency: 'TON' },
      },
    ]);
    // Nothing about the fee goes to the agent as a payment.
    const types = (await taskEvents(t, taskId)).map((e) => e.type).sort();
    expect(types).toEqual([
      'application.accepted',
      'application.received',
      'payment.sent',
      'task.completed',
      'task.funded',
    ]);
  });

  it('nothing is written when a request fails', async () => {
    const agent = await createAgent(t, { deposit: '1' });
    const res = await call(t, agent, 'POST', '/tasks', { title: 'x', description: 'y', reward: '10' });
    expect(res.statusCode).toBe(402);
    // Only the deposit's own event: the refused task wrote none.
    const rows = await t.ctx.db
      .selectFrom('events')
      .select('type')
      .where('agent_id', '=', agent.id)
      .execute();
    expect(rows.map((r) => r.type)).toEqual(['deposit.received']);
  });
});
