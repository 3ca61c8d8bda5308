import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.js';
import { createPeerApp, createTestApp, type PeerApp, type TestApp, workerAuth } from '../helpers/app.js';
import {
  assignedTask,
  createAgent,
  createWorker,
  type TestAgent,
  type TestWorker,
} from '../helpers/fixtures.js';
import { dropPrefix, keysUnder, TEST_REDIS_URL, testPrefix } from '../helpers/redis.js';
import { eventually, SseClient } from '../helpers/sse.js';

/**
 * Three instances of one service in one test process, as behind a load balancer: one database
 * (SQLite or TEST_DATABASE_URL's PostgreSQL), one chain, one Redis; each with its own fan-out,
 * limits and stream counts. What must be shared is counted once, and chat reaches every instance.
 */
const prefix = testPrefix();
let t: TestApp;
let peers: PeerApp[] = [];
/** A, B and C: their apps and listening addresses. */
let apps: FastifyInstance[] = [];
let bases: string[] = [];
const open: SseClient[] = [];

beforeAll(async () => {
  t = await createTestApp({ redis: { url: TEST_REDIS_URL, prefix } });
  peers = [await createPeerApp(t), await createPeerApp(t)];
  apps = [t.app, ...peers.map((p) => p.app)];
  bases = await Promise.all(apps.map((app) => app.listen({ port: 0, host: '127.0.0.1' })));
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
  await eventually(
    () => apps.every((app) => app.ctx.fanout.subscriberCount() === 0),
    3_000,
    'streams to end',
  );
});
afterAll(async () => {
  await Promise.all(peers.map((p) => p.close()));
  await t.close();
  await dropPrefix(prefix);
});

interface Message {
  id: string;
  content: string;
  createdAt: string;
}
type Side = TestAgent | TestWorker;
const isAgent = (side: Side): side is TestAgent => 'apiKey' in side;

async function stream(on: number, side: Side, taskId: string, lastEventId?: string) {
  const path = isAgent(side) ? `/chat/${taskId}/stream` : `/worker/chat/${taskId}/stream`;
  const client = await SseClient.open(`${bases[on]}${path}`, { headers: side.headers, lastEventId });
  open.push(client);
  return client;
}

/**
 * The status a new stream on instance `on` gets while the key's cap is reached on others. A Redis
 * command that misses its 500 ms deadline on a loaded machine makes that instance count alone
 * for a second (the designed fallback), so a 200 is retried after the fallback ends; a cap that
 * is not shared answers 200 every time and still fails.
 */
async function refusedHere(on: number, side: Side, taskId: string): Promise<number> {
  let status = 0;
  for (let attempt = 0; attempt < 4; attempt++) {
    const client = await stream(on, side, taskId);
    status = client.status;
    if (status === 429) return status;
    await client.close();
    await new Promise((resolve) => setTimeout(resolve, 1_100));
  }
  return status;
}

/** A stream that is subscribed (it answers only once its subscription is live). */
async function liveStream(on: number, side: Side, taskId: string, lastEventId?: string) {
  const client = await stream(on, side, taskId, lastEventId);
  expect(client.status, client.body).toBe(200);
  return client;
}

async function post(on: number, side: Side, taskId: string, content: string): Promise<Message> {
  const res = await apps[on]!.inject({
    method: 'POST',
    url: isAgent(side) ? `/chat/${taskId}/messages` : `/worker/chat/${taskId}/messages`,
    headers: side.headers,
    payload: { content },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().message;
}

/** The chat as the database has it, oldest first. */
async function stored(agent: TestAgent, taskId: string): Promise<Message[]> {
  const res = await t.app.inject({
    method: 'GET',
    url: `/chat/${taskId}/messages?limit=100`,
    headers: agent.headers,
  });
  expect(res.statusCode, res.body).toBe(200);
  return (res.json().messages as Message[]).reverse();
}

async function chat() {
  const agent = await createAgent(t, { deposit: '100' });
  const worker = await createWorker(t);
  const { taskId } = await assignedTask(t, agent, worker);
  return { agent, worker, taskId };
}

describe('limits are counted once across instances', () => {
  it('the per-key rate limit: requests through A, B and C share one budget', async () => {
    const agent = await createAgent(t);
    const limit = t.config.rateLimitStandard;
    for (let i = 1; i <= limit; i++) {
      const res = await apps[i % 3]!.inject({ method: 'GET', url: '/agents/me', headers: agent.headers });
      expect(res.statusCode, `request ${i}`).toBe(200);
      expect(Number(res.headers['x-ratelimit-remaining'])).toBe(limit - i);
    }
    for (const app of apps) {
      const refused = await app.inject({ method: 'GET', url: '/agents/me', headers: agent.headers });
      expect(refused.statusCode).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    }
    // The count lives in Redis under the deployment's prefix.
    expect(await keysUnder(`${prefix}limit:standard:agent:${agent.id}`)).toHaveLength(1);
  });

  it('the failed-authentication throttle: failures on every instance count for one address', async () => {
    const ip = '198.51.100.7';
    const wrong = { authorization: `Bearer hr_${'1'.repeat(64)}` };
    for (let i = 0; i < t.config.authFailureLimit; i++) {
      const res = await apps[i % 3]!.inject({
        method: 'GET',
        url: '/agents/me',
        headers: wrong,
        remoteAddress: ip,
      });
      expect(res.statusCode, `failure ${i + 1}`).toBe(401);
    }
    for (const app of apps) {
      const res = await app.inject({ method: 'GET', url: '/agents/me', headers: wrong, remoteAddress: ip });
      expect(res.statusCode).toBe(429);
      expect(res.json().error).toBe('Too many failed sign-in attempts');
    }
    // Another address is not affected on any instance.
    const other = await apps[1]!.inject({
      method: 'GET',
      url: '/agents/me',
      headers: wrong,
      remoteAddress: '198.51.100.8',
    });
    expect(other.statusCode).toBe(401);
  });

  it('the console sign-in limit: challenges from one address on A, B and C share its budget', async () => {
    const ip = '192.0.2.44';
    const limit = t.config.rateLimitStandard;
    let cookie = '';
    for (let i = 1; i <= limit; i++) {
      const res = await apps[i % 3]!.inject({
        method: 'POST',
        url: '/console/api/auth/challenge',
        remoteAddress: ip,
        headers: cookie ? { cookie } : {},
      });
      expect(res.statusCode, `${i}: ${res.body}`).toBe(200);
      expect(Number(res.headers['x-ratelimit-remaining'])).toBe(limit - i);
      cookie ||= String(res.headers['set-cookie']).split(';')[0]!;
    }
    const refused = await apps[0]!.inject({
      method: 'POST',
      url: '/console/api/auth/challenge',
      remoteAddress: ip,
      headers: { cookie },
    });
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error).toBe('Rate limit exceeded');
  });

  it('the stream cap: a key’s open streams on all instances count against one cap', async () => {
    const { agent, taskId } = await chat();
    const cap = t.config.sseMaxStreamsPerKey;
    const clients = [];
    for (let i = 0; i < cap; i++) clients.push(await liveStream(i % 3, agent, taskId));
    for (let on = 0; on < 3; on++) {
      expect(await refusedHere(on, agent, taskId), `instance ${on}`).toBe(429);
    }
    const refused = await stream(0, agent, taskId);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // Closing one on B frees a slot that C can use, and only one.
    await clients[1]!.close();
    let reopened: SseClient | undefined;
    for (let attempt = 0; attempt < 50 && !reopened; attempt++) {
      const client = await stream(2, agent, taskId);
      if (client.status === 200) reopened = client;
      else await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(reopened?.status).toBe(200);
    expect(await refusedHere(0, agent, taskId)).toBe(429);
  });
});

describe('chat across instances', () => {
  it('messages posted on A, B and C reach streams on every instance, each once and in order', async () => {
    const { agent, worker, taskId } = await chat();
    const streams = [
      await liveStream(1, agent, taskId),
      await liveStream(2, worker, taskId),
      await liveStream(0, worker, taskId),
    ];
    const sent = [];
    for (let i = 0; i < 26; i++) sent.push(await post(i % 3, i % 2 ? agent : worker, taskId, `message ${i}`));
    for (const client of streams) {
      await client.waitForEvents(26);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(client.messages<Message>().map((m) => m.content)).toEqual(sent.map((m) => m.content));
      expect(client.events.map((e) => e.id)).toEqual(sent.map((m) => m.id));
    }
  });

  it('concurrent posts on all three instances reach every stream once, in the stored order', async () => {
    const { agent, worker, taskId } = await chat();
    const streams = [0, 1, 2].map((on) => liveStream(on, on === 1 ? worker : agent, taskId));
    const clients = await Promise.all(streams);
    await Promise.all(
      Array.from({ length: 30 }, (_, i) => post(i % 3, i % 2 ? agent : worker, taskId, `burst ${i}`)),
    );
    const order = (await stored(agent, taskId)).map((m) => m.id);
    expect(order).toHaveLength(30);
    for (const client of clients) {
      await client.waitForEvents(30);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(client.events.map((e) => e.id)).toEqual(order);
    }
  });

  it('a client resuming on another instance with Last-Event-ID loses nothing (the issue’s 26 messages)', async () => {
    const { agent, worker, taskId } = await chat();
    const first = await liveStream(0, agent, taskId);
    const sent = [];
    for (let i = 0; i < 13; i++) sent.push(await post(i % 3, i % 2 ? agent : worker, taskId, `before ${i}`));
    await first.waitForEvents(13);
    await first.close();
    for (let i = 13; i < 26; i++) sent.push(await post(i % 3, i % 2 ? agent : worker, taskId, `after ${i}`));

    const resumed = await liveStream(1, agent, taskId, first.parser.lastEventId);
    await resumed.waitForEvents(13);
    const seen = [...first.events, ...resumed.events].map((e) => e.id);
    expect(seen).toEqual(sent.map((m) => m.id));
    // And the stream goes on live from there, on instance C's posts too.
    const live = await post(2, worker, taskId, 'live');
    await resumed.waitForEvents(14);
    expect(resumed.events.at(-1)?.id).toBe(live.id);
  });

  it('with B’s clock behind A’s, a message posted on B after one on A still comes after it (resume misses nothing)', async () => {
    const { agent, worker, taskId } = await chat();
    // B runs 5 s slow: its message would otherwise sort before A's earlier one and a client
    // resuming after A's message would never see it.
    const slowClock = new ManualClock(new Date(t.clock.now().getTime() - 5_000));
    const slow = await createPeerApp(t, { clock: slowClock });
    try {
      const client = await liveStream(0, agent, taskId);
      const onA = await post(0, agent, taskId, 'first, on A');
      await client.waitForEvents(1);
      await client.close();
      const res = await slow.app.inject({
        method: 'POST',
        url: `/worker/chat/${taskId}/messages`,
        headers: workerAuth(t, worker.telegramId),
        payload: { content: 'second, on the slow B' },
      });
      expect(res.statusCode, res.body).toBe(201);
      const onB: Message = res.json().message;
      expect(onB.createdAt >= onA.createdAt).toBe(true);
      expect((await stored(agent, taskId)).map((m) => m.id)).toEqual([onA.id, onB.id]);

      const resumed = await liveStream(2, agent, taskId, onA.id);
      await resumed.waitForEvents(1);
      expect(resumed.events.map((e) => e.id)).toEqual([onB.id]);
    } finally {
      await Promise.all(open.splice(0).map((c) => c.close()));
      await slow.close();
    }
  });
});

describe('stream leases', () => {
  it('an instance that shuts down gives its streams’ slots back at once (a rolling restart)', async () => {
    const { agent, taskId } = await chat();
    const leaving = await createPeerApp(t);
    const leavingBase = await leaving.app.listen({ port: 0, host: '127.0.0.1' });
    const held = [];
    for (let i = 0; i < t.config.sseMaxStreamsPerKey; i++) {
      const client = await SseClient.open(`${leavingBase}/chat/${taskId}/stream`, { headers: agent.headers });
      expect(client.status).toBe(200);
      held.push(client);
    }
    expect(await refusedHere(0, agent, taskId)).toBe(429);
    await leaving.close();
    await Promise.all(held.map((c) => c.closed));
    // No waiting for the 30 s lease: the slots were released on close.
    expect((await stream(0, agent, taskId)).status).toBe(200);
  });

  it('an instance that dies holding streams stops counting against the cap within one lease', async () => {
    const { RedisLink } = await import('../../src/redis/link.js');
    const { RedisStreamSlots } = await import('../../src/redis/streamSlots.js');
    const links = [new RedisLink(TEST_REDIS_URL, prefix), new RedisLink(TEST_REDIS_URL, prefix)];
    await Promise.all(links.map((l) => l.connect()));
    const leaseMs = 400;
    const [doomed, survivor] = links.map((l) => new RedisStreamSlots(l, leaseMs)) as [
      InstanceType<typeof RedisStreamSlots>,
      InstanceType<typeof RedisStreamSlots>,
    ];
    try {
      expect(await doomed.take('agent:agt_lease', 2)).not.toBeNull();
      const held = await survivor.take('agent:agt_lease', 2);
      expect(held).not.toBeNull();
      expect(await survivor.take('agent:agt_lease', 2)).toBeNull();
      // Renewals keep live slots past their first lease.
      await new Promise((resolve) => setTimeout(resolve, leaseMs * 2));
      expect(await survivor.take('agent:agt_lease', 2)).toBeNull();
      // The first instance dies without releasing anything: no renewals, no ZREM.
      doomed.stop();
      links[0]!.close();
      await new Promise((resolve) => setTimeout(resolve, leaseMs + 200));
      const freed = await survivor.take('agent:agt_lease', 2);
      expect(freed).not.toBeNull();
      expect(await survivor.take('agent:agt_lease', 2)).toBeNull();
    } finally {
      doomed.stop();
      survivor.stop();
      for (const l of links) l.close();
    }
  });
});
