import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findDelivery } from '../../src/db/repositories/deliveries.js';
import { claimDue } from '../../src/db/repositories/outbox.js';
import { LEASE_MARGIN_MS } from '../../src/outbox/runner.js';
import { dispatchDueDeliveries, RETRY_DELAYS_MS } from '../../src/outbox/webhookDeliveries.js';
import { ok } from '../helpers/agentApi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createAgent, createTask, createWorker, type TestAgent } from '../helpers/fixtures.js';
import { Receiver, verifySignature } from '../helpers/receiver.js';
import { applyTo } from '../helpers/workerApi.js';

function dispatch(t: TestApp) {
  return dispatchDueDeliveries(t.ctx, t.ctx.webhooks);
}

async function deliveryIds(t: TestApp, agent: TestAgent) {
  const body = await ok(t, agent, 'GET', '/agents/webhooks/deliveries?limit=100');
  return (body.deliveries as { id: string }[]).map((d) => d.id);
}

/** How many times each delivery id arrived. */
function arrivals(receiver: Receiver) {
  const counts = new Map<string, number>();
  for (const r of receiver.requests) {
    const id = r.headers['x-service-delivery-id'] as string;
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

describe('webhooks across a restart', () => {
  let receiver: Receiver;
  /** The app that is open and owns the data; one closed with keepData is handed to the next. */
  let live: TestApp | undefined;
  beforeEach(async () => {
    receiver = await Receiver.start();
  });
  afterEach(async () => {
    await receiver.close();
    await live?.close();
    live = undefined;
  });

  /** The process dies: the app closes without dispatching anything, leaving its data. */
  async function crash(app: TestApp) {
    live = undefined;
    await app.close({ keepData: true });
  }

  async function restart(previous: TestApp) {
    live = await createTestApp({ reopen: previous });
    return live;
  }

  it('an event recorded before a crash is delivered after the restart, exactly once', async () => {
    const first = await createTestApp();
    live = first;
    const agent = await createAgent(first, { deposit: '100' });
    await ok(first, agent, 'PATCH', '/agents/webhooks', { url: receiver.url });
    const task = await createTask(first, agent);
    const [deliveryId] = await deliveryIds(first, agent);
    // The process dies before the dispatcher ever runs.
    await crash(first);
    expect(receiver.requests).toHaveLength(0);

    const second = await restart(first);
    expect(await dispatch(second)).toBe(1);
    expect(receiver.requests).toHaveLength(1);
    const [webhook] = receiver.webhooks();
    expect(webhook).toMatchObject({ event: 'task.funded', data: { taskId: task.id } });
    expect(receiver.requests[0]!.headers['x-service-delivery-id']).toBe(deliveryId);
    // The reopened app signs with the same key, recovered from its encrypted copy.
    expect(
      verifySignature(
        receiver.requests[0]!.rawBody,
        receiver.requests[0]!.headers['x-service-signature'],
        agent.apiKey,
      ),
    ).toBe(true);

    expect(await dispatch(second)).toBe(0);
    second.clock.advance(RETRY_DELAYS_MS[2] * 10);
    expect(await dispatch(second)).toBe(0);
    expect(receiver.requests).toHaveLength(1);
    const body = await ok(second, agent, 'GET', '/agents/webhooks/deliveries');
    expect(body.deliveries).toEqual([
      expect.objectContaining({ id: deliveryId, status: 'delivered', attempts: 1 }),
    ]);
  });

  it('a crash in the middle of an attempt: the claimed delivery is sent again once its lease runs out', async () => {
    const first = await createTestApp();
    live = first;
    const agent = await createAgent(first, { deposit: '100' });
    await ok(first, agent, 'PATCH', '/agents/webhooks', { url: receiver.url });
    await createTask(first, agent);
    const [deliveryId] = await deliveryIds(first, agent);
    // An instance claims the delivery and dies before sending it (or before recording the answer).
    const row = (await findDelivery(first.ctx.db, deliveryId!))!;
    const now = first.clock.now().getTime();
    const lease = new Date(now + first.config.webhookTimeoutMs + LEASE_MARGIN_MS).toISOString();
    expect(
      await claimDue(
        first.ctx.db,
        'webhook_deliveries',
        row.id,
        { nextAttemptAt: row.next_attempt_at, attempts: row.attempts },
        {
          leaseUntil: lease,
          now: new Date(now).toISOString(),
        },
      ),
    ).toBe(true);
    await crash(first);

    const second = await restart(first);
    // Still leased: another instance must not send it meanwhile.
    expect(await dispatch(second)).toBe(0);
    second.clock.advance(first.config.webhookTimeoutMs + LEASE_MARGIN_MS);
    expect(await dispatch(second)).toBe(1);
    expect(await dispatch(second)).toBe(0);
    expect([...arrivals(receiver)]).toEqual([[deliveryId, 1]]);
    const delivery = (await findDelivery(second.ctx.db, deliveryId!))!;
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 1 });
  });
});

describe('concurrent dispatchers', () => {
  let t: TestApp;
  let receiver: Receiver;
  beforeEach(async () => {
    t = await createTestApp({ pgPoolSize: 4 });
    receiver = await Receiver.start();
  });
  afterEach(async () => {
    await receiver.close();
    await t.close();
  });

  it('two dispatchers running at once deliver each event once', async () => {
    const agent = await createAgent(t, { deposit: '500' });
    await ok(t, agent, 'PATCH', '/agents/webhooks', { url: receiver.url });
    const workers = [await createWorker(t), await createWorker(t)];
    for (let i = 0; i < 6; i++) {
      const task = await createTask(t, agent, { reward: '1' });
      for (const worker of workers) await applyTo(t, worker, task.id);
    }
    const ids = await deliveryIds(t, agent);
    expect(ids).toHaveLength(18);

    const due = await Promise.all([dispatch(t), dispatch(t)]);
    // Both may see the same rows as due; only one claims each.
    expect(due[0]! + due[1]!).toBeGreaterThanOrEqual(18);
    expect(await dispatch(t)).toBe(0);
    const counts = arrivals(receiver);
    expect(new Set(counts.keys())).toEqual(new Set(ids));
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    expect(receiver.requests).toHaveLength(18);

    t.clock.advance(RETRY_DELAYS_MS[2] * 10);
    await Promise.all([dispatch(t), dispatch(t)]);
    expect(receiver.requests).toHaveLength(18);
    for (const id of ids)
      expect((await findDelivery(t.ctx.db, id))!).toMatchObject({ status: 'delivered', attempts: 1 });
  });

  it('two dispatchers retrying failed deliveries at once still attempt each once per round', async () => {
    const agent = await createAgent(t, { deposit: '500' });
    await ok(t, agent, 'PATCH', '/agents/webhooks', { url: receiver.url });
    for (let i = 0; i < 5; i++) await createTask(t, agent, { reward: '1' });
    const ids = await deliveryIds(t, agent);
    // Every delivery fails its first attempt and succeeds on the retry.
    const seen = new Set<string>();
    receiver.use((_index, request) => {
      const id = request.headers['x-service-delivery-id'] as string;
      if (seen.has(id)) return 200;
      seen.add(id);
      return 500;
    });
    await Promise.all([dispatch(t), dispatch(t)]);
    expect(receiver.requests).toHaveLength(5);
    t.clock.advance(RETRY_DELAYS_MS[0]);
    await Promise.all([dispatch(t), dispatch(t), dispatch(t)]);
    expect(receiver.requests).toHaveLength(10);
    for (const n of arrivals(receiver).values()) expect(n).toBe(2);
    for (const id of ids)
      expect((await findDelivery(t.ctx.db, id))!).toMatchObject({ status: 'delivered', attempts: 2 });
  });
});
