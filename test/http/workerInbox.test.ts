import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendDueTransfers } from '../../src/domain/money/payouts.js';
import { completedTask } from '../helpers/agentApi.js';
import type { TestApp } from '../helpers/app.js';
import { FaultyChain } from '../helpers/faultyChain.js';
import {
  assignedTask,
  createAgent,
  createWorker,
  type TestAgent,
  type TestWorker,
} from '../helpers/fixtures.js';
import { createUnthrottledTestApp } from '../helpers/moneyChecks.js';
import { call } from '../helpers/workerApi.js';

let t: TestApp;
let agent: TestAgent;
let chain: FaultyChain;
beforeAll(async () => {
  // Unthrottled: the cap test sends more messages than the chat rate limit allows a minute.
  t = await createUnthrottledTestApp({
    wrapChain: (inner) => {
      chain = new FaultyChain(inner);
      return chain;
    },
  });
  agent = await createAgent(t, { deposit: '500' });
});
afterAll(() => t.close());

async function agentSays(taskId: string, content: string): Promise<string> {
  const res = await call(t, 'POST', `/chat/${taskId}/messages`, agent.headers, { content });
  expect(res.statusCode, res.body).toBe(201);
  t.clock.advance(1000);
  return res.json().message.id as string;
}

async function unread(worker: TestWorker) {
  const res = await call(t, 'GET', '/worker/chats/unread', worker.headers);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { total: number; chats: { taskId: string; unread: number }[] };
}

function markRead(worker: TestWorker, taskId: string, messageId: string) {
  return call(t, 'PUT', `/worker/chat/${taskId}/read`, worker.headers, { messageId });
}

describe('unread chat messages', () => {
  it('counts the agent’s messages after the worker’s read point, per task', async () => {
    const worker = await createWorker(t);
    const a = await assignedTask(t, agent, worker, { title: 'A' });
    const b = await assignedTask(t, agent, worker, { title: 'B' });
    expect(await unread(worker)).toEqual({ total: 0, chats: [] });

    const first = await agentSays(a.taskId, 'Hello');
    await agentSays(a.taskId, 'Are you there?');
    await agentSays(b.taskId, 'Another job');
    // The worker's own messages are never unread.
    const mine = await call(t, 'POST', `/worker/chat/${a.taskId}/messages`, worker.headers, {
      content: 'Yes',
    });
    expect(mine.statusCode, mine.body).toBe(201);
    t.clock.advance(1000);
    expect(await unread(worker)).toEqual({
      total: 3,
      chats: expect.arrayContaining([
        { taskId: a.taskId, unread: 2 },
        { taskId: b.taskId, unread: 1 },
      ]),
    });

    // Read up to the first message: one left in A.
    let res = await markRead(worker, a.taskId, first);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ moved: true });
    expect((await unread(worker)).chats).toEqual(expect.arrayContaining([{ taskId: a.taskId, unread: 1 }]));

    // Read up to the worker's own (newest) message: A is read.
    res = await markRead(worker, a.taskId, mine.json().message.id);
    expect(res.json()).toEqual({ moved: true });
    // The marker never moves back.
    res = await markRead(worker, a.taskId, first);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ moved: false });
    expect(await unread(worker)).toEqual({ total: 1, chats: [{ taskId: b.taskId, unread: 1 }] });

    // A new agent message counts again.
    await agentSays(a.taskId, 'One more thing');
    expect((await unread(worker)).total).toBe(2);
  });

  it('lets no other worker read or move a marker, and refuses a message of another chat', async () => {
    const worker = await createWorker(t);
    const other = await createWorker(t);
    const { taskId } = await assignedTask(t, agent, worker);
    const theirs = await assignedTask(t, agent, other);
    const id = await agentSays(taskId, 'For the worker only');
    const elsewhere = await agentSays(theirs.taskId, 'For the other one');

    // Another worker: 404 for a task that is not theirs, and their counts do not include it.
    const refused = await markRead(other, taskId, id);
    expect(refused.statusCode, refused.body).toBe(404);
    expect((await unread(other)).chats.map((c) => c.taskId)).toEqual([theirs.taskId]);
    expect((await unread(worker)).chats).toEqual([{ taskId, unread: 1 }]);

    // A message of another chat, a malformed id, an unknown task: 400/400/404, nothing moves.
    expect((await markRead(worker, taskId, elsewhere)).statusCode).toBe(400);
    expect((await markRead(worker, taskId, 'nonsense')).statusCode).toBe(400);
    expect((await markRead(worker, `tsk_${'0'.repeat(40)}`, id)).statusCode).toBe(404);
    expect((await call(t, 'PUT', `/worker/chat/${taskId}/read`, worker.headers, {})).statusCode).toBe(400);
    expect((await unread(worker)).chats).toEqual([{ taskId, unread: 1 }]);
    expect((await call(t, 'GET', '/worker/chats/unread', {})).statusCode).toBe(401);
  });

  it('caps a count at 100', async () => {
    const worker = await createWorker(t);
    const { taskId } = await assignedTask(t, agent, worker);
    for (let i = 0; i < 102; i++) await agentSays(taskId, `Message ${i}`);
    expect(await unread(worker)).toEqual({ total: 100, chats: [{ taskId, unread: 100 }] });
  });
});

describe('GET /worker/earnings', () => {
  it('splits paid, on the way and in review, per currency', async () => {
    const worker = await createWorker(t);
    await completedTask(t, agent, worker, { reward: '2' });
    await sendDueTransfers(t.ctx);
    // The chain is unreachable for this one: recorded, not confirmed yet.
    chain.down = true;
    await completedTask(t, agent, worker, { reward: '3.5' });
    chain.down = false;
    const review = await assignedTask(t, agent, worker, { reward: '1.25' });
    const submitted = await call(t, 'POST', `/worker/tasks/${review.taskId}/submissions`, worker.headers, {
      note: 'Done',
    });
    expect(submitted.statusCode, submitted.body).toBe(201);
    await assignedTask(t, agent, worker, { reward: '9' }); // Still to do: no money yet.
    // A USDT task in review: its reward is counted in USDT only, never added to the TON sums.
    const deposit = await call(t, 'POST', `/admin/agents/${agent.id}/deposits`, t.admin, {
      amount: '100',
      currency: 'USDT',
    });
    expect(deposit.statusCode, deposit.body).toBe(201);
    const usdt = await assignedTask(t, agent, worker, { reward: '2.5', currency: 'USDT' });
    const usdtSubmitted = await call(t, 'POST', `/worker/tasks/${usdt.taskId}/submissions`, worker.headers, {
      note: 'Done',
    });
    expect(usdtSubmitted.statusCode, usdtSubmitted.body).toBe(201);

    const res = await call(t, 'GET', '/worker/earnings', worker.headers);
    expect(res.statusCode, res.body).toBe(200);
    const ton = { paid: '2', onTheWay: '3.5', inReview: '1.25', inReviewTasks: 1 };
    expect(res.json()).toEqual({
      ...ton,
      currency: 'TON',
      byCurrency: { TON: ton, USDT: { paid: '0', onTheWay: '0', inReview: '2.5', inReviewTasks: 1 } },
    });

    const fresh = await createWorker(t);
    const none = { paid: '0', onTheWay: '0', inReview: '0', inReviewTasks: 0 };
    expect((await call(t, 'GET', '/worker/earnings', fresh.headers)).json()).toEqual({
      ...none,
      currency: 'TON',
      byCurrency: { TON: none, USDT: none },
    });
    expect((await call(t, 'GET', '/worker/earnings', {})).statusCode).toBe(401);
  });
});

describe('GET /worker/earnings past 2^53 smallest units', () => {
  // Issue #35, finding 11: a reward is at most 1000000 TON (10^15 nanotons), so eleven of them
  // pass 2^53; the sums were read as plain integers and SQLite's answer was a 500.
  it('reads each sum exactly, through the real flows', async () => {
    const rich = await createAgent(t, { deposit: '30000000' });
    const worker = await createWorker(t);
    const reward = '1000000';
    chain.down = true; // The payouts stay recorded and unconfirmed: on the way.
    try {
      for (let i = 0; i < 11; i++) await completedTask(t, rich, worker, { reward });
    } finally {
      chain.down = false;
    }
    for (let i = 0; i < 11; i++) {
      const review = await assignedTask(t, rich, worker, { reward });
      const submitted = await call(t, 'POST', `/worker/tasks/${review.taskId}/submissions`, worker.headers, {
        note: 'Done',
      });
      expect(submitted.statusCode, submitted.body).toBe(201);
    }
    expect(11n * 10n ** 15n).toBeGreaterThan(BigInt(Number.MAX_SAFE_INTEGER));

    const res = await call(t, 'GET', '/worker/earnings', worker.headers);
    expect(res.statusCode, res.body).toBe(200);
    const ton = { paid: '0', onTheWay: '11000000', inReview: '11000000', inReviewTasks: 11 };
    expect(res.json()).toMatchObject({ ...ton, byCurrency: { TON: ton } });
  });
});

describe('GET /worker/ratings', () => {
  it('lists the agents’ ratings of this worker with their comments, newest first', async () => {
    const worker = await createWorker(t);
    const other = await createWorker(t);
    const first = await completedTask(t, agent, worker, { title: 'Photo of the bridge' });
    const second = await completedTask(t, agent, worker, { title: 'Parcel to the post office' });
    const elsewhere = await completedTask(t, agent, other, { title: 'Not mine' });
    const rate = (taskId: string, body: Record<string, unknown>) =>
      call(t, 'POST', `/tasks/${taskId}/rate`, agent.headers, body);
    expect((await rate(first.taskId, { score: 4, comment: 'Good photos, a bit late' })).statusCode).toBe(201);
    t.clock.advance(1000);
    expect((await rate(second.taskId, { score: 5 })).statusCode).toBe(201);
    expect((await rate(elsewhere.taskId, { score: 1, comment: 'Not for you' })).statusCode).toBe(201);
    // The worker's rating of the agent is not a rating of the worker.
    const own = await call(t, 'POST', `/worker/tasks/${first.taskId}/rate`, worker.headers, { score: 5 });
    expect(own.statusCode, own.body).toBe(201);

    const res = await call(t, 'GET', '/worker/ratings?limit=1', worker.headers);
    expect(res.statusCode, res.body).toBe(200);
    const page = res.json();
    expect(page.ratings).toEqual([
      expect.objectContaining({
        taskId: second.taskId,
        taskTitle: 'Parcel to the post office',
        score: 5,
        comment: null,
      }),
    ]);
    expect(page.hasMore).toBe(true);
    const next = await call(t, 'GET', `/worker/ratings?limit=1&cursor=${page.nextCursor}`, worker.headers);
    expect(next.json()).toMatchObject({
      ratings: [{ taskId: first.taskId, score: 4, comment: 'Good photos, a bit late' }],
      hasMore: false,
      nextCursor: null,
    });
    expect((await call(t, 'GET', '/worker/ratings?cursor=bad', worker.headers)).statusCode).toBe(400);
  });
});
