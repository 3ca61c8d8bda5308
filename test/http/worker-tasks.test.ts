import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { disputedTask, resolve } from '../helpers/disputeApi.js';
import {
  assignedTask,
  createAgent,
  createTask,
  createWorker,
  expectBooksBalanced,
  type TestAgent,
} from '../helpers/fixtures.js';
import { agentTask, applyTo, call, offerTo, taskEvents, walkPages } from '../helpers/workerApi.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

interface WorkerTaskBody {
  id: string;
  title: string;
  status: string;
  reward: string;
  createdAt: string;
  executionDeadline: string | null;
  agent: { id: string; name: string | null };
}

describe('GET /worker/tasks', () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await createAgent(t, { name: 'Lister', deposit: '1000' });
  });

  it('lists FUNDED tasks only, as a worker sees them', async () => {
    const worker = await createWorker(t);
    const other = await createWorker(t);
    const funded = await createTask(t, agent, { title: 'Open one', reward: '6.5' });
    const offered = (await offerTo(t, agent, other)).task;
    const cancelled = await createTask(t, agent);
    expect((await call(t, 'DELETE', `/tasks/${cancelled.id}`, agent.headers)).statusCode).toBe(200);
    const { taskId: assignedId } = await assignedTask(t, agent, other);

    const res = await call(t, 'GET', '/worker/tasks?limit=100', worker.headers);
    expect(res.statusCode, res.body).toBe(200);
    const all = await walkPages<WorkerTaskBody>(t, '/worker/tasks', worker.headers, 'tasks', 100);
    const ids = all.items.map((task) => task.id);
    expect(ids).toContain(funded.id);
    for (const hidden of [offered.id, cancelled.id, assignedId]) expect(ids).not.toContain(hidden);
    expect(all.items.every((task) => task.status === 'FUNDED')).toBe(true);

    const seen = all.items.find((task) => task.id === funded.id)!;
    expect(seen).toEqual({
      id: funded.id,
      title: 'Open one',
      description: 'Of the town hall',
      reward: '6.5',
      currency: 'TON',
      status: 'FUNDED',
      executionDeadlineDays: 7,
      executionDeadline: null,
      createdAt: expect.any(String),
      // Issue 25: whom the worker works for, the review window and the place (none here).
      agent: {
        id: agent.id,
        name: 'Lister',
        tasksPaid: 0,
        averageRating: null,
        ratingCount: 0,
        disputesLost: 0,
        medianReviewHours: null,
      },
      reviewHours: 72,
      reviewDeadline: null,
      revisionCount: 0,
      location: null,
      // Issue 27: how many applied, and this worker's own application (none yet).
      applicants: 0,
      yourApplication: null,
    });
    // What the agent pays on top and where webhooks go stay private.
    for (const key of ['platformFee', 'totalAmount', 'webhookUrl', 'applications', 'paymentStatus']) {
      expect(seen).not.toHaveProperty(key);
    }
  });

  it('is newest first and paginates: walking every page returns each task exactly once', async () => {
    const worker = await createWorker(t);
    const created: string[] = [];
    for (let i = 0; i < 7; i++) {
      t.clock.advance(1000);
      created.push((await createTask(t, agent, { title: `Paged ${i}` })).id);
    }
    // Some tasks share a creation time: the id breaks the tie, and no page boundary loses one.
    t.clock.advance(1000);
    for (let i = 0; i < 5; i++) created.push((await createTask(t, agent, { title: `Same time ${i}` })).id);

    for (const limit of [1, 2, 3, 5]) {
      const { items, pages } = await walkPages<WorkerTaskBody>(
        t,
        '/worker/tasks',
        worker.headers,
        'tasks',
        limit,
      );
      const ids = items.map((task) => task.id);
      expect(new Set(ids).size, `limit ${limit}`).toBe(ids.length);
      expect(pages).toBe(Math.max(1, Math.ceil(ids.length / limit)));
      const mine = ids.filter((id) => created.includes(id));
      expect(mine).toHaveLength(created.length);
      // Newest first: the timed ones in reverse order of creation, after the same-time ones.
      expect(mine.slice(5)).toEqual(created.slice(0, 7).reverse());
      expect(mine.slice(0, 5).sort()).toEqual(created.slice(7).sort());
      expect(mine.slice(0, 5)).toEqual([...created.slice(7)].sort().reverse());
      // The whole list is ordered by (createdAt, id) descending.
      const keys = items.map((task) => `${task.createdAt}|${task.id}`);
      expect(keys).toEqual([...keys].sort().reverse());
    }
  });

  it('default page size, limits and bad cursors', async () => {
    const worker = await createWorker(t);
    const first = await call(t, 'GET', '/worker/tasks', worker.headers);
    expect(first.statusCode).toBe(200);
    expect(first.json().tasks.length).toBeLessThanOrEqual(20);
    for (const query of ['limit=0', 'limit=101', 'limit=abc', 'cursor=not-a-cursor', 'cursor=WzFd']) {
      const res = await call(t, 'GET', `/worker/tasks?${query}`, worker.headers);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().error).toBe('Validation failed');
    }
  });
});

describe('POST /worker/tasks/:id/applications', () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await createAgent(t, { name: 'Hirer', deposit: '1000' });
  });

  it('applies: 201 {application}, the agent sees it and gets application.received', async () => {
    const worker = await createWorker(t, { firstName: 'Ann' });
    const task = await createTask(t, agent);
    const res = await call(t, 'POST', `/worker/tasks/${task.id}/applications`, worker.headers, {
      message: 'I live next door',
    });
    expect(res.statusCode, res.body).toBe(201);
    const application = res.json().application;
    expect(application).toEqual({
      id: expect.stringMatching(/^app_[0-9a-z]{40}$/),
      taskId: task.id,
      status: 'PENDING',
      message: 'I live next door',
      createdAt: t.clock.now().toISOString(),
    });

    // The worker's lists mark the task as applied to, and count the applicant (for everyone).
    const own = await walkPages<WorkerTaskBody>(t, '/worker/tasks', worker.headers, 'tasks', 100);
    expect(own.items.find((x) => x.id === task.id)).toMatchObject({
      applicants: 1,
      yourApplication: 'PENDING',
    });
    const single = await call(t, 'GET', `/worker/tasks/${task.id}`, worker.headers);
    expect(single.json().task).toMatchObject({ applicants: 1, yourApplication: 'PENDING' });
    const stranger = await createWorker(t);
    const theirs = await walkPages<WorkerTaskBody>(t, '/worker/tasks', stranger.headers, 'tasks', 100);
    expect(theirs.items.find((x) => x.id === task.id)).toMatchObject({
      applicants: 1,
      yourApplication: null,
    });

    const list = await call(t, 'GET', `/tasks/${task.id}/applications`, agent.headers);
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json().applications).toEqual([
      expect.objectContaining({
        id: application.id,
        status: 'PENDING',
        message: 'I live next door',
        user: expect.objectContaining({ id: worker.id, firstName: 'Ann', walletAddress: worker.wallet }),
      }),
    ]);
    const events = await taskEvents(t, task.id);
    expect(events.filter((e) => e.type === 'application.received')).toEqual([
      {
        type: 'application.received',
        agentId: agent.id,
        data: { applicationId: application.id, taskId: task.id, applicant: { id: worker.id, name: 'Ann' } },
      },
    ]);
  });

  it('a second application by the same worker is 409 and adds nothing', async () => {
    const worker = await createWorker(t);
    const task = await createTask(t, agent);
    await applyTo(t, worker, task.id);
    const again = await call(t, 'POST', `/worker/tasks/${task.id}/applications`, worker.headers, {
      message: 'Me again',
    });
    expect(again.statusCode, again.body).toBe(409);
    expect(again.json().error).toMatch(/already applied/i);
    expect((await agentTask(t, agent, task.id)).applications).toHaveLength(1);
  });

  it('a task that is not FUNDED is 409', async () => {
    const worker = await createWorker(t);
    const holder = await createWorker(t);
    const { taskId: assignedId } = await assignedTask(t, agent, holder);
    const offered = (await offerTo(t, agent, holder)).task;
    const cancelled = await createTask(t, agent);
    expect((await call(t, 'DELETE', `/tasks/${cancelled.id}`, agent.headers)).statusCode).toBe(200);
    for (const [taskId, status] of [
      [assignedId, 'ASSIGNED'],
      [offered.id, 'OFFERED'],
      [cancelled.id, 'CANCELLED'],
    ] as const) {
      const res = await call(t, 'POST', `/worker/tasks/${taskId}/applications`, worker.headers, {
        message: 'Late',
      });
      expect(res.statusCode, `${status}: ${res.body}`).toBe(409);
      expect(res.json()).toMatchObject({ error: expect.any(String), currentStatus: status });
    }
    const mine = await call(t, 'GET', '/worker/applications', worker.headers);
    expect(mine.json().applications).toEqual([]);
  });

  it('a worker without a wallet cannot apply (409)', async () => {
    const worker = await createWorker(t, { wallet: false });
    const task = await createTask(t, agent);
    const res = await call(t, 'POST', `/worker/tasks/${task.id}/applications`, worker.headers, {
      message: 'Hi',
    });
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json().error).toMatch(/wallet/i);
    expect((await agentTask(t, agent, task.id)).applications).toEqual([]);
  });

  it('an unknown task is 404', async () => {
    const worker = await createWorker(t);
    const ghost = `tsk_${'0'.repeat(40)}`;
    for (const id of [ghost, 'nope', 'app_0000000000000000000000000x']) {
      const res = await call(t, 'POST', `/worker/tasks/${id}/applications`, worker.headers, { message: '' });
      expect(res.statusCode, id).toBe(404);
      expect(res.json()).toEqual({ error: 'Task not found' });
    }
  });

  it('message up to 2000 characters; 2001 is 400', async () => {
    const worker = await createWorker(t);
    const task = await createTask(t, agent);
    const tooLong = await call(t, 'POST', `/worker/tasks/${task.id}/applications`, worker.headers, {
      message: 'm'.repeat(2001),
    });
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.json()).toMatchObject({
      error: 'Validation failed',
      details: [expect.objectContaining({ path: 'message' })],
    });
    expect((await agentTask(t, agent, task.id)).applications).toEqual([]);
    const longest = await applyTo(t, worker, task.id, 'm'.repeat(2000));
    expect(longest.message).toHaveLength(2000);
  });

  it('another worker can still apply; the agent accepting one rejects the others', async () => {
    const first = await createWorker(t);
    const second = await createWorker(t);
    const task = await createTask(t, agent);
    const a1 = await applyTo(t, first, task.id);
    const a2 = await applyTo(t, second, task.id);
    const accepted = await call(t, 'PATCH', `/applications/${a2.id}`, agent.headers, { status: 'ACCEPTED' });
    expect(accepted.statusCode, accepted.body).toBe(200);

    const firstApps = (await call(t, 'GET', '/worker/applications', first.headers)).json().applications;
    expect(firstApps).toEqual([expect.objectContaining({ id: a1.id, status: 'REJECTED' })]);
    const secondApps = (await call(t, 'GET', '/worker/applications', second.headers)).json().applications;
    expect(secondApps).toEqual([expect.objectContaining({ id: a2.id, status: 'ACCEPTED' })]);
  });
});

describe('GET /worker/applications and GET /worker/assignments', () => {
  it('lists the worker’s own applications newest first, with their task', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const worker = await createWorker(t);
    const stranger = await createWorker(t);
    const older = await createTask(t, agent, { title: 'Older', reward: '2' });
    t.clock.advance(1000);
    const newer = await createTask(t, agent, { title: 'Newer', reward: '3.25' });
    const a1 = await applyTo(t, worker, older.id, 'first');
    t.clock.advance(1000);
    const a2 = await applyTo(t, worker, newer.id, 'second');
    await applyTo(t, stranger, newer.id, 'not yours');

    const res = await call(t, 'GET', '/worker/applications', worker.headers);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      applications: [
        {
          id: a2.id,
          taskId: newer.id,
          status: 'PENDING',
          message: 'second',
          createdAt: expect.any(String),
          task: { title: 'Newer', status: 'FUNDED', reward: '3.25', currency: 'TON' },
        },
        {
          id: a1.id,
          taskId: older.id,
          status: 'PENDING',
          message: 'first',
          createdAt: expect.any(String),
          task: { title: 'Older', status: 'FUNDED', reward: '2', currency: 'TON' },
        },
      ],
      nextCursor: null,
      hasMore: false,
    });
    const paged = await walkPages<{ id: string }>(
      t,
      '/worker/applications',
      worker.headers,
      'applications',
      1,
    );
    expect(paged.items.map((a) => a.id)).toEqual([a2.id, a1.id]);
  });

  it('lists the tasks the worker holds or held, not open ones or other workers’ tasks', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const worker = await createWorker(t);
    const other = await createWorker(t);
    expect((await call(t, 'GET', '/worker/assignments', worker.headers)).json()).toEqual({
      tasks: [],
      nextCursor: null,
      hasMore: false,
    });
    const open = await createTask(t, agent);
    await applyTo(t, worker, open.id);
    const { taskId } = await assignedTask(t, agent, worker, { title: 'Mine', executionDeadlineDays: 3 });
    await assignedTask(t, agent, other, { title: 'Theirs' });

    const res = await call(t, 'GET', '/worker/assignments', worker.headers);
    expect(res.statusCode, res.body).toBe(200);
    const tasks = res.json().tasks as WorkerTaskBody[];
    expect(tasks.map((task) => task.id)).toEqual([taskId]);
    expect(tasks[0]).toMatchObject({
      title: 'Mine',
      status: 'ASSIGNED',
      executionDeadline: new Date(t.clock.now().getTime() + 3 * 86_400_000).toISOString(),
    });

    // A completed task stays in the list.
    const done = await call(t, 'POST', `/tasks/${taskId}/complete`, agent.headers);
    expect(done.statusCode, done.body).toBe(200);
    const after = (await call(t, 'GET', '/worker/assignments', worker.headers)).json().tasks;
    expect(after).toEqual([expect.objectContaining({ id: taskId, status: 'COMPLETED' })]);
    await expectBooksBalanced(t);
  });

  it('keeps the tasks that ended against the worker: a lost dispute, a cancel after assignment (issue 36)', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const worker = await createWorker(t);
    const lost = await disputedTask(t, agent, worker, { title: 'Lost', reward: '3' });
    expect((await resolve(t, lost.dispute.id, '0', 'The photos show another street')).statusCode).toBe(200);
    t.clock.advance(1000);
    const { taskId: cancelled } = await assignedTask(t, agent, worker, { title: 'Cancelled' });
    expect((await call(t, 'POST', `/tasks/${cancelled}/refund`, agent.headers, {})).statusCode).toBe(200);
    t.clock.advance(1000);
    // An offer withdrawn before the worker accepted it was never theirs: it stays out.
    const offered = (await offerTo(t, agent, worker, { title: 'Withdrawn offer' })).task;
    expect((await call(t, 'DELETE', `/tasks/${offered.id}`, agent.headers)).statusCode).toBe(200);

    const tasks = (await call(t, 'GET', '/worker/assignments', worker.headers)).json().tasks;
    expect(tasks).toEqual([
      expect.objectContaining({
        id: cancelled,
        status: 'CANCELLED',
        settlement: { workerAmount: '0', decidedBy: 'agent', currency: 'TON' },
      }),
      expect.objectContaining({
        id: lost.taskId,
        status: 'CANCELLED',
        settlement: { workerAmount: '0', decidedBy: 'operator', currency: 'TON' },
      }),
    ]);
    await expectBooksBalanced(t);
  });
});

describe('PATCH /worker/tasks/:id {status}', () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await createAgent(t, { deposit: '1000' });
  });

  async function move(headers: Record<string, string>, taskId: string, status: string) {
    return call(t, 'PATCH', `/worker/tasks/${taskId}`, headers, { status });
  }

  it('ASSIGNED -> IN_PROGRESS -> REVIEW -> IN_PROGRESS -> REVIEW, seen by the agent', async () => {
    const worker = await createWorker(t);
    const { taskId } = await assignedTask(t, agent, worker);
    for (const status of ['IN_PROGRESS', 'REVIEW', 'IN_PROGRESS', 'REVIEW']) {
      t.clock.advance(1000);
      const res = await move(worker.headers, taskId, status);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().task).toMatchObject({ id: taskId, status, agent: { id: agent.id } });
      expect((await agentTask(t, agent, taskId)).status).toBe(status);
    }
  });

  it('ASSIGNED -> REVIEW directly', async () => {
    const worker = await createWorker(t);
    const { taskId } = await assignedTask(t, agent, worker);
    const res = await move(worker.headers, taskId, 'REVIEW');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().task.status).toBe('REVIEW');
  });

  it('a transition not in the table is 409 Invalid status transition', async () => {
    const worker = await createWorker(t);
    const { taskId } = await assignedTask(t, agent, worker);
    expect((await move(worker.headers, taskId, 'IN_PROGRESS')).statusCode).toBe(200);
    const same = await move(worker.headers, taskId, 'IN_PROGRESS');
    expect(same.statusCode).toBe(409);
    expect(same.json()).toEqual({
      error: 'Invalid status transition',
      currentStatus: 'IN_PROGRESS',
      requestedStatus: 'IN_PROGRESS',
    });
    expect((await move(worker.headers, taskId, 'REVIEW')).statusCode).toBe(200);
    const review = await move(worker.headers, taskId, 'REVIEW');
    expect(review.statusCode).toBe(409);
    expect(review.json()).toEqual({
      error: 'Invalid status transition',
      currentStatus: 'REVIEW',
      requestedStatus: 'REVIEW',
    });

    const done = await call(t, 'POST', `/tasks/${taskId}/complete`, agent.headers);
    expect(done.statusCode, done.body).toBe(200);
    const afterDone = await move(worker.headers, taskId, 'IN_PROGRESS');
    expect(afterDone.statusCode).toBe(409);
    expect(afterDone.json()).toEqual({
      error: 'Invalid status transition',
      currentStatus: 'COMPLETED',
      requestedStatus: 'IN_PROGRESS',
    });
    expect((await agentTask(t, agent, taskId)).status).toBe('COMPLETED');
  });

  it('a status other than IN_PROGRESS or REVIEW is 400', async () => {
    const worker = await createWorker(t);
    const { taskId } = await assignedTask(t, agent, worker);
    for (const payload of [
      { status: 'COMPLETED' },
      { status: 'ASSIGNED' },
      { status: 'FUNDED' },
      { status: 'in_progress' },
      {},
    ]) {
      const res = await call(t, 'PATCH', `/worker/tasks/${taskId}`, worker.headers, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().error).toBe('Validation failed');
    }
    expect((await agentTask(t, agent, taskId)).status).toBe('ASSIGNED');
  });

  it('a worker who does not hold the task is 403; an unknown task is 404', async () => {
    const holder = await createWorker(t);
    const stranger = await createWorker(t);
    const applicant = await createWorker(t);
    const { taskId } = await assignedTask(t, agent, holder);
    const res = await move(stranger.headers, taskId, 'IN_PROGRESS');
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error: 'Access denied' });
    expect((await agentTask(t, agent, taskId)).status).toBe('ASSIGNED');

    // Applying does not give a hold on an open task either.
    const open = await createTask(t, agent);
    await applyTo(t, applicant, open.id);
    expect((await move(applicant.headers, open.id, 'IN_PROGRESS')).statusCode).toBe(403);

    const unknown = await move(holder.headers, `tsk_${'0'.repeat(40)}`, 'IN_PROGRESS');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: 'Task not found' });
  });

  it('the worker and the agent share one state machine', async () => {
    const worker = await createWorker(t);
    const { taskId } = await assignedTask(t, agent, worker);
    const byAgent = await call(t, 'PATCH', `/tasks/${taskId}`, agent.headers, { status: 'IN_PROGRESS' });
    expect(byAgent.statusCode, byAgent.body).toBe(200);
    const byWorker = await move(worker.headers, taskId, 'IN_PROGRESS');
    expect(byWorker.statusCode).toBe(409);
    expect(byWorker.json().currentStatus).toBe('IN_PROGRESS');
    expect((await move(worker.headers, taskId, 'REVIEW')).statusCode).toBe(200);
    const agentBack = await call(t, 'PATCH', `/tasks/${taskId}`, agent.headers, { status: 'IN_PROGRESS' });
    expect(agentBack.statusCode).toBe(200);
    expect(agentBack.json().task.status).toBe('IN_PROGRESS');
  });
});
