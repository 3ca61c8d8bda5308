import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expireOverdueTasks } from '../../src/domain/tasks/expiry.js';
import { runReviewWindow } from '../../src/domain/trust/reviewWindow.js';
import { eventsOfType, getTask, unknownId } from '../helpers/agentApi.js';
import { createTestApp, type TestApp, workerAuth } from '../helpers/app.js';
import { dispute, disputedTask, disputeOk, resolve, statement } from '../helpers/disputeApi.js';
import {
  assignedTask,
  createAgent,
  createWorker,
  expectBooksBalanced,
  type TestAgent,
  type TestWorker,
} from '../helpers/fixtures.js';
import { requestRevision, submit, submittedTask, uploadFile } from '../helpers/submissionApi.js';
import { call } from '../helpers/workerApi.js';

let t: TestApp;
let agent: TestAgent;
let worker: TestWorker;
beforeAll(async () => {
  t = await createTestApp();
  agent = await createAgent(t, { name: 'Disputer', deposit: '500' });
  worker = await createWorker(t);
});
afterAll(() => t.close());
// A new minute per test: the dispute routes count against the per-key chat limit (30 a minute).
beforeEach(() => t.clock.advance(61_000));

async function notificationsOf(taskId: string) {
  const rows = await t.ctx.db
    .selectFrom('notifications')
    .select(['kind', 'data_json'])
    .where('task_id', '=', taskId)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ kind: r.kind, data: JSON.parse(r.data_json) }));
}

describe('opening a dispute', () => {
  it('the owner disputes a waiting submission: the clock stops, the submission is DISPUTED, both are told', async () => {
    const { taskId, submission } = await submittedTask(t, agent, worker);
    expect((await getTask(t, agent, taskId)).reviewDeadline).not.toBeNull();
    const res = await dispute(t, agent, taskId, '  The photo shows the wrong building  ');
    expect(res.statusCode, res.body).toBe(201);
    const opened = res.json().dispute;
    expect(opened).toEqual({
      id: expect.stringMatching(/^dsp_/),
      status: 'OPEN',
      openedBy: 'AGENT',
      reason: 'The photo shows the wrong building',
      statements: [],
      resolution: null,
    });
    const task = await getTask(t, agent, taskId);
    expect(task).toMatchObject({ status: 'REVIEW', reviewDeadline: null, paymentStatus: 'DEPOSITED' });
    expect(task.dispute).toEqual(opened);
    expect(task.submission).toMatchObject({ id: submission.id, status: 'DISPUTED' });
    const seen = await call(t, 'GET', `/worker/tasks/${taskId}`, worker.headers);
    expect(seen.json().task.dispute).toEqual(opened);
    expect(await eventsOfType(t, taskId, 'dispute.opened')).toEqual([
      {
        taskId,
        dispute: {
          id: opened.id,
          status: 'OPEN',
          openedBy: 'AGENT',
          reason: opened.reason,
          createdAt: t.clock.now().toISOString(),
          resolution: null,
        },
      },
    ]);
    expect((await notificationsOf(taskId)).filter((n) => n.kind === 'dispute_opened')).toEqual([
      {
        kind: 'dispute_opened',
        data: { taskId, title: 'Take a photo', openedBy: 'AGENT', reason: opened.reason },
      },
    ]);
    await expectBooksBalanced(t);
  });

  it('a task without a dispute shows dispute: null once work was submitted', async () => {
    const { taskId } = await submittedTask(t, agent, worker);
    expect((await getTask(t, agent, taskId)).dispute).toBeNull();
    expect((await call(t, 'GET', `/worker/tasks/${taskId}`, worker.headers)).json().task.dispute).toBeNull();
  });

  it('after a revision request either side may dispute; the task stays IN_PROGRESS and the deadline stops', async () => {
    for (const party of ['worker', 'agent'] as const) {
      const { taskId, submission } = await submittedTask(t, agent, worker);
      const revised = await requestRevision(t, agent, taskId, 'Take it from the north side');
      expect(revised.statusCode, revised.body).toBe(201);
      const opened = await disputeOk(t, party === 'worker' ? worker : agent, taskId, 'Unfair request');
      expect(opened).toMatchObject({ status: 'OPEN', openedBy: party === 'worker' ? 'WORKER' : 'AGENT' });
      const task = await getTask(t, agent, taskId);
      expect(task).toMatchObject({ status: 'IN_PROGRESS', reviewDeadline: null });
      expect(task.submission).toMatchObject({ id: submission.id, status: 'DISPUTED' });
      // The execution deadline passes: nothing expires while the dispute holds the task.
      t.clock.advance(30 * 86_400_000);
      await expireOverdueTasks(t.ctx);
      await runReviewWindow(t.ctx, () => {});
      expect(await getTask(t, agent, taskId)).toMatchObject({
        status: 'IN_PROGRESS',
        dispute: { status: 'OPEN' },
      });
      // Mini App init data is good for 24 hours of the clock: the worker signs in afresh.
      Object.assign(worker.headers, workerAuth(t, worker.telegramId));
    }
  });

  it('at most one dispute per task: a second one from either side is 409', async () => {
    const { taskId, dispute: first } = await disputedTask(t, agent, worker);
    const again = await dispute(t, agent, taskId);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ disputeId: first.id });
    expect((await dispute(t, worker, taskId)).statusCode).toBe(409);
  });

  it('refuses bad reasons with 400 and changes nothing', async () => {
    const { taskId } = await submittedTask(t, agent, worker);
    for (const reason of ['', '   \u200b ', 'x'.repeat(2001)]) {
      const res = await dispute(t, agent, taskId, reason);
      expect(res.statusCode, JSON.stringify(reason)).toBe(400);
      expect(res.json().details[0].path).toMatch(/reason/);
    }
    const missing = await call(t, 'POST', `/tasks/${taskId}/dispute`, agent.headers, {});
    expect(missing.statusCode).toBe(400);
    expect((await getTask(t, agent, taskId)).dispute).toBeNull();
  });

  it('the wrong party: another agent 403, another worker 403, unknown task 404, no credentials 401', async () => {
    const { taskId } = await submittedTask(t, agent, worker);
    const stranger = await createAgent(t);
    const otherWorker = await createWorker(t);
    expect((await dispute(t, stranger, taskId)).statusCode).toBe(403);
    expect((await dispute(t, otherWorker, taskId)).statusCode).toBe(403);
    expect((await dispute(t, agent, unknownId('tsk'))).statusCode).toBe(404);
    expect((await dispute(t, agent, 'nonsense')).statusCode).toBe(404);
    const anonymous = await call(t, 'POST', `/tasks/${taskId}/dispute`, {}, { reason: 'x' });
    expect(anonymous.statusCode).toBe(401);
    expect((await getTask(t, agent, taskId)).dispute).toBeNull();
  });

  it('the wrong state: no submission yet, the worker while its work waits, a settled task', async () => {
    const { taskId } = await assignedTask(t, agent, worker);
    const early = await dispute(t, agent, taskId);
    expect(early.statusCode).toBe(409);
    expect(early.json()).toMatchObject({ currentStatus: 'ASSIGNED', submissionStatus: null });
    expect((await dispute(t, worker, taskId)).statusCode).toBe(409);
    expect((await submit(t, worker, taskId)).statusCode).toBe(201);
    const waiting = await dispute(t, worker, taskId);
    expect(waiting.statusCode).toBe(409);
    expect(waiting.json().error).toMatch(/after the agent asked for a revision/);
    expect((await call(t, 'POST', `/tasks/${taskId}/complete`, agent.headers)).statusCode).toBe(200);
    const settled = await dispute(t, agent, taskId);
    expect(settled.statusCode).toBe(409);
    expect(settled.json().error).toMatch(/settled/);
  });

  it('while open, nothing else moves the task: complete, refund, status changes, a new submission', async () => {
    const { taskId, dispute: opened } = await disputedTask(t, agent, worker);
    const attempts = [
      await call(t, 'POST', `/tasks/${taskId}/complete`, agent.headers),
      await call(t, 'POST', `/tasks/${taskId}/refund`, agent.headers, {}),
      await call(t, 'PATCH', `/tasks/${taskId}`, agent.headers, { status: 'IN_PROGRESS' }),
      await call(t, 'PATCH', `/worker/tasks/${taskId}`, worker.headers, { status: 'IN_PROGRESS' }),
    ];
    for (const res of attempts) {
      expect(res.statusCode, res.body).toBe(409);
      expect(res.json()).toMatchObject({
        disputeId: opened.id,
        error: expect.stringMatching(/dispute is open/),
      });
    }
    expect((await call(t, 'DELETE', `/tasks/${taskId}`, agent.headers)).statusCode).toBe(409);
    expect((await submit(t, worker, taskId)).statusCode).toBe(409);
    expect(await getTask(t, agent, taskId)).toMatchObject({ status: 'REVIEW', paymentStatus: 'DEPOSITED' });
    await expectBooksBalanced(t);
  });

  it('honours Idempotency-Key: a retried open replays the first answer', async () => {
    const { taskId } = await submittedTask(t, agent, worker);
    const headers = { ...agent.headers, 'idempotency-key': `open-${taskId}` };
    const first = await call(t, 'POST', `/tasks/${taskId}/dispute`, headers, { reason: 'Wrong' });
    const second = await call(t, 'POST', `/tasks/${taskId}/dispute`, headers, { reason: 'Wrong' });
    expect(first.statusCode).toBe(201);
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.json()).toEqual(first.json());
  });
});

describe('statements', () => {
  it('both sides add text and their own files; each sees the other’s', async () => {
    const { taskId } = await disputedTask(t, agent, worker);
    const photo = await uploadFile(t, worker, 'proof.jpg');
    const mine = await statement(t, worker, taskId, {
      text: 'It is the right building',
      attachments: [photo],
    });
    expect(mine.statusCode, mine.body).toBe(201);
    expect(mine.json().statement).toEqual({
      by: 'WORKER',
      text: 'It is the right building',
      attachments: [{ fileUrl: photo, name: 'proof.jpg', contentType: 'image/jpeg', size: 17 }],
      createdAt: t.clock.now().toISOString(),
    });
    t.clock.advance(1000);
    const theirs = await statement(t, agent, taskId, { text: 'The sign says otherwise' });
    expect(theirs.statusCode, theirs.body).toBe(201);
    const statements = theirs.json().dispute.statements;
    expect(statements.map((s: { by: string }) => s.by)).toEqual(['WORKER', 'AGENT']);
    expect((await getTask(t, agent, taskId)).dispute.statements).toEqual(statements);
  });

  it('refuses someone else’s file, too many files, blank or long text', async () => {
    const { taskId } = await disputedTask(t, agent, worker);
    const agentsFile = await uploadFile(t, agent, 'a.jpg');
    const bad = await statement(t, worker, taskId, { text: 'see', attachments: [agentsFile] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details[0]).toMatchObject({ path: 'attachments/0' });
    const many = Array.from({ length: 11 }, () => agentsFile);
    expect((await statement(t, agent, taskId, { text: 'x', attachments: many })).statusCode).toBe(400);
    expect((await statement(t, agent, taskId, { text: ' \u200b ' })).statusCode).toBe(400);
    expect((await statement(t, agent, taskId, { text: 'x'.repeat(4001) })).statusCode).toBe(400);
    expect((await getTask(t, agent, taskId)).dispute.statements).toEqual([]);
  });

  it('at most 20 per side; the other side still may; none after the resolution or without a dispute', async () => {
    const { taskId, dispute: opened } = await disputedTask(t, agent, worker);
    const results = await Promise.all(
      Array.from({ length: 22 }, (_, i) => statement(t, agent, taskId, { text: `point ${i}` })),
    );
    expect(results.filter((r) => r.statusCode === 201)).toHaveLength(20);
    expect(results.filter((r) => r.statusCode === 409)).toHaveLength(2);
    expect((await statement(t, worker, taskId)).statusCode).toBe(201);
    expect((await resolve(t, opened.id, '0')).statusCode).toBe(200);
    const late = await statement(t, worker, taskId);
    expect(late.statusCode).toBe(409);
    expect(late.json().error).toMatch(/resolved/);
    const { taskId: plain } = await submittedTask(t, agent, worker);
    const none = await statement(t, agent, plain);
    expect(none.statusCode).toBe(409);
    expect(none.json().error).toMatch(/open one first/);
  });

  it('the wrong party cannot add statements', async () => {
    const { taskId } = await disputedTask(t, agent, worker);
    expect((await statement(t, await createAgent(t), taskId)).statusCode).toBe(403);
    expect((await statement(t, await createWorker(t), taskId)).statusCode).toBe(403);
  });
});

describe('the operators’ queue', () => {
  it('lists open disputes oldest first with amounts and age, pages with a limit, and shows one in full', async () => {
    const fresh = await createTestApp();
    try {
      const a = await createAgent(fresh, { name: 'Queue agent', deposit: '100' });
      const w = await createWorker(fresh, { firstName: 'Wanda', username: 'wanda' });
      const first = await disputedTask(fresh, a, w, { reward: '10' });
      fresh.clock.advance(60_000);
      const second = await disputedTask(fresh, a, w, { reward: '2' });
      fresh.clock.advance(60_000);
      const page1 = await call(fresh, 'GET', '/admin/disputes?limit=1', fresh.admin);
      expect(page1.statusCode, page1.body).toBe(200);
      expect(page1.json()).toMatchObject({ hasMore: true, nextCursor: expect.any(String) });
      expect(page1.json().disputes).toEqual([
        {
          id: first.dispute.id,
          status: 'OPEN',
          openedBy: 'AGENT',
          reason: 'Not what I asked for',
          createdAt: expect.any(String),
          ageSeconds: 120,
          task: {
            id: first.taskId,
            title: 'Take a photo',
            status: 'REVIEW',
            currency: 'TON',
            reward: '10',
            platformFee: '3',
            totalAmount: '13',
          },
          agent: { id: a.id, name: 'Queue agent' },
          worker: { id: w.id, firstName: 'Wanda', username: 'wanda' },
          resolution: null,
        },
      ]);
      const page2 = await call(
        fresh,
        'GET',
        `/admin/disputes?limit=1&cursor=${encodeURIComponent(page1.json().nextCursor)}`,
        fresh.admin,
      );
      expect(page2.json().disputes.map((d: { id: string }) => d.id)).toEqual([second.dispute.id]);
      expect(page2.json().hasMore).toBe(false);

      await call(fresh, 'POST', `/worker/chat/${first.taskId}/messages`, w.headers, { content: 'Hello' });
      await statement(fresh, w, first.taskId, { text: 'My side' });
      const detail = await call(fresh, 'GET', `/admin/disputes/${first.dispute.id}`, fresh.admin);
      expect(detail.statusCode, detail.body).toBe(200);
      const body = detail.json();
      expect(body.dispute).toMatchObject({
        id: first.dispute.id,
        statements: [{ by: 'WORKER', text: 'My side' }],
      });
      expect(body.task).toMatchObject({
        id: first.taskId,
        status: 'REVIEW',
        submission: { status: 'DISPUTED' },
      });
      expect(body.submissions).toEqual([
        expect.objectContaining({ id: first.submission.id, status: 'DISPUTED' }),
      ]);
      expect(body.messages.map((m: { content: string }) => m.content)).toEqual(['Hello']);
      expect(body).toMatchObject({
        moreMessages: false,
        agent: { id: a.id },
        worker: { id: w.id, walletAddress: w.wallet },
      });

      expect((await resolve(fresh, first.dispute.id, '10')).statusCode).toBe(200);
      const open = await call(fresh, 'GET', '/admin/disputes', fresh.admin);
      expect(open.json().disputes.map((d: { id: string }) => d.id)).toEqual([second.dispute.id]);
      const resolved = await call(fresh, 'GET', '/admin/disputes?status=RESOLVED', fresh.admin);
      expect(resolved.json().disputes).toEqual([
        expect.objectContaining({
          id: first.dispute.id,
          resolution: expect.objectContaining({ workerAmount: '10' }),
        }),
      ]);
    } finally {
      await fresh.close();
    }
  });

  it('needs the admin token, and answers 404 for unknown disputes and 400 for bad queries', async () => {
    expect((await call(t, 'GET', '/admin/disputes')).statusCode).toBe(401);
    expect((await call(t, 'GET', '/admin/disputes', agent.headers)).statusCode).toBe(401);
    expect((await call(t, 'GET', `/admin/disputes/${unknownId('dsp')}`, t.admin)).statusCode).toBe(404);
    expect(
      (
        await call(t, 'POST', `/admin/disputes/${unknownId('dsp')}/resolve`, t.admin, {
          workerAmount: '1',
          note: 'x',
        })
      ).statusCode,
    ).toBe(404);
    expect((await call(t, 'GET', '/admin/disputes?status=WHATEVER', t.admin)).statusCode).toBe(400);
    expect((await call(t, 'GET', '/admin/disputes?limit=1000', t.admin)).statusCode).toBe(400);
    expect((await call(t, 'GET', '/admin/disputes?cursor=garbage', t.admin)).statusCode).toBe(400);
    const { dispute: opened } = await disputedTask(t, agent, worker);
    const noToken = await call(t, 'POST', `/admin/disputes/${opened.id}/resolve`, agent.headers, {
      workerAmount: '1',
      note: 'x',
    });
    expect(noToken.statusCode).toBe(401);
  });
});

describe('resolving', () => {
  it('validates the amount and the note before anything changes', async () => {
    const { taskId, dispute: opened } = await disputedTask(t, agent, worker, { reward: '10' });
    for (const workerAmount of ['-1', '10.000000001', '11', 'abc', '1e3', '0.0000000001', 1.5e300]) {
      const res = await resolve(t, opened.id, workerAmount as string);
      expect(res.statusCode, `${workerAmount}: ${res.body}`).toBe(400);
    }
    expect((await resolve(t, opened.id, '1', '   ')).statusCode).toBe(400);
    expect((await resolve(t, opened.id, '1', 'x'.repeat(2001))).statusCode).toBe(400);
    expect(
      (await call(t, 'POST', `/admin/disputes/${opened.id}/resolve`, t.admin, { workerAmount: '1' }))
        .statusCode,
    ).toBe(400);
    expect(await getTask(t, agent, taskId)).toMatchObject({
      status: 'REVIEW',
      dispute: { status: 'OPEN' },
    });
    await expectBooksBalanced(t);
  });

  it('refuses a dust payout: nothing, or at least 0.01 TON to the worker (issue #35)', async () => {
    const { taskId, dispute: opened } = await disputedTask(t, agent, worker, { reward: '10' });
    const before = (await call(t, 'GET', '/agents/me', agent.headers)).json().agent;
    for (const dust of ['0.000000001', '0.009999999', 0.005]) {
      const res = await resolve(t, opened.id, dust);
      expect(res.statusCode, `${dust}: ${res.body}`).toBe(400);
      expect(res.json()).toEqual({
        error: 'Validation failed',
        details: [
          {
            path: 'workerAmount',
            // \s: the amount and its currency are joined by a no-break space.
            message: expect.stringMatching(
              /^must be 0 or at least 0\.01\sTON: a smaller payout costs more in gas/,
            ),
          },
        ],
      });
    }
    // Nothing changed: the dispute is open, the money still locked.
    expect(await getTask(t, agent, taskId)).toMatchObject({ status: 'REVIEW', dispute: { status: 'OPEN' } });
    expect((await call(t, 'GET', '/agents/me', agent.headers)).json().agent).toEqual(before);
    // The smallest payout itself is a split like any other.
    const res = await resolve(t, opened.id, '0.01');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().dispute.resolution).toMatchObject({ workerAmount: '0.01', currency: 'TON' });
    await expectBooksBalanced(t);
  });

  it('the full reward completes the task (RELEASED), as an approval would', async () => {
    const { taskId, dispute: opened } = await disputedTask(t, agent, worker, { reward: '10' });
    const res = await resolve(t, opened.id, '10', 'The work is as asked');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      task: { id: taskId, status: 'COMPLETED', paymentStatus: 'RELEASED' },
      payout: {
        amount: '10',
        toAddress: worker.wallet,
        status: 'confirmed',
        txHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
      fee: { amount: '3', status: 'confirmed' },
      refund: null,
      dispute: {
        status: 'RESOLVED',
        resolution: {
          workerAmount: '10',
          platformFee: '3',
          agentAmount: '0',
          note: 'The work is as asked',
          currency: 'TON',
        },
      },
    });
    expect(await eventsOfType(t, taskId, 'task.completed')).toEqual([
      { taskId, payment: { amount: '10', toAddress: worker.wallet, currency: 'TON' }, disputeId: opened.id },
    ]);
    expect(await eventsOfType(t, taskId, 'dispute.resolved')).toHaveLength(1);
    expect(await eventsOfType(t, taskId, 'refund.processed')).toHaveLength(0);
    expect(await eventsOfType(t, taskId, 'payment.sent')).toEqual([
      expect.objectContaining({ payment: expect.objectContaining({ amount: '10' }) }),
    ]);
    await expectBooksBalanced(t);
  });

  it('zero cancels the task (REFUNDED): the whole total returns to the agent; the worker is told', async () => {
    const { taskId, dispute: opened } = await disputedTask(t, agent, worker, { reward: '10' });
    const res = await resolve(t, opened.id, 0, 'Nothing delivered');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      task: { status: 'CANCELLED', paymentStatus: 'REFUNDED' },
      payout: null,
      fee: null,
      refund: { amount: '13', destination: 'agent_balance' },
    });
    expect(await eventsOfType(t, taskId, 'refund.processed')).toEqual([
      {
        taskId,
        refund: { amount: '13', destination: 'agent_balance', reason: 'Nothing delivered', currency: 'TON' },
        disputeId: opened.id,
      },
    ]);
    expect(await eventsOfType(t, taskId, 'task.completed')).toHaveLength(0);
    expect((await notificationsOf(taskId)).filter((n) => n.kind === 'dispute_resolved')).toEqual([
      {
        kind: 'dispute_resolved',
        data: {
          taskId,
          title: 'Take a photo',
          workerAmount: '0',
          currency: 'TON',
          note: 'Nothing delivered',
        },
      },
    ]);
    // The chat closes as after a refund.
    const post = await call(t, 'POST', `/chat/${taskId}/messages`, agent.headers, { content: 'hi' });
    expect(post.statusCode).toBe(409);
    await expectBooksBalanced(t);
  });

  it('a split completes the task with payment.amount the partial amount', async () => {
    const { taskId, dispute: opened } = await disputedTask(t, agent, worker, { reward: '10' });
    const res = await resolve(t, opened.id, '4');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      task: { status: 'COMPLETED', paymentStatus: 'RELEASED' },
      payout: { amount: '4' },
      fee: { amount: '1.2' },
      refund: { amount: '7.8' },
    });
    expect(await eventsOfType(t, taskId, 'task.completed')).toEqual([
      { taskId, payment: { amount: '4', toAddress: worker.wallet, currency: 'TON' }, disputeId: opened.id },
    ]);
    expect(await eventsOfType(t, taskId, 'refund.processed')).toHaveLength(0);
    const seen = await getTask(t, agent, taskId);
    expect(seen.dispute.resolution).toMatchObject({
      workerAmount: '4',
      platformFee: '1.2',
      agentAmount: '7.8',
    });
    await expectBooksBalanced(t);
  });

  it('disputesLost on the worker’s view of the agent counts resolutions that paid the worker anything', async () => {
    const judged = await createAgent(t, { name: 'Judged', deposit: '100' });
    const lost = async (taskId: string) =>
      (await call(t, 'GET', `/worker/tasks/${taskId}`, worker.headers)).json().task.agent.disputesLost;
    const won = await disputedTask(t, judged, worker, { reward: '1' });
    expect(await lost(won.taskId)).toBe(0);
    expect((await resolve(t, won.dispute.id, '0')).statusCode).toBe(200);
    const partly = await disputedTask(t, judged, worker, { reward: '1' });
    expect(await lost(partly.taskId)).toBe(0);
    // The smallest payout (0.01 TON) is enough to count as the agent's loss.
    expect((await resolve(t, partly.dispute.id, '0.01')).statusCode).toBe(200);
    expect(await lost(partly.taskId)).toBe(1);
  });

  it('resolving twice is 409 and changes nothing; a retried request with its key replays', async () => {
    const { dispute: opened } = await disputedTask(t, agent, worker, { reward: '10' });
    const headers = { ...t.admin, 'idempotency-key': `resolve-${opened.id}` };
    const payload = { workerAmount: '5', note: 'Half' };
    const first = await call(t, 'POST', `/admin/disputes/${opened.id}/resolve`, headers, payload);
    expect(first.statusCode).toBe(200);
    const replay = await call(t, 'POST', `/admin/disputes/${opened.id}/resolve`, headers, payload);
    expect(replay.statusCode).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    const again = await resolve(t, opened.id, '10');
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ disputeId: opened.id, resolution: { workerAmount: '5' } });
    await expectBooksBalanced(t);
  });
});
