import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPeerApp, createTestApp, type PeerApp, type TestApp } from '../helpers/app.js';
import {
  assignedTask,
  createAgent,
  createWorker,
  type TestAgent,
  type TestWorker,
} from '../helpers/fixtures.js';
import { dropPrefix, TcpProxy, TEST_REDIS_URL, testPrefix } from '../helpers/redis.js';
import { eventually, SseClient } from '../helpers/sse.js';

/**
 * Redis lost for real while two instances run: instance A reaches Redis through a TCP proxy the
 * test cuts and restores; instance B reaches it directly. Requests keep working, limits count
 * per instance for the outage (logged once), A's streams still get every message in order, and
 * all is shared again once Redis is back.
 */
const prefix = testPrefix();
const lines: { level: number; msg: string; component?: string }[] = [];
const logStream = new Writable({
  write(chunk, _encoding, callback) {
    for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
    callback();
  },
});
let proxy: TcpProxy;
let t: TestApp;
let b: PeerApp;
let apps: FastifyInstance[];
let bases: string[];
const open: SseClient[] = [];

beforeAll(async () => {
  proxy = await TcpProxy.start();
  t = await createTestApp({
    redis: { url: proxy.url(), prefix },
    logger: { level: 'info', stream: logStream },
  });
  b = await createPeerApp(t, { redisUrl: TEST_REDIS_URL });
  apps = [t.app, b.app];
  bases = await Promise.all(apps.map((app) => app.listen({ port: 0, host: '127.0.0.1' })));
});
afterAll(async () => {
  await Promise.all(open.map((c) => c.close()));
  await b.close();
  await t.close();
  await proxy.cut();
  await dropPrefix(prefix);
});

const A = 0;
const B = 1;
type Side = TestAgent | TestWorker;
const isAgent = (side: Side): side is TestAgent => 'apiKey' in side;

async function post(on: number, side: Side, taskId: string, content: string) {
  const res = await apps[on]!.inject({
    method: 'POST',
    url: isAgent(side) ? `/chat/${taskId}/messages` : `/worker/chat/${taskId}/messages`,
    headers: side.headers,
    payload: { content },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().message as { id: string; content: string };
}

const redisLines = () => lines.filter((l) => l.component === 'redis');

describe('Redis lost while running, then back', () => {
  it('requests go on, limits count per instance, streams miss nothing, and everything is shared again', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const worker = await createWorker(t);
    const { taskId } = await assignedTask(t, agent, worker);
    const stream = await SseClient.open(`${bases[A]}/chat/${taskId}/stream`, { headers: agent.headers });
    open.push(stream);
    expect(stream.status).toBe(200);
    const sent = [await post(B, worker, taskId, 'before the outage')];
    await stream.waitForEvents(1);
    const counted = await createAgent(t);
    const me = () => ({ method: 'GET' as const, url: '/agents/me', headers: counted.headers });
    const limit = t.config.rateLimitStandard;
    for (let i = 0; i < 3; i++) await apps[B]!.inject(me());

    await proxy.cut();
    // A request right after the cut is served without waiting on Redis.
    const started = Date.now();
    const during = await apps[A]!.inject(me());
    expect(during.statusCode).toBe(200);
    expect(Date.now() - started).toBeLessThan(1_500);
    // Limits do not fail open: A counts this key in its own memory (a fresh window here) ...
    expect(Number(during.headers['x-ratelimit-remaining'])).toBe(limit - 1);
    // ... while B, which still reaches Redis, goes on with the shared count (3 before).
    expect(Number((await apps[B]!.inject(me())).headers['x-ratelimit-remaining'])).toBe(limit - 4);
    // A stays in the balancer (it serves on its fallbacks) and says it is degraded.
    const readyA = await apps[A]!.inject({ method: 'GET', url: '/ready' });
    expect([readyA.statusCode, readyA.json()]).toEqual([200, { status: 'ready', redis: 'down' }]);
    expect((await apps[B]!.inject({ method: 'GET', url: '/ready' })).json()).toEqual({
      status: 'ready',
      redis: 'up',
    });

    // B's messages cannot reach A live now; A's own next message brings them, in order, first.
    sent.push(await post(B, worker, taskId, 'during 1'), await post(B, agent, taskId, 'during 2'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(stream.events).toHaveLength(1);
    sent.push(await post(A, agent, taskId, 'during 3, on A'));
    await stream.waitForEvents(4);
    expect(stream.events.map((e) => e.id)).toEqual(sent.map((m) => m.id));
    // More from B while A is still cut off: nothing on A posts after them.
    sent.push(await post(B, worker, taskId, 'during 4'), await post(B, worker, taskId, 'during 5'));

    await proxy.restore();
    // Back: A's subscription returns and its streams read what they missed from the database.
    await stream.waitForEvents(6, 8_000);
    expect(stream.events.map((e) => e.id)).toEqual(sent.map((m) => m.id));
    await eventually(
      () => redisLines().some((l) => l.msg.startsWith('Redis answers again')),
      5_000,
      'the recovery to be logged',
    );
    expect((await apps[A]!.inject({ method: 'GET', url: '/ready' })).statusCode).toBe(200);
    // The outage was logged once (warn), however many requests it touched, and its end once.
    const outage = redisLines();
    expect(outage.filter((l) => l.level === 40).map((l) => l.msg)).toEqual([
      expect.stringMatching(
        /^Redis is not answering: until it does, limits and stream caps count in this instance only/,
      ),
    ]);
    expect(outage.filter((l) => l.level === 30)).toHaveLength(1);

    // Shared again: A continues the count B kept in Redis (4 so far).
    const after = await apps[A]!.inject(me());
    expect(Number(after.headers['x-ratelimit-remaining'])).toBe(limit - 5);
    // And live fan-out from B to A works again.
    sent.push(await post(B, worker, taskId, 'after'));
    await stream.waitForEvents(7);
    expect(stream.events.map((e) => e.id)).toEqual(sent.map((m) => m.id));
  });

  it('Redis that hangs without closing costs a request at most one command timeout, then limits count here until it answers', async () => {
    const counted = await createAgent(t);
    const me = () => ({ method: 'GET' as const, url: '/agents/me', headers: counted.headers });
    const limit = t.config.rateLimitStandard;
    expect(Number((await apps[A]!.inject(me())).headers['x-ratelimit-remaining'])).toBe(limit - 1);
    const mark = lines.length;
    proxy.freeze();
    try {
      const times: number[] = [];
      for (let i = 0; i < 5; i++) {
        const started = Date.now();
        const res = await apps[A]!.inject(me());
        times.push(Date.now() - started);
        expect(res.statusCode).toBe(200);
      }
      // The first waits for the timeout (500 ms); the next ones do not try Redis at all.
      expect(times[0]).toBeLessThan(1_200);
      expect(Math.max(...times.slice(1))).toBeLessThan(200);
      const warned = lines.slice(mark).filter((l) => l.component === 'redis' && l.level === 40);
      expect(warned).toHaveLength(1);
    } finally {
      proxy.thaw();
    }
    // Once it answers again (tried a second after the failure), the count is the shared one: the
    // request before the freeze and the one whose command timed out but reached Redis late (the
    // four after it counted here only), and this one.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const shared = await apps[A]!.inject(me());
    expect(Number(shared.headers['x-ratelimit-remaining'])).toBe(limit - 3);
    await eventually(
      () => lines.slice(mark).some((l) => l.component === 'redis' && l.msg.startsWith('Redis answers again')),
      3_000,
      'the recovery to be logged',
    );
  });

  it('while Redis is cut off, streams still open and the stream cap holds per instance', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const worker = await createWorker(t);
    const { taskId } = await assignedTask(t, agent, worker);
    const cap = t.config.sseMaxStreamsPerKey;
    const mark = lines.length;
    await proxy.cut();
    try {
      for (let i = 0; i < cap; i++) {
        const client = await SseClient.open(`${bases[A]}/chat/${taskId}/stream`, { headers: agent.headers });
        open.push(client);
        expect(client.status, client.body).toBe(200);
      }
      const refused = await SseClient.open(`${bases[A]}/chat/${taskId}/stream`, { headers: agent.headers });
      expect(refused.status).toBe(429);
      // A message posted on A during the outage still reaches them.
      const message = await post(A, worker, taskId, 'cut off, still live here');
      for (const client of open.slice(-cap)) {
        await client.waitForEvents(1);
        expect(client.events.map((e) => e.id)).toEqual([message.id]);
      }
    } finally {
      await proxy.restore();
    }
    // Back: A records its streams in Redis at once, so B counts them too.
    await eventually(
      () => lines.slice(mark).some((l) => l.component === 'redis' && l.msg.startsWith('Redis answers again')),
      5_000,
      'Redis to be back',
    );
    let status = 200;
    for (let i = 0; i < 20 && status === 200; i++) {
      const client = await SseClient.open(`${bases[B]}/chat/${taskId}/stream`, { headers: agent.headers });
      open.push(client);
      status = client.status;
      if (status === 200) {
        await client.close();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    expect(status).toBe(429);
  });
});
