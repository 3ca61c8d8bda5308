import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runReviewWindow } from '../../src/domain/trust/reviewWindow.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import {
  assignedTask,
  createAgent,
  createTask,
  createWorker,
  expectBooksBalanced,
  type TestAgent,
  type TestWorker,
} from '../helpers/fixtures.js';
import { expectAgentBooks } from '../helpers/moneyChecks.js';
import { requestRevision, submit, submitOk, submittedTask, uploadFile } from '../helpers/submissionApi.js';
import { agentTask, call, taskEvents } from '../helpers/workerApi.js';

const HOUR = 3_600_000;
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const failOnError = (taskId: string, error: unknown) => {
  throw new Error(`review window failed on ${taskId}: ${String(error)}`);
};
const runWindow = () => runReviewWindow(t.ctx, failOnError);

async function notificationsOf(workerId: string, taskId: string) {
  const rows = await t.ctx.db
    .selectFrom('notifications')
    .select(['kind', 'data_json'])
    .where('worker_id', '=', workerId)
    .where('task_id', '=', taskId)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ kind: r.kind, data: JSON.parse(r.data_json) as Record<string, unknown> }));
}

async function pair(): Promise<{ agent: TestAgent; worker: TestWorker }> {
  return {
    agent: await createAgent(t, { name: 'Reviewer', deposit: '200' }),
    worker: await createWorker(t),
  };
}

describe('POST /worker/tasks/:id/submissions', () => {
  it('moves the task to REVIEW with a review deadline, and the agent hears task.submitted', async () => {
    const { agent, worker } = await pair();
    const { taskId } = await assignedTask(t, agent, worker, { reviewHours: 10 });
    const photo = await uploadFile(t, worker);
    const now = t.clock.now();
    const res = await submit(t, worker, taskId, { note: 'Photo taken', attachments: [photo] });
    expect(res.statusCode, res.body).toBe(201);
    const { submission, task } = res.json();
    expect(submission).toEqual({
      id: expect.stringMatching(/^sub_/),
      number: 1,
      note: 'Photo taken',
      attachments: [{ fileUrl: photo, name: 'photo.jpg', contentType: 'image/jpeg', size: 17 }],
      location: null,
      createdAt: now.toISOString(),
      status: 'PENDING',
      revisionReason: null,
    });
    const deadline = new Date(now.getTime() + 10 * HOUR).toISOString();
    expect(task).toMatchObject({ id: taskId, status: 'REVIEW', reviewHours: 10, reviewDeadline: deadline });
    expect(task.submission).toEqual(submission);
    const seen = await agentTask(t, agent, taskId);
    expect(seen).toMatchObject({ status: 'REVIEW', reviewDeadline: deadline, revisionCount: 0, submission });
    const events = (await taskEvents(t, taskId)).filter((e) => e.type === 'task.submitted');
    expect(events.map((e) => e.data)).toEqual([{ taskId, reviewDeadline: deadline, submission }]);
    expect((await call(t, 'GET', `/tasks/${taskId}/submissions`, agent.headers)).json()).toEqual({
      submissions: [submission],
    });
    expect((await call(t, 'GET', `/worker/tasks/${taskId}/submissions`, worker.headers)).json()).toEqual({
      submissions: [submission],
    });
    const worksView = (await call(t, 'GET', `/worker/tasks/${taskId}`, worker.headers)).json().task;
    expect(worksView).toMatchObject({ status: 'REVIEW', reviewDeadline: deadline, submission });
    expect(await notificationsOf(worker.id, taskId)).toContainEqual({
      kind: 'submission_received',
      data: { taskId, title: 'Take a photo', reviewDeadline: deadline },
    });
    await expectBooksBalanced(t);
  });

  it('uses the default window of 72 hours, shows it on every view, and the other review fields once work is submitted', async () => {
    const { agent, worker } = await pair();
    const { taskId } = await assignedTask(t, agent, worker);
    const before = await agentTask(t, agent, taskId);
    expect(before.reviewHours).toBe(72);
    const listed = (await call(t, 'GET', '/agents/tasks', agent.headers)).json();
    expect(listed.tasks.find((x: { id: string }) => x.id === taskId).reviewHours).toBe(72);
    for (const key of ['reviewDeadline', 'revisionCount', 'location', 'submission']) {
      expect(before).not.toHaveProperty(key);
    }
    const now = t.clock.now().getTime();
    await submitOk(t, worker, taskId);
    expect(await agentTask(t, agent, taskId)).toMatchObject({
      reviewHours: 72,
      reviewDeadline: new Date(now + 72 * HOUR).toISOString(),
    });
  });

  it('refuses bad input with 400 and changes nothing', async () => {
    const { agent, worker } = await pair();
    const { taskId } = await assignedTask(t, agent, worker);
    const other = await createWorker(t);
    const othersFile = await uploadFile(t, other);
    const agentsFile = await uploadFile(t, agent);
    const mine = await uploadFile(t, worker);
    const cases: [Record<string, unknown>, string][] = [
      [{ note: '' }, 'note'],
      [{ note: '   ' }, 'note'],
      [{ note: 'x'.repeat(4001) }, 'note'],
      [{ attachments: Array.from({ length: 11 }, () => mine) }, 'attachments'],
      [{ attachments: [othersFile] }, 'attachments/0'],
      [{ attachments: [mine, agentsFile] }, 'attachments/1'],
      [{ attachments: ['https://example.com/x.jpg'] }, 'attachments/0'],
      [{ attachments: [mine, mine] }, 'attachments'],
      [{ location: { latitude: 91, longitude: 0 } }, 'location'],
      [{ location: { latitude: 0, longitude: 181 } }, 'location'],
      [{ location: { latitude: 0, longitude: 0, accuracyMeters: -1 } }, 'location'],
    ];
    for (const [body, path] of cases) {
      const res = await submit(t, worker, taskId, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(res.json().details), JSON.stringify(body)).toContain(path);
    }
    expect((await agentTask(t, agent, taskId)).status).toBe('ASSIGNED');
    expect((await call(t, 'GET', `/tasks/${taskId}/submissions`, agent.headers)).json()).toEqual({
      submissions: [],
    });
  });

  it('is for the assigned worker only, while the task is ASSIGNED or IN_PROGRESS', async () => {
    const { agent, worker } = await pair();
    const stranger = await createWorker(t);
    const open = await createTask(t, agent);
    expect((await submit(t, worker, open.id)).statusCode).toBe(403);
    const { taskId } = await assignedTask(t, agent, worker);
    expect((await submit(t, stranger, taskId)).statusCode).toBe(403);
    expect((await submit(t, worker, 'tsk_nope')).statusCode).toBe(404);
    expect((await call(t, 'GET', `/worker/tasks/${taskId}/submissions`, stranger.headers)).statusCode).toBe(
      403,
    );
    expect(
      (await call(t, 'GET', `/tasks/${taskId}/submissions`, (await pair()).agent.headers)).statusCode,
    ).toBe(403);
    expect((await call(t, 'GET', `/tasks/${taskId}/submissions`, {})).statusCode).toBe(401);
    await submitOk(t, worker, taskId);
    const second = await submit(t, worker, taskId);
    expect(second.statusCode).toBe(409);
    expect(second.json().error).toMatch(/already waits/);
    const done = await call(t, 'POST', `/tasks/${taskId}/complete`, agent.headers);
    expect(done.statusCode, done.body).toBe(200);
    expect((await submit(t, worker, taskId)).statusCode).toBe(409);
  });

  it('flags a location within or outside the task’s area, never refusing it', async () => {
    const { agent, worker } = await pair();
    const area = { latitude: 52.52, longitude: 13.405, radiusMeters: 500, label: 'Alexanderplatz' };
    const { taskId } = await assignedTask(t, agent, worker, { location: area });
    expect((await agentTask(t, agent, taskId)).location).toEqual(area);
    const near = await submitOk(t, worker, taskId, {
      location: { latitude: 52.521, longitude: 13.406, accuracyMeters: 12 },
    });
    expect(near.location).toEqual({
      latitude: 52.521,
      longitude: 13.406,
      accuracyMeters: 12,
      withinArea: true,
    });
    expect((await requestRevision(t, agent, taskId)).statusCode).toBe(201);
    const far = await submitOk(t, worker, taskId, { location: { latitude: 48.85, longitude: 2.35 } });
    expect(far.location).toEqual({
      latitude: 48.85,
      longitude: 2.35,
      accuracyMeters: null,
      withinArea: false,
    });
    // Without a task area the flag is null.
    const plain = await assignedTask(t, agent, worker);
    const none = await submitOk(t, worker, plain.taskId, { location: { latitude: 1, longitude: 2 } });
    expect(none.location?.withinArea).toBeNull();
  });
});

describe('POST /tasks: reviewHours and location', () => {
  it('refuses a window outside 1-336 whole hours and a bad area with 400', async () => {
    const { agent } = await pair();
    for (const body of [
      { reviewHours: 0 },
      { reviewHours: 337 },
      { reviewHours: 1.5 },
      { location: { latitude: 0, longitude: 0, radiusMeters: 9 } },
      { location: { latitude: 0, longitude: 0, radiusMeters: 50_001 } },
      { location: { latitude: -91, longitude: 0, radiusMeters: 100 } },
      { location: { latitude: 0, longitude: 0, radiusMeters: 100, label: 'x'.repeat(201) } },
    ]) {
      const res = await call(t, 'POST', '/tasks', agent.headers, {
        title: 'x',
        description: 'y',
        reward: '1',
        ...body,
      });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
    }
    for (const reviewHours of [1, 336]) {
      const task = await createTask(t, agent, { reviewHours });
      expect((await agentTask(t, agent, task.id)).reviewHours).toBe(reviewHours);
    }
  });
});

describe('approval, revisions and the end of refunds', () => {
  it('complete approves the waiting submission; the agent’s event has no autoReleased', async () => {
    const { agent, worker } = await pair();
    const { taskId, submission } = await submittedTask(t, agent, worker);
    const res = await call(t, 'POST', `/tasks/${taskId}/complete`, agent.headers);
    expect(res.statusCode, res.body).toBe(200);
    const list = (await call(t, 'GET', `/tasks/${taskId}/submissions`, agent.headers)).json().submissions;
    expect(list).toEqual([{ ...submission, status: 'ACCEPTED' }]);
    const completed = (await taskEvents(t, taskId)).find((e) => e.type === 'task.completed');
    expect(completed?.data).not.toHaveProperty('autoReleased');
    // The worker now sees this agent's record.
    const view = (await call(t, 'GET', `/worker/tasks/${taskId}`, worker.headers)).json().task;
    expect(view.agent).toMatchObject({ tasksPaid: 1, medianReviewHours: 0 });
    await expectAgentBooks(t, agent);
  });

  it('a revision sends the work back with the reason, at most 3 times', async () => {
    const { agent, worker } = await pair();
    const { taskId } = await submittedTask(t, agent, worker, { executionDeadlineDays: 1 });
    t.clock.advance(20 * HOUR);
    const res = await requestRevision(t, agent, taskId, 'Show the whole building');
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body.submission).toMatchObject({
      status: 'REVISION_REQUESTED',
      revisionReason: 'Show the whole building',
    });
    expect(body.task).toMatchObject({ status: 'IN_PROGRESS', reviewDeadline: null, revisionCount: 1 });
    // The execution deadline was 4 hours away: it moves to 24 hours from now.
    expect(body.task.executionDeadline).toBe(new Date(t.clock.now().getTime() + 24 * HOUR).toISOString());
    expect(await notificationsOf(worker.id, taskId)).toContainEqual({
      kind: 'revision_requested',
      data: {
        taskId,
        title: 'Take a photo',
        reason: 'Show the whole building',
        executionDeadline: body.task.executionDeadline,
        revisionsLeft: 2,
      },
    });
    expect((await requestRevision(t, agent, taskId)).statusCode).toBe(409); // nothing waits
    for (let i = 2; i <= 3; i++) {
      const next = await submitOk(t, worker, taskId);
      expect(next.number).toBe(i);
      expect((await requestRevision(t, agent, taskId)).statusCode).toBe(201);
    }
    await submitOk(t, worker, taskId);
    const fourth = await requestRevision(t, agent, taskId);
    expect(fourth.statusCode).toBe(409);
    expect(fourth.json().error).toMatch(/complete the task .* or open a dispute/);
    const list = (await call(t, 'GET', `/worker/tasks/${taskId}/submissions`, worker.headers)).json()
      .submissions;
    expect(list.map((s: { number: number; status: string }) => [s.number, s.status])).toEqual([
      [4, 'PENDING'],
      [3, 'REVISION_REQUESTED'],
      [2, 'REVISION_REQUESTED'],
      [1, 'REVISION_REQUESTED'],
    ]);
    await expectAgentBooks(t, agent);
  });

  it('refuses revisions with a bad reason, by another agent, or on an unknown task', async () => {
    const { agent, worker } = await pair();
    const { taskId } = await submittedTask(t, agent, worker);
    for (const reason of ['', '  ', 'x'.repeat(2001)]) {
      expect((await requestRevision(t, agent, taskId, reason)).statusCode).toBe(400);
    }
    expect((await requestRevision(t, (await pair()).agent, taskId)).statusCode).toBe(403);
    expect((await requestRevision(t, agent, 'tsk_unknown')).statusCode).toBe(404);
    expect((await agentTask(t, agent, taskId)).status).toBe('REVIEW');
  });

  it('refund and DELETE answer 409 naming the three ways on, once work was submitted', async () => {
    const { agent, worker } = await pair();
    const { taskId } = await submittedTask(t, agent, worker);
    for (const [method, url] of [
      ['POST', `/tasks/${taskId}/refund`],
      ['DELETE', `/tasks/${taskId}`],
    ] as const) {
      const res = await call(t, method, url, agent.headers);
      expect(res.statusCode).toBe(409);
      expect(res.json().error).toMatch(/complete.*revision.*dispute/);
    }
    // Also after a revision sent the task back to IN_PROGRESS.
    expect((await requestRevision(t, agent, taskId)).statusCode).toBe(201);
    expect((await call(t, 'POST', `/tasks/${taskId}/refund`, agent.headers)).statusCode).toBe(409);
    // Before any submission the spec's refund is unchanged.
    const fresh = await assignedTask(t, agent, worker);
    expect((await call(t, 'POST', `/tasks/${fresh.taskId}/refund`, agent.headers)).statusCode).toBe(200);
    await expectAgentBooks(t, agent);
  });

  it('PATCH cannot take a waiting submission out of REVIEW; the agent’s PATCH to REVIEW starts no clock', async () => {
    const { agent, worker } = await pair();
    const { taskId } = await submittedTask(t, agent, worker);
    for (const [headers, url] of [
      [agent.headers, `/tasks/${taskId}`],
      [worker.headers, `/worker/tasks/${taskId}`],
    ] as const) {
      const res = await call(t, 'PATCH', url, headers, { status: 'IN_PROGRESS' });
      expect(res.statusCode).toBe(409);
    }
    const other = await assignedTask(t, agent, worker, { reviewHours: 5 });
    const patched = await call(t, 'PATCH', `/tasks/${other.taskId}`, agent.headers, { status: 'REVIEW' });
    expect(patched.json().task).toMatchObject({ status: 'REVIEW', reviewDeadline: null });
    t.clock.advance(400 * HOUR);
    await runWindow();
    expect((await agentTask(t, agent, other.taskId)).status).toBe('REVIEW');
  });
});

describe('the review window', () => {
  it('reminds the agent once with a quarter left, then releases the payment exactly once', async () => {
    const { agent, worker } = await pair();
    const { taskId, submission } = await submittedTask(t, agent, worker, { reviewHours: 8 });
    const start = t.clock.now().getTime();
    t.clock.advance(6 * HOUR - 1000);
    await runWindow();
    expect((await taskEvents(t, taskId)).map((e) => e.type)).not.toContain('task.review_reminder');
    t.clock.advance(1000);
    await runWindow();
    await runWindow();
    const deadline = new Date(start + 8 * HOUR).toISOString();
    const reminders = (await taskEvents(t, taskId)).filter((e) => e.type === 'task.review_reminder');
    expect(reminders.map((e) => e.data)).toEqual([
      { taskId, submissionId: submission.id, reviewDeadline: deadline },
    ]);
    expect((await agentTask(t, agent, taskId)).status).toBe('REVIEW');

    t.clock.advance(2 * HOUR);
    await Promise.all([runWindow(), runWindow()]);
    await runWindow();
    const task = await agentTask(t, agent, taskId);
    expect(task).toMatchObject({
      status: 'COMPLETED',
      paymentStatus: 'RELEASED',
      submission: { status: 'ACCEPTED' },
    });
    const events = await taskEvents(t, taskId);
    const completed = events.filter((e) => e.type === 'task.completed');
    expect(completed).toHaveLength(1);
    expect(completed[0]!.data).toMatchObject({ taskId, autoReleased: true, payment: { amount: '10' } });
    expect(events.filter((e) => e.type === 'payment.sent')).toHaveLength(1);
    const kinds = (await notificationsOf(worker.id, taskId)).map((n) => n.kind);
    expect(kinds.filter((k) => k === 'auto_released')).toHaveLength(1);
    expect(kinds.filter((k) => k === 'review_reminder')).toHaveLength(1);
    const view = (await call(t, 'GET', `/worker/tasks/${taskId}`, worker.headers)).json().task;
    expect(view.agent).toMatchObject({ tasksPaid: 1, medianReviewHours: 8 });
    const books = await expectAgentBooks(t, agent);
    expect(books.transactions.filter((r) => r.task?.id === taskId && r.type === 'PAYOUT')).toHaveLength(1);
    await expectBooksBalanced(t);
  });

  it('a revision stops the clock', async () => {
    const { agent, worker } = await pair();
    const { taskId } = await submittedTask(t, agent, worker, { reviewHours: 1 });
    expect((await requestRevision(t, agent, taskId)).statusCode).toBe(201);
    t.clock.advance(10 * HOUR);
    await runWindow();
    expect((await agentTask(t, agent, taskId)).status).toBe('IN_PROGRESS');
    expect((await taskEvents(t, taskId)).map((e) => e.type)).not.toContain('task.review_reminder');
  });
});

describe('GET /worker/tasks/:id', () => {
  it('shows open tasks, offers to the worker and the worker’s own tasks; 404 otherwise', async () => {
    const { agent, worker } = await pair();
    const stranger = await createWorker(t);
    const open = await createTask(t, agent);
    const openView = await call(t, 'GET', `/worker/tasks/${open.id}`, stranger.headers);
    expect(openView.statusCode).toBe(200);
    expect(openView.json().task).not.toHaveProperty('submission');
    const { taskId } = await submittedTask(t, agent, worker);
    expect((await call(t, 'GET', `/worker/tasks/${taskId}`, stranger.headers)).statusCode).toBe(404);
    expect((await call(t, 'GET', '/worker/tasks/tsk_x', worker.headers)).statusCode).toBe(404);
    expect(
      (await call(t, 'GET', `/worker/tasks/${taskId}`, worker.headers)).json().task.submission.status,
    ).toBe('PENDING');
  });
});
