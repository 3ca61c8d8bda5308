import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import {
  agentMe,
  createAgent,
  createWorker,
  expectBooksBalanced,
  type TestAgent,
  type TestWorker,
} from '../helpers/fixtures.js';
import { agentTask, applyTo, call, offerTo, taskEvents, walkPages } from '../helpers/workerApi.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const DAY_MS = 86_400_000;

async function openTaskIds(worker: TestWorker) {
  const { items } = await walkPages<{ id: string }>(t, '/worker/tasks', worker.headers, 'tasks', 100);
  return items.map((task) => task.id);
}

async function offersOf(worker: TestWorker) {
  const res = await call(t, 'GET', '/worker/offers', worker.headers);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().tasks as { id: string; status: string; reward: string; agent: { id: string } }[];
}

const accept = (worker: TestWorker, taskId: string) =>
  call(t, 'POST', `/worker/offers/${taskId}/accept`, worker.headers);
const decline = (worker: TestWorker, taskId: string) =>
  call(t, 'POST', `/worker/offers/${taskId}/decline`, worker.headers);

describe('direct offers', () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await createAgent(t, { name: 'Offering agent', deposit: '1000' });
  });

  it('POST /tasks with assignToUserId makes an OFFERED task, escrowed, with the offered worker', async () => {
    const worker = await createWorker(t, { firstName: 'Olivia' });
    const before = await agentMe(t, agent);
    const offer = await offerTo(t, agent, worker, { reward: '10' });
    expect(offer.task).toMatchObject({
      status: 'OFFERED',
      paymentStatus: 'DEPOSITED',
      reward: '10',
      platformFee: '3',
      totalAmount: '13',
      executionDeadline: null,
      worker: { id: worker.id, firstName: 'Olivia' },
    });
    expect(offer.offeredWorker).toEqual({ id: worker.id, username: null, firstName: 'Olivia' });
    expect(offer.message).toEqual(expect.any(String));
    const after = await agentMe(t, agent);
    expect(Number(before.balance) - Number(after.balance)).toBeCloseTo(13, 9);
    expect(Number(after.lockedByTasks) - Number(before.lockedByTasks)).toBeCloseTo(13, 9);
    expect((await agentTask(t, agent, offer.task.id)).applications).toEqual([
      expect.objectContaining({ status: 'OFFERED', user: expect.objectContaining({ id: worker.id }) }),
    ]);
  });

  it('an offer to an unknown worker is 404, to a worker without a wallet 409, and costs nothing', async () => {
    const noWallet = await createWorker(t, { wallet: false });
    const before = await agentMe(t, agent);
    const unknown = await call(t, 'POST', '/tasks', agent.headers, {
      title: 'x',
      description: 'y',
      reward: '1',
      assignToUserId: `wrk_${'0'.repeat(40)}`,
    });
    expect(unknown.statusCode).toBe(404);
    const walletless = await call(t, 'POST', '/tasks', agent.headers, {
      title: 'x',
      description: 'y',
      reward: '1',
      assignToUserId: noWallet.id,
    });
    expect(walletless.statusCode, walletless.body).toBe(409);
    expect(await agentMe(t, agent)).toEqual(before);
  });

  it('GET /worker/offers shows the offer to that worker only, and not among open tasks', async () => {
    const worker = await createWorker(t);
    const other = await createWorker(t);
    const offer = await offerTo(t, agent, worker, { reward: '2.5', title: 'For you' });
    const mine = await offersOf(worker);
    expect(mine).toEqual([
      expect.objectContaining({
        id: offer.task.id,
        title: 'For you',
        status: 'OFFERED',
        reward: '2.5',
        // Issue 25 adds the agent's reputation to every worker task view.
        agent: expect.objectContaining({ id: agent.id, name: 'Offering agent' }),
      }),
    ]);
    expect(await offersOf(other)).toEqual([]);
    expect(await openTaskIds(other)).not.toContain(offer.task.id);
  });

  it('accept: OFFERED -> ASSIGNED with executionDeadline, a chat, ACCEPTED application, offer.accepted', async () => {
    const worker = await createWorker(t, { firstName: 'Ada' });
    const offer = await offerTo(t, agent, worker, { executionDeadlineDays: 3 });
    t.clock.advance(3600_000);
    const acceptedAt = t.clock.now();
    const res = await accept(worker, offer.task.id);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.task).toMatchObject({
      id: offer.task.id,
      status: 'ASSIGNED',
      executionDeadlineDays: 3,
      executionDeadline: new Date(acceptedAt.getTime() + 3 * DAY_MS).toISOString(),
      agent: { id: agent.id },
    });
    expect(body.chat).toEqual({ id: expect.stringMatching(/^cht_[0-9a-z]{40}$/) });

    const chat = await t.ctx.db
      .selectFrom('chats')
      .selectAll()
      .where('task_id', '=', offer.task.id)
      .executeTakeFirst();
    expect(chat).toMatchObject({ id: body.chat.id, worker_id: worker.id });

    const seen = await agentTask(t, agent, offer.task.id);
    expect(seen.status).toBe('ASSIGNED');
    expect(seen.executionDeadline).toBe(body.task.executionDeadline);
    expect(seen.worker).toMatchObject({ id: worker.id });
    expect(seen.applications).toEqual([expect.objectContaining({ status: 'ACCEPTED' })]);

    const events = await taskEvents(t, offer.task.id);
    expect(events.map((e) => e.type)).toEqual(['task.funded', 'offer.accepted']);
    expect(events[1]).toEqual({
      type: 'offer.accepted',
      agentId: agent.id,
      data: {
        taskId: offer.task.id,
        applicationId: seen.applications[0]!.id,
        worker: { id: worker.id, name: 'Ada' },
      },
    });

    expect(await offersOf(worker)).toEqual([]);
    const assignments = (await call(t, 'GET', '/worker/assignments', worker.headers)).json().tasks;
    expect(assignments.map((task: { id: string }) => task.id)).toEqual([offer.task.id]);
    await expectBooksBalanced(t);
  });

  it('accept with an absolute deadline sets executionDeadline to it', async () => {
    const worker = await createWorker(t);
    const deadline = new Date(t.clock.now().getTime() + 10 * DAY_MS).toISOString();
    const offer = await offerTo(t, agent, worker, { deadline });
    const res = await accept(worker, offer.task.id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().task.executionDeadline).toBe(deadline);
  });

  it('accept with no deadline given: 7 days', async () => {
    const worker = await createWorker(t);
    const offer = await offerTo(t, agent, worker);
    const res = await accept(worker, offer.task.id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().task.executionDeadline).toBe(
      new Date(t.clock.now().getTime() + 7 * DAY_MS).toISOString(),
    );
  });

  it('decline: task FUNDED, application DECLINED, offer.declined; then others can apply and be hired', async () => {
    const worker = await createWorker(t, { firstName: 'Dan' });
    const other = await createWorker(t);
    const offer = await offerTo(t, agent, worker);
    const balanceBefore = (await agentMe(t, agent)).balance;

    // Events of one millisecond have no defined order (ids are time + random): move time on.
    t.clock.advance(1000);
    const res = await decline(worker, offer.task.id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().task).toMatchObject({ id: offer.task.id, status: 'FUNDED', executionDeadline: null });

    const seen = await agentTask(t, agent, offer.task.id);
    expect(seen.status).toBe('FUNDED');
    expect(seen.worker).toBeNull();
    expect(seen.applications).toEqual([
      expect.objectContaining({ status: 'DECLINED', user: expect.objectContaining({ id: worker.id }) }),
    ]);
    // The money stays escrowed for the now open task.
    expect((await agentMe(t, agent)).balance).toBe(balanceBefore);

    const events = await taskEvents(t, offer.task.id);
    expect(events.map((e) => e.type)).toEqual(['task.funded', 'offer.declined']);
    expect(events[1]!.data).toEqual({
      taskId: offer.task.id,
      applicationId: seen.applications[0]!.id,
      worker: { id: worker.id, name: 'Dan' },
    });
    expect(await offersOf(worker)).toEqual([]);

    expect(await openTaskIds(other)).toContain(offer.task.id);
    // Declining is "not for me": the task does not come back into the decliner's open tasks.
    expect(await openTaskIds(worker)).not.toContain(offer.task.id);
    const application = await applyTo(t, other, offer.task.id);
    const hired = await call(t, 'PATCH', `/applications/${application.id}`, agent.headers, {
      status: 'ACCEPTED',
    });
    expect(hired.statusCode, hired.body).toBe(200);
    expect((await agentTask(t, agent, offer.task.id)).status).toBe('ASSIGNED');
    // A declined offer cannot be accepted afterwards.
    const late = await accept(worker, offer.task.id);
    expect([404, 409]).toContain(late.statusCode);
    await expectBooksBalanced(t);
  });

  it('another worker cannot accept or decline someone else’s offer (404)', async () => {
    const worker = await createWorker(t);
    const intruder = await createWorker(t);
    const offer = await offerTo(t, agent, worker);
    for (const res of [await accept(intruder, offer.task.id), await decline(intruder, offer.task.id)]) {
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'Offer not found' });
    }
    const seen = await agentTask(t, agent, offer.task.id);
    expect(seen.status).toBe('OFFERED');
    expect(seen.applications).toEqual([expect.objectContaining({ status: 'OFFERED' })]);
    expect((await taskEvents(t, offer.task.id)).map((e) => e.type)).toEqual(['task.funded']);
  });

  it('unknown task ids are 404, and a FUNDED task is not an offer', async () => {
    const worker = await createWorker(t);
    for (const id of [`tsk_${'0'.repeat(40)}`, 'whatever']) {
      expect((await accept(worker, id)).statusCode).toBe(404);
      expect((await decline(worker, id)).statusCode).toBe(404);
    }
    const open = await call(t, 'POST', '/tasks', agent.headers, {
      title: 'a',
      description: 'b',
      reward: '1',
    });
    expect((await accept(worker, open.json().task.id)).statusCode).toBe(404);
  });

  it('accepting twice is 409, and so is declining after accepting', async () => {
    const worker = await createWorker(t);
    const offer = await offerTo(t, agent, worker);
    expect((await accept(worker, offer.task.id)).statusCode).toBe(200);
    const again = await accept(worker, offer.task.id);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ error: expect.any(String), currentStatus: 'ASSIGNED' });
    const declined = await decline(worker, offer.task.id);
    expect(declined.statusCode).toBe(409);
    expect((await agentTask(t, agent, offer.task.id)).status).toBe('ASSIGNED');
    const chats = await t.ctx.db
      .selectFrom('chats')
      .select('id')
      .where('task_id', '=', offer.task.id)
      .execute();
    expect(chats).toHaveLength(1);
    expect((await taskEvents(t, offer.task.id)).filter((e) => e.type === 'offer.accepted')).toHaveLength(1);
  });

  it('accepting or declining an offer the agent cancelled is 409', async () => {
    const worker = await createWorker(t);
    const offer = await offerTo(t, agent, worker);
    const balanceBefore = (await agentMe(t, agent)).balance;
    const cancelled = await call(t, 'DELETE', `/tasks/${offer.task.id}`, agent.headers);
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    expect(Number((await agentMe(t, agent)).balance) - Number(balanceBefore)).toBeCloseTo(6.5, 9);
    expect(await offersOf(worker)).toEqual([]);

    const res = await accept(worker, offer.task.id);
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json()).toMatchObject({ error: expect.any(String), currentStatus: 'CANCELLED' });
    expect((await decline(worker, offer.task.id)).statusCode).toBe(409);
    const seen = await agentTask(t, agent, offer.task.id);
    expect(seen.status).toBe('CANCELLED');
    const chats = await t.ctx.db
      .selectFrom('chats')
      .select('id')
      .where('task_id', '=', offer.task.id)
      .execute();
    expect(chats).toEqual([]);
    await expectBooksBalanced(t);
  });

  it('concurrent accept and cancel: exactly one wins', async () => {
    const worker = await createWorker(t);
    const offer = await offerTo(t, agent, worker);
    const [accepted, cancelled] = await Promise.all([
      accept(worker, offer.task.id),
      call(t, 'DELETE', `/tasks/${offer.task.id}`, agent.headers),
    ]);
    expect([accepted.statusCode, cancelled.statusCode].sort()).toEqual([200, 409]);
    const status = (await agentTask(t, agent, offer.task.id)).status;
    expect(status).toBe(accepted.statusCode === 200 ? 'ASSIGNED' : 'CANCELLED');
    await expectBooksBalanced(t);
  });
});

describe('direct offers are bounded', () => {
  it('an agent may send one worker at most 5 offers in 24 hours, withdrawn or not; the 6th is 429 and changes nothing', async () => {
    const agent = await createAgent(t, { name: 'Pushy agent', deposit: '1000' });
    const worker = await createWorker(t);
    const other = await createWorker(t);
    const firstAt = t.clock.now().getTime();
    for (let i = 0; i < 5; i++) {
      const offer = await offerTo(t, agent, worker, { reward: '1' });
      // Send and withdraw: each offer and each withdrawal notifies the worker.
      expect((await call(t, 'DELETE', `/tasks/${offer.task.id}`, agent.headers)).statusCode).toBe(200);
      t.clock.advance(60_000);
    }
    const before = await agentMe(t, agent);
    const offersBefore = await offersOf(worker);
    const refused = await call(t, 'POST', '/tasks', agent.headers, {
      title: 'Again',
      description: 'Please',
      reward: '1',
      assignToUserId: worker.id,
    });
    expect(refused.statusCode, refused.body).toBe(429);
    const retryAfter = Math.ceil((firstAt + DAY_MS - t.clock.now().getTime()) / 1000);
    expect(refused.headers['retry-after']).toBe(String(retryAfter));
    expect(refused.json()).toEqual({
      error: `You sent this worker 5 direct offers in the last 24 hours, the most allowed (each one notifies them); retry in ${retryAfter} s, or post the task without assignToUserId so anyone can apply`,
      retryAfter,
    });
    expect(await agentMe(t, agent)).toEqual(before);
    expect(await offersOf(worker)).toEqual(offersBefore);

    // Other workers, and tasks open to everyone, are not affected.
    await offerTo(t, agent, other, { reward: '1' });
    const open = await call(t, 'POST', '/tasks', agent.headers, {
      title: 'Open',
      description: 'd',
      reward: '1',
    });
    expect(open.statusCode, open.body).toBe(201);

    // Once the first offer is 24 hours old, one more may go.
    t.clock.advance(retryAfter * 1000);
    await offerTo(t, agent, worker, { reward: '1' });
    const again = await call(t, 'POST', '/tasks', agent.headers, {
      title: 'Again',
      description: 'Please',
      reward: '1',
      assignToUserId: worker.id,
    });
    expect(again.statusCode, again.body).toBe(429);
    await expectBooksBalanced(t);
  });
});
