import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import type { DomainContext } from '../../src/domain/context.js';
import { startBackgroundJobs } from '../../src/jobs.js';
import { dispatchDueDeliveries, RETRY_DELAYS_MS } from '../../src/outbox/webhookDeliveries.js';
import { MAX_IN_FLIGHT_PER_AGENT } from '../../src/outbox/webhookFairness.js';
import { type Json, ok, walk } from '../helpers/agentApi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createAgent, createTask, type TestAgent } from '../helpers/fixtures.js';
import { connectHttp, listen, tool } from '../helpers/mcp.js';
import { Receiver } from '../helpers/receiver.js';

/** Deliveries of one agent in flight at once, whatever the number of instances. */
const CAP = MAX_IN_FLIGHT_PER_AGENT;
/** The webhook time-out of the quarantine tests. */
const TIMEOUT_MS = 1_500;
/** How many deliveries agent A has queued behind its dead endpoint. */
const QUEUED = 20;

/** Polls until `check` holds; the test's own time-out is the only bound (no timed assertion). */
async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let tries = 0; !(await check()); tries++) {
    // A bound only so a hang names what it waited for; the test's own time-out comes first.
    if (tries > 5_000) throw new Error(`never happened: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function deliveriesOf(t: TestApp, agent: TestAgent): Promise<Json[]> {
  return (await walk(t, agent, '/agents/webhooks/deliveries?limit=100', 'deliveries')).items;
}

async function agentWithHook(t: TestApp, receiver: Receiver, deposit = '100') {
  const agent = await createAgent(t, { deposit });
  await ok(t, agent, 'PATCH', '/agents/webhooks', { url: receiver.url });
  return agent;
}

describe('one agent with a dead endpoint does not stall the others', () => {
  let t: TestApp;
  let dead: Receiver;
  let live: Receiver;
  const closers: (() => Promise<void>)[] = [];
  beforeEach(async () => {
    // A's attempts stay unanswered for the whole test: only the receiver closing ends them.
    t = await createTestApp({ webhookTimeoutMs: 60_000 });
    dead = (await Receiver.start('/dead')).hang();
    live = await Receiver.start('/live');
  });
  afterEach(async () => {
    // The dead receiver closes first, so the attempts it holds end before the runners stop.
    await dead.close();
    for (const close of closers.splice(0).reverse()) await close();
    await live.close();
    await t.close();
  });

  it("B's event, made while A's deliveries hang, is delivered while they still hang; A never has more than the cap in flight", async () => {
    const a = await agentWithHook(t, dead);
    const b = await agentWithHook(t, live);
    for (let i = 0; i < QUEUED; i++) await createTask(t, a, { reward: '1', title: `A ${i}` });

    const jobs = startBackgroundJobs(t.ctx, t.app.log);
    closers.push(() => jobs.stop());
    await until(() => dead.requests.length >= 1, "A's first delivery reaches its dead endpoint");

    // B's event happens now, while the runner has A's attempts in flight.
    const task = await createTask(t, b, { reward: '1' });
    await until(() => live.requests.length === 1, "B's delivery");
    expect(live.webhooks()[0]).toMatchObject({ event: 'task.funded', data: { taskId: task.id } });

    // A's deliveries are all still stuck: none answered, none counted, and only the cap went out.
    expect(dead.requests.length).toBeLessThanOrEqual(CAP);
    const ofA = await deliveriesOf(t, a);
    expect(ofA).toHaveLength(QUEUED);
    expect(ofA.every((d) => d.status === 'pending' && d.attempts === 0)).toBe(true);
  });

  it('two instances sharing the database hold the cap together, and each sends other agents while A hangs', async () => {
    // A second instance: its own connection (pool, or SQLite handle) to the same database.
    const second = openDatabase({
      databaseUrl: t.config.databaseUrl,
      dataDir: t.config.dataDir,
      pgSchema: t.pgSchema,
    });
    closers.push(() => second.close());
    const other: DomainContext = { ...t.ctx, db: second.db };

    const a = await agentWithHook(t, dead);
    const b = await agentWithHook(t, live);
    const c = await agentWithHook(t, live);
    for (let i = 0; i < QUEUED; i++) await createTask(t, a, { reward: '1', title: `A ${i}` });
    await createTask(t, b, { reward: '1' });

    // Instance one: its pass lists A's backlog and B's delivery (older ones first).
    const first = dispatchDueDeliveries(t.ctx, t.ctx.webhooks);
    await until(() => live.requests.length === 1, "B's delivery from instance one");
    await until(() => dead.requests.length >= CAP, "A's deliveries in flight from instance one");

    // Instance two sees A at its cap in the database and sends C's delivery instead.
    await createTask(t, c, { reward: '1' });
    const secondPass = dispatchDueDeliveries(other, other.webhooks);
    await until(() => live.requests.length === 2, "C's delivery from instance two");
    expect(live.webhooks().map((w) => w.data.taskId)).toHaveLength(2);
    expect(dead.requests).toHaveLength(CAP);

    await dead.close();
    await Promise.all([first, secondPass]);
  });
});

describe('quarantine of an endpoint that keeps timing out', () => {
  let t: TestApp;
  let receiver: Receiver;
  beforeEach(async () => {
    // Long enough that a receiver that does answer is never taken for a silent one on a busy
    // machine; the silent one costs this per wave.
    t = await createTestApp({ webhookTimeoutMs: TIMEOUT_MS });
    receiver = (await Receiver.start()).hang();
  });
  afterEach(async () => {
    await receiver.close();
    await t.close();
  });

  const dispatch = () => dispatchDueDeliveries(t.ctx, t.ctx.webhooks);
  const endpoints = async (agent: TestAgent) =>
    (await ok(t, agent, 'GET', '/agents/webhooks/endpoints')).endpoints as Json[];

  it('holds the endpoint after repeated time-outs (an event, no attempts burned), probes once when it ends, then sends everything', async () => {
    const agent = await agentWithHook(t, receiver);
    const otherReceiver = await Receiver.start();
    const other = await agentWithHook(t, otherReceiver);
    await createTask(t, other, { reward: '1' });
    for (let i = 0; i < 10; i++) await createTask(t, agent, { reward: '1' });
    const origin = new URL(receiver.url).origin;

    // One wave of the cap times out: the endpoint is quarantined and the rest are held.
    await dispatch();
    expect(receiver.requests).toHaveLength(CAP);
    const [endpoint] = await endpoints(agent);
    expect(endpoint).toMatchObject({
      origin,
      state: 'quarantined',
      consecutiveTimeouts: CAP,
      quarantinedUntil: new Date(t.clock.now().getTime() + 60_000).toISOString(),
      lastError: `no answer within ${TIMEOUT_MS} ms`,
    });
    let log = await deliveriesOf(t, agent);
    const notice = log.filter((d) => d.event === 'webhook.endpoint_quarantined');
    expect(notice).toHaveLength(1);
    expect(endpoint.pendingDeliveries).toBe(11);
    expect(log.filter((d) => d.attempts === 1)).toHaveLength(CAP);
    expect(log.filter((d) => d.attempts === 0)).toHaveLength(11 - CAP);
    // Another agent's endpoint is not affected.
    expect(otherReceiver.requests).toHaveLength(1);
    expect(await endpoints(other)).toEqual([]);
    await otherReceiver.close();

    // Their retry time passes during the quarantine: nothing is sent, no attempt is counted.
    t.clock.advance(30_000);
    await dispatch();
    expect(receiver.requests).toHaveLength(CAP);
    log = await deliveriesOf(t, agent);
    expect(log.every((d) => d.status === 'pending')).toBe(true);
    expect(log.filter((d) => d.attempts === 1)).toHaveLength(CAP);

    // Still dead when the quarantine ends: one probe only, which times out; held again, longer.
    t.clock.advance(30_000);
    await dispatch();
    expect(receiver.requests).toHaveLength(CAP + 1);
    expect((await endpoints(agent))[0]).toMatchObject({
      state: 'quarantined',
      quarantinedUntil: new Date(t.clock.now().getTime() + 120_000).toISOString(),
    });
    // No second notice: the agent was told when the endpoint first went quiet.
    expect(
      (await deliveriesOf(t, agent)).filter((d) => d.event === 'webhook.endpoint_quarantined'),
    ).toHaveLength(1);

    // Fixed meanwhile: after the quarantine, the probe succeeds and everything goes out.
    receiver.respondWith(200);
    t.clock.advance(120_000);
    await dispatch();
    log = await deliveriesOf(t, agent);
    expect(log.every((d) => d.status === 'delivered')).toBe(true);
    expect(receiver.ofEvent('webhook.endpoint_quarantined').map((w) => w.data)).toEqual([
      expect.objectContaining({ origin, quarantinedUntil: expect.any(String) }),
    ]);
    // Held deliveries burned no attempt: the first wave and the failed probe took two attempts,
    // every delivery that was only held went out on its first.
    expect(log.filter((d) => d.attempts === 2)).toHaveLength(CAP + 1);
    expect(log.filter((d) => d.attempts === 1)).toHaveLength(11 - CAP - 1);
    expect((await endpoints(agent))[0]).toMatchObject({ state: 'healthy', consecutiveTimeouts: 0 });
  });

  it('the agent resumes a quarantined endpoint at once with POST /agents/webhooks/endpoints/resume', async () => {
    const agent = await agentWithHook(t, receiver);
    for (let i = 0; i < 5; i++) await createTask(t, agent, { reward: '1' });
    await dispatch();
    expect((await endpoints(agent))[0].state).toBe('quarantined');

    // Fixed, and the first wave's retries are due: the quarantine still holds them.
    receiver.respondWith(200);
    t.clock.advance(RETRY_DELAYS_MS[0]);
    await dispatch();
    expect(receiver.requests).toHaveLength(CAP);
    // Through MCP as through REST: the same endpoints, and the same resume.
    const client = await connectHttp(await listen(t), agent.apiKey);
    try {
      const listed = await tool(client, 'list_webhook_endpoints');
      expect(listed).toEqual({ endpoints: await endpoints(agent) });
      expect(listed.endpoints[0].state).toBe('quarantined');
      const resumed = await tool(client, 'resume_webhook_endpoints', {
        origin: new URL(receiver.url).origin,
      });
      expect(resumed.endpoints[0]).toMatchObject({ state: 'probing', quarantinedUntil: null });
    } finally {
      await client.close();
    }
    expect((await ok(t, agent, 'POST', '/agents/webhooks/endpoints/resume', {})).endpoints[0].state).toBe(
      'probing',
    );
    await dispatch();
    expect((await deliveriesOf(t, agent)).every((d) => d.status === 'delivered')).toBe(true);
    expect((await endpoints(agent))[0].state).toBe('healthy');
  });
});
