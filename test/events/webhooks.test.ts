import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dispatchDueDeliveries, MAX_ATTEMPTS, RETRY_DELAYS_MS } from '../../src/outbox/webhookDeliveries.js';
import { call, type Json, ok, taskEvents, unknownId, walk } from '../helpers/agentApi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { assignedTask, createAgent, createTask, createWorker, type TestAgent } from '../helpers/fixtures.js';
import { Receiver, verifySignature } from '../helpers/receiver.js';
import { applyTo, offerTo } from '../helpers/workerApi.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const DELIVERY_ID = /^dlv_[0-9a-z]{40}$/;

/** One pass of the dispatcher, as the background job would run it. */
function dispatch(t: TestApp) {
  return dispatchDueDeliveries(t.ctx, t.ctx.webhooks);
}

async function setWebhook(t: TestApp, agent: TestAgent, url: string | null) {
  return ok(t, agent, 'PATCH', '/agents/webhooks', { url });
}

async function listDeliveries(t: TestApp, agent: TestAgent, query = '') {
  const body = await ok(t, agent, 'GET', `/agents/webhooks/deliveries${query}`);
  return body.deliveries as Json[];
}

async function deliveryOf(t: TestApp, agent: TestAgent, id: string) {
  const found = (await walk(t, agent, '/agents/webhooks/deliveries?limit=100', 'deliveries')).items.find(
    (d) => d.id === id,
  );
  expect(found, `delivery ${id} is listed`).toBeDefined();
  return found as Json;
}

/** Runs the first attempt and every retry, moving the clock by each retry delay. */
async function runAllAttempts(t: TestApp) {
  await dispatch(t);
  for (const delay of RETRY_DELAYS_MS) {
    t.clock.advance(delay);
    await dispatch(t);
  }
}

/**
 * What an agent's server checks on every webhook: a POST whose X-Service-Signature is the hex
 * HMAC-SHA256 of the raw body under the agent's API key, the service headers, and the envelope.
 */
function expectAuthentic(receiver: Receiver, apiKey: string) {
  expect(receiver.requests.length).toBeGreaterThan(0);
  for (const request of receiver.requests) {
    expect(request.method).toBe('POST');
    expect(request.headers['content-type']).toMatch(/^application\/json/);
    expect(verifySignature(request.rawBody, request.headers['x-service-signature'], apiKey)).toBe(true);
    const envelope = JSON.parse(request.rawBody.toString('utf8'));
    expect(Object.keys(envelope).sort()).toEqual(['data', 'event', 'livemode', 'timestamp']);
    // A live key's events (test mode, issue 37: a test key's say false).
    expect(envelope.livemode).toBe(true);
    expect(typeof envelope.event).toBe('string');
    expect(envelope.timestamp).toMatch(ISO);
    expect(typeof envelope.data).toBe('object');
    expect(request.headers['x-service-event']).toBe(envelope.event);
    expect(request.headers['x-service-timestamp']).toBe(envelope.timestamp);
    expect(request.headers['x-service-delivery-id']).toMatch(/^dlv_/);
  }
}

describe('webhooks', () => {
  let t: TestApp;
  let receiver: Receiver;
  beforeEach(async () => {
    t = await createTestApp();
    receiver = await Receiver.start();
  });
  afterEach(async () => {
    await receiver.close();
    await t.close();
  });

  describe('configuration', () => {
    it('PATCH /agents/webhooks sets the URL, and null turns webhooks off so later events create no delivery', async () => {
      const agent = await createAgent(t, { deposit: '100' });
      const set = await setWebhook(t, agent, receiver.url);
      expect(set.webhook).toEqual({
        url: receiver.url,
        configured: true,
        lastUpdated: expect.stringMatching(ISO),
      });
      expect(typeof set.message).toBe('string');
      expect((await ok(t, agent, 'GET', '/agents/me')).agent.webhookUrl).toBe(receiver.url);

      const first = await createTask(t, agent);
      expect(await listDeliveries(t, agent)).toEqual([
        expect.objectContaining({ event: 'task.funded', taskId: first.id, status: 'pending', attempts: 0 }),
      ]);

      const off = await setWebhook(t, agent, null);
      expect(off.webhook).toEqual({ url: null, configured: false, lastUpdated: expect.stringMatching(ISO) });
      expect((await ok(t, agent, 'GET', '/agents/me')).agent.webhookUrl).toBeNull();

      const second = await createTask(t, agent);
      // The event is still recorded (the outbox is the history), but nothing is to be sent.
      expect((await taskEvents(t, second.id)).map((e) => e.type)).toEqual(['task.funded']);
      const deliveries = await listDeliveries(t, agent);
      expect(deliveries).toHaveLength(1);
      expect(deliveries[0].taskId).toBe(first.id);

      // Whatever happens to the delivery recorded while the URL was set, the later event is not sent.
      await dispatch(t);
      expect(receiver.webhooks().map((w) => w.data.taskId)).not.toContain(second.id);
    });

    it('POST /agents/webhooks sends a signed test delivery and reports the receiver status; 409 with no URL', async () => {
      const agent = await createAgent(t);
      const none = await call(t, agent, 'POST', '/agents/webhooks');
      expect(none.statusCode).toBe(409);
      expect(none.json().error).toMatch(/webhook/i);
      expect(receiver.requests).toHaveLength(0);

      await setWebhook(t, agent, receiver.url);
      const good = await ok(t, agent, 'POST', '/agents/webhooks');
      expect(good).toEqual({ success: true, statusCode: 200, message: expect.any(String) });
      expect(receiver.requests).toHaveLength(1);
      expectAuthentic(receiver, agent.apiKey);
      const test = receiver.webhooks()[0]!;
      expect(test.event).toBe('webhook.test');
      expect(test.data.agentId).toBe(agent.id);

      receiver.respondWith(500);
      const bad = await ok(t, agent, 'POST', '/agents/webhooks');
      expect(bad.success).toBe(false);
      expect(bad.statusCode).toBe(500);
      expect(bad.message).toMatch(/500/);
      expect(receiver.requests).toHaveLength(2);

      receiver.respondWith(204);
      expect(await ok(t, agent, 'POST', '/agents/webhooks')).toMatchObject({
        success: true,
        statusCode: 204,
      });

      // A signature made with another key does not verify: the check can fail.
      const other = await createAgent(t);
      const last = receiver.requests.at(-1)!;
      expect(verifySignature(last.rawBody, last.headers['x-service-signature'], other.apiKey)).toBe(false);
      expect(
        verifySignature(Buffer.from(`${last.rawBody} `), last.headers['x-service-signature'], agent.apiKey),
      ).toBe(false);
    });
  });

  describe('events', () => {
    it('every flow sends its event, signed, with the documented data', async () => {
      const agent = await createAgent(t, { deposit: '200' });
      await setWebhook(t, agent, receiver.url);
      const alice = await createWorker(t, { firstName: 'Alice' });
      const bob = await createWorker(t, { firstName: 'Bob' });
      const carol = await createWorker(t, { firstName: 'Carol' });

      // Task A: two applicants, Alice accepted, chat, completed, rated both ways.
      const a = await createTask(t, agent, { reward: '10' });
      const aliceApp = await applyTo(t, alice, a.id, 'Alice here');
      const bobApp = await applyTo(t, bob, a.id, 'Bob here');
      const accepted = await ok(t, agent, 'PATCH', `/applications/${aliceApp.id}`, { status: 'ACCEPTED' });
      const chatId = accepted.chat.id as string;
      const workerMessage = await ok(
        t,
        alice,
        'POST',
        `/worker/chat/${a.id}/messages`,
        { content: 'Done, see the photo ✅ — привет' },
        201,
      );
      await ok(t, agent, 'POST', `/chat/${a.id}/messages`, { content: 'Thanks' }, 201);
      const done = await ok(t, agent, 'POST', `/tasks/${a.id}/complete`);
      expect(done.payment.txHash).toMatch(/^[0-9a-f]{64}$/);
      const workerRating = await ok(
        t,
        alice,
        'POST',
        `/worker/tasks/${a.id}/rate`,
        { score: 4, comment: 'Clear brief' },
        201,
      );
      await ok(t, agent, 'POST', `/tasks/${a.id}/rate`, { score: 5 }, 201);

      // Task B: a direct offer Carol accepts. Task C: one she declines.
      const b = await offerTo(t, agent, carol, { reward: '5' });
      await ok(t, carol, 'POST', `/worker/offers/${b.task.id}/accept`);
      const c = await offerTo(t, agent, carol, { reward: '5' });
      await ok(t, carol, 'POST', `/worker/offers/${c.task.id}/decline`);

      // Task D: assigned to Bob, then refunded.
      const d = await assignedTask(t, agent, bob, { reward: '20' });
      await ok(t, agent, 'POST', `/tasks/${d.taskId}/refund`, { reason: 'Changed plans' });

      expect(receiver.requests).toHaveLength(0);
      expect(await dispatch(t)).toBe(17);
      expect(await dispatch(t)).toBe(0);
      expect(receiver.requests).toHaveLength(17);
      expectAuthentic(receiver, agent.apiKey);
      const ids = receiver.requests.map((r) => r.headers['x-service-delivery-id']);
      expect(new Set(ids).size).toBe(17);

      const data = (event: string, taskId: string) =>
        receiver
          .ofEvent(event)
          .map((w) => w.data)
          .filter((x) => x.taskId === taskId);
      const ref = (w: { id: string }, name: string) => ({ id: w.id, name });
      const offerApp = async (taskId: string) =>
        ((await ok(t, agent, 'GET', `/tasks/${taskId}`)).task.applications as Json[])[0].id as string;

      expect(data('task.funded', a.id)).toEqual([
        { taskId: a.id, deposit: { amount: '13', txHash: null, currency: 'TON' } },
      ]);
      expect(data('task.funded', b.task.id)).toEqual([
        { taskId: b.task.id, deposit: { amount: '6.5', txHash: null, currency: 'TON' } },
      ]);
      expect(data('task.funded', d.taskId)).toEqual([
        { taskId: d.taskId, deposit: { amount: '26', txHash: null, currency: 'TON' } },
      ]);
      expect(data('application.received', a.id)).toEqual(
        expect.arrayContaining([
          { applicationId: aliceApp.id, taskId: a.id, applicant: ref(alice, 'Alice') },
          { applicationId: bobApp.id, taskId: a.id, applicant: ref(bob, 'Bob') },
        ]),
      );
      expect(data('application.received', a.id)).toHaveLength(2);
      expect(data('application.accepted', a.id)).toEqual([
        { taskId: a.id, applicationId: aliceApp.id, worker: ref(alice, 'Alice') },
      ]);
      expect(data('application.rejected', a.id)).toEqual([
        { taskId: a.id, applicationId: bobApp.id, worker: ref(bob, 'Bob') },
      ]);
      // Only the worker's message reaches the agent; the agent's own message is no event.
      expect(receiver.ofEvent('message.received').map((w) => w.data)).toEqual([
        {
          chatId,
          taskId: a.id,
          messageId: workerMessage.message.id,
          content: 'Done, see the photo ✅ — привет',
          hasFile: false,
        },
      ]);
      expect(data('task.completed', a.id)).toEqual([
        { taskId: a.id, payment: { amount: '10', toAddress: alice.wallet, currency: 'TON' } },
      ]);
      expect(data('payment.sent', a.id)).toEqual([
        {
          taskId: a.id,
          payment: { amount: '10', toAddress: alice.wallet, txHash: done.payment.txHash, currency: 'TON' },
        },
      ]);
      // The worker's rating reaches the agent; the agent's own rating of the worker does not.
      expect(receiver.ofEvent('rating.received').map((w) => w.data)).toEqual([
        {
          taskId: a.id,
          rating: { id: workerRating.rating.id, raterType: 'USER', score: 4, comment: 'Clear brief' },
        },
      ]);
      expect(data('offer.accepted', b.task.id)).toEqual([
        { taskId: b.task.id, applicationId: await offerApp(b.task.id), worker: ref(carol, 'Carol') },
      ]);
      expect(data('offer.declined', c.task.id)).toEqual([
        { taskId: c.task.id, applicationId: await offerApp(c.task.id), worker: ref(carol, 'Carol') },
      ]);
      expect(data('refund.processed', d.taskId)).toEqual([
        {
          taskId: d.taskId,
          refund: { amount: '26', destination: 'agent_balance', reason: 'Changed plans', currency: 'TON' },
        },
      ]);
      const counts: Record<string, number> = {};
      for (const w of receiver.webhooks()) counts[w.event] = (counts[w.event] ?? 0) + 1;
      expect(counts).toEqual({
        'task.funded': 4,
        'application.received': 3,
        'application.accepted': 2,
        'application.rejected': 1,
        'message.received': 1,
        'task.completed': 1,
        'payment.sent': 1,
        'rating.received': 1,
        'offer.accepted': 1,
        'offer.declined': 1,
        'refund.processed': 1,
      });

      // The delivery log agrees with what arrived.
      const log = (await walk(t, agent, '/agents/webhooks/deliveries?limit=100', 'deliveries')).items;
      expect(log).toHaveLength(17);
      expect(new Set(log.map((l) => l.id))).toEqual(new Set(ids));
      for (const entry of log) {
        expect(entry).toMatchObject({
          status: 'delivered',
          attempts: 1,
          lastStatusCode: 200,
          lastError: null,
          nextAttemptAt: null,
          url: receiver.url,
        });
        expect(entry.deliveredAt).toMatch(ISO);
        const arrived = receiver.requests.find((r) => r.headers['x-service-delivery-id'] === entry.id)!;
        expect(arrived.headers['x-service-event']).toBe(entry.event);
      }
    });

    it('a refused change records no event and no delivery', async () => {
      const agent = await createAgent(t, { deposit: '10' });
      const worker = await createWorker(t);
      await setWebhook(t, agent, receiver.url);
      const poor = await call(t, agent, 'POST', '/tasks', {
        title: 'Big',
        description: 'Too big',
        reward: '100',
      });
      expect(poor.statusCode).toBe(402);
      const task = await createTask(t, agent, { reward: '1' });
      await applyTo(t, worker, task.id);
      const twice = await call(t, worker, 'POST', `/worker/tasks/${task.id}/applications`, {
        message: 'again',
      });
      expect(twice.statusCode).toBe(409);
      expect((await taskEvents(t, task.id)).map((e) => e.type)).toEqual([
        'task.funded',
        'application.received',
      ]);
      expect(await dispatch(t)).toBe(2);
      expect(
        receiver
          .webhooks()
          .map((w) => w.event)
          .sort(),
      ).toEqual(['application.received', 'task.funded']);
    });

    it("the task's webhookUrl wins over the agent's", async () => {
      const taskReceiver = await Receiver.start('/task-hook');
      try {
        const agent = await createAgent(t, { deposit: '100' });
        const worker = await createWorker(t);
        await setWebhook(t, agent, receiver.url);
        const own = await createTask(t, agent, { webhookUrl: taskReceiver.url });
        const plain = await createTask(t, agent);
        await applyTo(t, worker, own.id);
        await applyTo(t, worker, plain.id);

        expect(await dispatch(t)).toBe(4);
        expect(taskReceiver.webhooks().map((w) => [w.event, w.data.taskId])).toEqual(
          expect.arrayContaining([
            ['task.funded', own.id],
            ['application.received', own.id],
          ]),
        );
        expect(taskReceiver.requests).toHaveLength(2);
        expect(receiver.webhooks().map((w) => [w.event, w.data.taskId])).toEqual(
          expect.arrayContaining([
            ['task.funded', plain.id],
            ['application.received', plain.id],
          ]),
        );
        expect(receiver.requests).toHaveLength(2);
        expectAuthentic(taskReceiver, agent.apiKey);
        expectAuthentic(receiver, agent.apiKey);
        for (const d of await listDeliveries(t, agent)) {
          expect(d.url).toBe(d.taskId === own.id ? taskReceiver.url : receiver.url);
        }
      } finally {
        await taskReceiver.close();
      }
    });
  });

  describe('retries', () => {
    it('a receiver failing twice gets the same delivery three times, never before its delay', async () => {
      const agent = await createAgent(t, { deposit: '100' });
      await setWebhook(t, agent, receiver.url);
      receiver.failNext(2, 500);
      const task = await createTask(t, agent);
      const [pending] = await listDeliveries(t, agent);

      expect(await dispatch(t)).toBe(1);
      expect(receiver.requests).toHaveLength(1);
      let entry = await deliveryOf(t, agent, pending.id);
      expect(entry).toMatchObject({
        status: 'pending',
        attempts: 1,
        lastStatusCode: 500,
        lastError: 'the receiver answered HTTP 500',
        deliveredAt: null,
      });
      expect(Date.parse(entry.nextAttemptAt) - t.clock.now().getTime()).toBe(RETRY_DELAYS_MS[0]);
      // The log shows the very body the receiver got (the console's delivery log displays it).
      expect(entry.requestBody).toBe(receiver.requests[0]!.rawBody.toString('utf8'));

      // Not due yet: nothing is sent before the first retry delay has passed.
      expect(await dispatch(t)).toBe(0);
      t.clock.advance(RETRY_DELAYS_MS[0] - 1);
      expect(await dispatch(t)).toBe(0);
      expect(receiver.requests).toHaveLength(1);
      t.clock.advance(1);
      expect(await dispatch(t)).toBe(1);
      expect(receiver.requests).toHaveLength(2);
      entry = await deliveryOf(t, agent, pending.id);
      expect(entry).toMatchObject({ status: 'pending', attempts: 2, lastStatusCode: 500 });

      // The second retry waits longer than the first.
      t.clock.advance(RETRY_DELAYS_MS[0]);
      expect(await dispatch(t)).toBe(0);
      t.clock.advance(RETRY_DELAYS_MS[1] - RETRY_DELAYS_MS[0] - 1);
      expect(await dispatch(t)).toBe(0);
      expect(receiver.requests).toHaveLength(2);
      t.clock.advance(1);
      expect(await dispatch(t)).toBe(1);
      expect(receiver.requests).toHaveLength(3);

      entry = await deliveryOf(t, agent, pending.id);
      expect(entry).toMatchObject({
        status: 'delivered',
        attempts: 3,
        lastStatusCode: 200,
        lastError: null,
        nextAttemptAt: null,
        taskId: task.id,
        event: 'task.funded',
      });
      expect(entry.deliveredAt).toBe(t.clock.now().toISOString());

      // The same delivery, byte for byte: same id, same body, same signature.
      const [first, ...rest] = receiver.requests;
      expect(first!.headers['x-service-delivery-id']).toBe(pending.id);
      for (const again of rest) {
        expect(again.headers['x-service-delivery-id']).toBe(pending.id);
        expect(again.rawBody.equals(first!.rawBody)).toBe(true);
        expect(again.headers['x-service-signature']).toBe(first!.headers['x-service-signature']);
      }
      expectAuthentic(receiver, agent.apiKey);

      // Delivered means done: no further attempt, however much time passes.
      t.clock.advance(86_400_000);
      expect(await dispatch(t)).toBe(0);
      expect(receiver.requests).toHaveLength(3);
    });

    it('a receiver answering non-2xx every time: first attempt plus 3 retries, then failed', async () => {
      const agent = await createAgent(t, { deposit: '100' });
      await setWebhook(t, agent, receiver.url);
      receiver.respondWith(302);
      await createTask(t, agent);
      const [pending] = await listDeliveries(t, agent);
      await runAllAttempts(t);
      expect(receiver.requests).toHaveLength(MAX_ATTEMPTS);
      expect(MAX_ATTEMPTS).toBe(4);
      // A redirect is not a success, and it is not followed.
      expect(await deliveryOf(t, agent, pending.id)).toMatchObject({
        status: 'failed',
        attempts: 4,
        lastStatusCode: 302,
        lastError: 'the receiver answered HTTP 302',
        nextAttemptAt: null,
        deliveredAt: null,
      });
      t.clock.advance(86_400_000);
      expect(await dispatch(t)).toBe(0);
      expect(receiver.requests).toHaveLength(4);
    });

    it('redeliver re-queues a failed delivery with the same id; delivered -> 409, another agent -> 404', async () => {
      const agent = await createAgent(t, { deposit: '100' });
      const stranger = await createAgent(t);
      await setWebhook(t, agent, receiver.url);
      receiver.respondWith(503);
      await createTask(t, agent);
      const [pending] = await listDeliveries(t, agent);
      await runAllAttempts(t);
      expect(await deliveryOf(t, agent, pending.id)).toMatchObject({ status: 'failed', attempts: 4 });

      // Another agent's delivery is answered exactly as an id that does not exist: the answer must
      // not tell a stranger that the id is real.
      const foreign = await call(t, stranger, 'POST', `/agents/webhooks/deliveries/${pending.id}/redeliver`);
      const missing = await call(
        t,
        agent,
        'POST',
        `/agents/webhooks/deliveries/${unknownId('dlv')}/redeliver`,
      );
      expect(missing.statusCode).toBe(404);
      expect(foreign.statusCode).toBe(404);
      expect(foreign.json()).toEqual(missing.json());
      const malformed = await call(t, agent, 'POST', '/agents/webhooks/deliveries/nonsense/redeliver');
      expect(malformed.statusCode).toBe(404);
      expect(await deliveryOf(t, agent, pending.id)).toMatchObject({ status: 'failed', attempts: 4 });

      receiver.respondWith(200);
      const requeued = await ok(t, agent, 'POST', `/agents/webhooks/deliveries/${pending.id}/redeliver`);
      expect(requeued.delivery).toMatchObject({
        id: pending.id,
        status: 'pending',
        attempts: 0,
        event: 'task.funded',
        url: receiver.url,
      });
      // Pending again: a second redeliver is refused until it fails again.
      expect(
        (await call(t, agent, 'POST', `/agents/webhooks/deliveries/${pending.id}/redeliver`)).statusCode,
      ).toBe(409);

      expect(await dispatch(t)).toBe(1);
      expect(receiver.requests).toHaveLength(5);
      expect(receiver.requests.map((r) => r.headers['x-service-delivery-id'])).toEqual(
        Array(5).fill(pending.id),
      );
      expect(await deliveryOf(t, agent, pending.id)).toMatchObject({
        status: 'delivered',
        attempts: 1,
        lastStatusCode: 200,
      });

      const again = await call(t, agent, 'POST', `/agents/webhooks/deliveries/${pending.id}/redeliver`);
      expect(again.statusCode).toBe(409);
      expect(again.json().error).toMatch(/failed/);
      expect(await dispatch(t)).toBe(0);
      expect(receiver.requests).toHaveLength(5);
    });

    it('redeliver sends to the URL in force now', async () => {
      const fixed = await Receiver.start('/fixed');
      try {
        const agent = await createAgent(t, { deposit: '100' });
        await setWebhook(t, agent, receiver.url);
        receiver.respondWith(500);
        await createTask(t, agent);
        const [pending] = await listDeliveries(t, agent);
        await runAllAttempts(t);
        await setWebhook(t, agent, fixed.url);
        await ok(t, agent, 'POST', `/agents/webhooks/deliveries/${pending.id}/redeliver`);
        expect(await dispatch(t)).toBe(1);
        expect(fixed.requests).toHaveLength(1);
        expect(fixed.requests[0]!.headers['x-service-delivery-id']).toBe(pending.id);
        expectAuthentic(fixed, agent.apiKey);
        expect(receiver.requests).toHaveLength(4);
      } finally {
        await fixed.close();
      }
    });
  });

  describe('delivery log', () => {
    it('GET /agents/webhooks/deliveries pages newest first and filters by status', async () => {
      const agent = await createAgent(t, { deposit: '100' });
      const other = await createAgent(t, { deposit: '100' });
      await setWebhook(t, agent, receiver.url);
      await setWebhook(t, other, receiver.url);
      const delivered: string[] = [];
      for (let i = 0; i < 3; i++) {
        delivered.push((await createTask(t, agent, { title: `Delivered ${i}` })).id);
        t.clock.advance(1_000);
      }
      await createTask(t, other);
      expect(await dispatch(t)).toBe(4);

      receiver.respondWith(410);
      const failed: string[] = [];
      for (let i = 0; i < 2; i++) {
        failed.push((await createTask(t, agent, { title: `Failed ${i}` })).id);
        t.clock.advance(1_000);
      }
      await runAllAttempts(t);

      const all = await walk(t, agent, '/agents/webhooks/deliveries?limit=2', 'deliveries');
      expect(all.pages).toHaveLength(3);
      expect(all.pages.map((p) => p.deliveries.length)).toEqual([2, 2, 1]);
      // Newest first; only this agent's deliveries.
      expect(all.items.map((d) => d.taskId)).toEqual([...failed].reverse().concat([...delivered].reverse()));
      expect(new Set(all.items.map((d) => d.id)).size).toBe(5);
      for (const d of all.items) {
        expect(d.id).toMatch(DELIVERY_ID);
        expect(d.eventId).toMatch(/^evt_/);
        expect(d.createdAt).toMatch(ISO);
      }

      const onlyFailed = await walk(
        t,
        agent,
        '/agents/webhooks/deliveries?status=failed&limit=1',
        'deliveries',
      );
      expect(onlyFailed.pages).toHaveLength(2);
      expect(onlyFailed.items.map((d) => d.taskId)).toEqual([...failed].reverse());
      for (const d of onlyFailed.items) {
        expect(d).toMatchObject({
          status: 'failed',
          attempts: 4,
          lastStatusCode: 410,
          lastError: 'the receiver answered HTTP 410',
          nextAttemptAt: null,
          deliveredAt: null,
        });
      }
      const onlyDelivered = await listDeliveries(t, agent, '?status=delivered');
      expect(onlyDelivered.map((d) => d.taskId)).toEqual([...delivered].reverse());
      expect(onlyDelivered.every((d) => d.status === 'delivered' && d.attempts === 1)).toBe(true);
      expect(await listDeliveries(t, agent, '?status=pending')).toEqual([]);

      expect((await call(t, agent, 'GET', '/agents/webhooks/deliveries?status=lost')).statusCode).toBe(400);
      expect((await call(t, agent, 'GET', '/agents/webhooks/deliveries?limit=0')).statusCode).toBe(400);
      expect((await call(t, agent, 'GET', '/agents/webhooks/deliveries?limit=101')).statusCode).toBe(400);
      expect((await call(t, { headers: {} }, 'GET', '/agents/webhooks/deliveries')).statusCode).toBe(401);
    });
  });
});

describe('a receiver that never answers', () => {
  let t: TestApp;
  let receiver: Receiver;
  beforeEach(async () => {
    t = await createTestApp({ webhookTimeoutMs: 300 });
    receiver = await Receiver.start();
    receiver.hang();
  });
  afterEach(async () => {
    await receiver.close();
    await t.close();
  });

  it('times out each attempt and ends failed after 4 attempts, the quarantines between them included', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    await setWebhook(t, agent, receiver.url);
    await createTask(t, agent);
    const [pending] = await listDeliveries(t, agent);
    const toTask = () => receiver.requests.filter((r) => r.headers['x-service-delivery-id'] === pending.id);

    expect(await dispatch(t)).toBe(1);
    expect(receiver.requests).toHaveLength(1);
    expect(await deliveryOf(t, agent, pending.id)).toMatchObject({
      status: 'pending',
      attempts: 1,
      lastStatusCode: null,
      lastError: 'no answer within 300 ms',
    });
    // The third time-out in a row quarantines the endpoint (webhookFairness.test.ts); from then
    // on one delivery probes it as each quarantine ends, and only those sent count as attempts.
    for (
      let round = 0;
      round < 20 && (await deliveryOf(t, agent, pending.id)).status === 'pending';
      round++
    ) {
      t.clock.advance(round < RETRY_DELAYS_MS.length ? RETRY_DELAYS_MS[round]! : 3_600_000);
      await dispatch(t);
    }
    expect(toTask()).toHaveLength(4);
    expect(await deliveryOf(t, agent, pending.id)).toMatchObject({
      status: 'failed',
      attempts: 4,
      lastStatusCode: null,
      lastError: 'no answer within 300 ms',
      nextAttemptAt: null,
    });
    t.clock.advance(86_400_000);
    await dispatch(t);
    expect(toTask()).toHaveLength(4);
  });

  it('the test delivery reports no status when the receiver does not answer', async () => {
    const agent = await createAgent(t);
    await setWebhook(t, agent, receiver.url);
    const res = await ok(t, agent, 'POST', '/agents/webhooks');
    expect(res).toEqual({
      success: false,
      statusCode: 0,
      message: expect.stringMatching(/no answer within 300 ms/),
    });
    expect(receiver.requests).toHaveLength(1);
  });
});
