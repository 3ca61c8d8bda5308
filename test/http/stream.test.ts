import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { expireOverdueTasks } from '../../src/domain/tasks/expiry.js';
import type { InProcessFanout } from '../../src/events/fanout.js';
import { KEEP_ALIVE_MS } from '../../src/http/sse.js';
import { createTestApp, type TestApp, workerAuth } from '../helpers/app.js';
import {
  assignedTask,
  createAgent,
  createWorker,
  type TestAgent,
  type TestWorker,
} from '../helpers/fixtures.js';
import { eventually, SseClient, SseParser } from '../helpers/sse.js';
import { applyTo, call } from '../helpers/workerApi.js';

let t: TestApp;
let base: string;
/** Every client a test opens; closed after each test so no stream outlives it. */
const open: SseClient[] = [];

beforeAll(async () => {
  t = await createTestApp();
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
  await eventually(() => fanout().subscriberCount() === 0, 3_000, 'all subscriptions to end');
});
afterAll(() => t.close());

const fanout = () => t.ctx.fanout as InProcessFanout;

interface Message {
  id: string;
  senderId: string;
  senderType: string;
  content: string;
  createdAt: string;
}

async function stream(side: TestAgent | TestWorker, taskId: string, lastEventId?: string) {
  const path = 'apiKey' in side ? `/chat/${taskId}/stream` : `/worker/chat/${taskId}/stream`;
  const client = await SseClient.open(`${base}${path}`, { headers: side.headers, lastEventId });
  open.push(client);
  return client;
}

/** Opens a stream and waits until its subscription is live (the handler subscribes after replay). */
async function liveStream(side: TestAgent | TestWorker, taskId: string, lastEventId?: string) {
  const before = fanout().subscriberCount(taskId);
  const client = await stream(side, taskId, lastEventId);
  expect(client.status, client.body).toBe(200);
  await eventually(() => fanout().subscriberCount(taskId) > before, 3_000, 'the stream to subscribe');
  return client;
}

async function send(side: TestAgent | TestWorker, taskId: string, content: string): Promise<Message> {
  const url = 'apiKey' in side ? `/chat/${taskId}/messages` : `/worker/chat/${taskId}/messages`;
  const res = await call(t, 'POST', url, side.headers, { content });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().message;
}

async function chatOf() {
  const agent = await createAgent(t, { deposit: '100' });
  const worker = await createWorker(t);
  const { taskId } = await assignedTask(t, agent, worker);
  return { agent, worker, taskId };
}

describe('the SSE parser of the test client', () => {
  it('parses ids, event types, multi-line data, comments and retry, across any chunk split', () => {
    const text =
      'retry: 3000\r\n\r\n: keep-alive\n\nid: msg_1\nevent: message\ndata: {"a":\ndata: 1}\n\n' +
      ':no-space comment\rdata:plain\r\rid: msg_2\nevent: other\ndata: x\n\nid: lone\n\n';
    for (const size of [1, 2, 3, 7, text.length]) {
      const parser = new SseParser();
      for (let i = 0; i < text.length; i += size) parser.feed(text.slice(i, i + size));
      expect(parser.retryMs).toBe(3000);
      expect(parser.comments).toEqual(['keep-alive', 'no-space comment']);
      expect(parser.events).toEqual([
        { id: 'msg_1', event: 'message', data: '{"a":\n1}' },
        { id: undefined, event: 'message', data: 'plain' },
        { id: 'msg_2', event: 'other', data: 'x' },
      ]);
      // An id-only block dispatches nothing but still moves the last event id.
      expect(parser.lastEventId).toBe('lone');
    }
  });
});

describe('GET /chat/:taskId/stream', () => {
  it('is text/event-stream and delivers a worker’s message to the agent as id/event/data', async () => {
    const { agent, worker, taskId } = await chatOf();
    const client = await liveStream(agent, taskId);
    expect(client.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(client.headers['cache-control']).toMatch(/no-cache/);

    const message = await send(worker, taskId, 'Hello from the field');
    const [event] = await client.waitForEvents(1);
    expect(event).toEqual({ id: message.id, event: 'message', data: JSON.stringify(message) });
    expect(JSON.parse(event!.data)).toEqual(message);
    expect(client.parser.lastEventId).toBe(message.id);
  });

  it('delivers the agent’s messages to the worker stream, and both sides see both', async () => {
    const { agent, worker, taskId } = await chatOf();
    const workerStream = await liveStream(worker, taskId);
    const agentStream = await liveStream(agent, taskId);
    expect(workerStream.headers['content-type']).toMatch(/^text\/event-stream/);
    const a = await send(agent, taskId, 'Please hurry');
    const w = await send(worker, taskId, 'Sure');
    await workerStream.waitForEvents(2);
    await agentStream.waitForEvents(2);
    expect(workerStream.messages()).toEqual([a, w]);
    expect(agentStream.messages()).toEqual([a, w]);
    expect(workerStream.events.map((e) => e.id)).toEqual([a.id, w.id]);
  });

  it('many subscribers on one chat all receive every message; other chats receive nothing', async () => {
    const { agent, worker, taskId } = await chatOf();
    const other = await chatOf();
    const clients = [];
    for (let i = 0; i < 6; i++) clients.push(await liveStream(agent, taskId));
    for (let i = 0; i < 4; i++) clients.push(await liveStream(worker, taskId));
    const bystander = await liveStream(other.agent, other.taskId);
    expect(fanout().subscriberCount(taskId)).toBe(10);

    const sent = [];
    for (let i = 0; i < 5; i++) sent.push(await send(i % 2 ? agent : worker, taskId, `broadcast ${i}`));
    for (const client of clients) {
      await client.waitForEvents(5);
      expect(client.messages()).toEqual(sent);
    }
    const own = await send(other.worker, other.taskId, 'mine');
    await bystander.waitForEvents(1);
    expect(bystander.messages()).toEqual([own]);
  });

  it('concurrently posted messages all reach an open stream, each once', async () => {
    const { agent, worker, taskId } = await chatOf();
    const client = await liveStream(agent, taskId);
    const sent = await Promise.all(
      Array.from({ length: 20 }, (_, i) => send(i % 2 ? agent : worker, taskId, `burst ${i}`)),
    );
    await client.waitForEvents(20);
    // Give a duplicate time to show up.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const ids = client.events.map((e) => e.id);
    expect(ids).toHaveLength(20);
    expect(new Set(ids)).toEqual(new Set(sent.map((m) => m.id)));
  });

  it('a reconnect with Last-Event-ID receives exactly the missed messages in order, then live ones', async () => {
    const { agent, worker, taskId } = await chatOf();
    const first = await liveStream(agent, taskId);
    const m1 = await send(worker, taskId, 'one');
    t.clock.advance(1000);
    const m2 = await send(worker, taskId, 'two');
    await first.waitForEvents(2);
    await first.close();

    // Missed while away: several at one instant (ties on createdAt) and one later.
    const missed = [
      await send(worker, taskId, 'three'),
      await send(agent, taskId, 'four'),
      await send(worker, taskId, 'five'),
    ];
    t.clock.advance(1000);
    missed.push(await send(agent, taskId, 'six'));

    const second = await liveStream(agent, taskId, first.parser.lastEventId);
    expect(first.parser.lastEventId).toBe(m2.id);
    await second.waitForEvents(missed.length);
    const live = await send(worker, taskId, 'seven');
    await second.waitForEvents(missed.length + 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(second.messages()).toEqual([...missed, live]);
    expect(second.messages().map((m) => m.id)).not.toContain(m1.id);
  });

  it('messages posted while a reconnect replays arrive once each, in order', async () => {
    const { agent, worker, taskId } = await chatOf();
    const anchor = await send(worker, taskId, 'anchor');
    const missed = [];
    for (let i = 0; i < 15; i++) missed.push(await send(i % 2 ? agent : worker, taskId, `missed ${i}`));

    const opening = SseClient.open(`${base}/worker/chat/${taskId}/stream`, {
      headers: worker.headers,
      lastEventId: anchor.id,
    });
    const during = [];
    for (let i = 0; i < 10; i++) during.push(await send(agent, taskId, `during ${i}`));
    const client = await opening;
    open.push(client);
    expect(client.status).toBe(200);
    await eventually(() => fanout().subscriberCount(taskId) === 1, 3_000, 'the stream to subscribe');
    const after = await send(agent, taskId, 'after');

    const all = [...missed, ...during, after];
    await client.waitForEvents(all.length);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(client.messages().map((m) => m.content)).toEqual(all.map((m) => m.content));
    expect(client.events.map((e) => e.id)).toEqual(all.map((m) => m.id));
  });

  it('an unknown or foreign Last-Event-ID replays nothing; the stream continues live', async () => {
    const { agent, worker, taskId } = await chatOf();
    const other = await chatOf();
    await send(worker, taskId, 'old');
    const foreign = await send(other.worker, other.taskId, 'elsewhere');
    for (const lastEventId of ['garbage', `msg_${'0'.repeat(40)}`, foreign.id]) {
      const client = await liveStream(agent, taskId, lastEventId);
      const live = await send(worker, taskId, `live after ${lastEventId}`);
      await client.waitForEvents(1);
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(client.messages()).toEqual([live]);
      await client.close();
      await eventually(() => fanout().subscriberCount(taskId) === 0, 3_000, 'unsubscribe');
    }
  });

  it('another agent’s stream is 403 and opens nothing; an unknown task 404; no key 401', async () => {
    const { taskId } = await chatOf();
    const intruder = await createAgent(t);
    const stranger = await createWorker(t);
    const cases: [string, Record<string, string>, number][] = [
      [`/chat/${taskId}/stream`, intruder.headers, 403],
      [`/worker/chat/${taskId}/stream`, stranger.headers, 404],
      [`/chat/tsk_${'0'.repeat(40)}/stream`, intruder.headers, 404],
      ['/chat/nope/stream', intruder.headers, 404],
      [`/chat/${taskId}/stream`, {}, 401],
      [`/worker/chat/${taskId}/stream`, {}, 401],
      [`/chat/${taskId}/stream`, { authorization: `Bearer hr_${'z'.repeat(64)}` }, 401],
    ];
    for (const [path, headers, status] of cases) {
      const client = await SseClient.open(`${base}${path}`, { headers });
      expect(client.status, `${path} ${client.body}`).toBe(status);
      expect(client.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(client.body).error).toEqual(expect.any(String));
      if (status === 403) expect(JSON.parse(client.body)).toEqual({ error: 'Access denied' });
      await client.closed;
      expect(fanout().subscriberCount()).toBe(0);
    }
  });

  it(`caps open streams per key at sseMaxStreamsPerKey; the next is 429 until one closes`, async () => {
    const cap = t.config.sseMaxStreamsPerKey;
    expect(cap).toBe(10);
    const { agent, worker, taskId } = await chatOf();
    const second = await assignedTask(t, agent, await createWorker(t));
    const clients = [];
    // The cap is per key, across the key's chats.
    for (let i = 0; i < cap; i++) clients.push(await liveStream(agent, i % 2 ? taskId : second.taskId));

    const refused = await stream(agent, taskId);
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body)).toMatchObject({
      error: expect.any(String),
      retryAfter: expect.any(Number),
    });
    expect(fanout().subscriberCount()).toBe(cap);

    // Another key (the worker) is not affected.
    const workerStream = await liveStream(worker, taskId);
    expect(workerStream.status).toBe(200);

    await clients.pop()!.close();
    let reopened: SseClient | undefined;
    await eventually(() => fanout().subscriberCount() === cap, 3_000, 'the closed stream to unsubscribe');
    for (let attempt = 0; attempt < 50 && !reopened; attempt++) {
      const client = await stream(agent, taskId);
      if (client.status === 200) reopened = client;
      else await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(reopened?.status).toBe(200);
    const again = await stream(agent, taskId);
    expect(again.status).toBe(429);

    const message = await send(worker, taskId, 'still flowing');
    await reopened!.waitForEvents(1);
    expect(reopened!.messages()).toEqual([message]);
  });

  it('subscriptions end when clients disconnect', async () => {
    const { agent, worker, taskId } = await chatOf();
    const clients = [];
    for (let i = 0; i < 5; i++) clients.push(await liveStream(i % 2 ? agent : worker, taskId));
    expect(fanout().subscriberCount(taskId)).toBe(5);
    await clients[0]!.close();
    await eventually(() => fanout().subscriberCount(taskId) === 4, 3_000, 'one unsubscribe');
    await Promise.all(clients.map((c) => c.close()));
    await eventually(() => fanout().subscriberCount() === 0, 3_000, 'all unsubscribed');
    expect(fanout().subscriberCount(taskId)).toBe(0);
    // The freed slots count: the full cap can be opened again by each key.
    for (let i = 0; i < t.config.sseMaxStreamsPerKey; i++) await liveStream(agent, taskId);
  });

  it(`sends a comment line every ${KEEP_ALIVE_MS / 1000} s to keep the connection alive`, async () => {
    const { agent, worker, taskId } = await chatOf();
    // Only the interval timers are faked, so sockets and the database run in real time.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const client = await liveStream(agent, taskId);
      expect(client.comments).toEqual([]);
      const first = client.nextComment();
      vi.advanceTimersByTime(KEEP_ALIVE_MS - 1);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(client.comments).toEqual([]);
      vi.advanceTimersByTime(1);
      expect(await first).toBe('keep-alive');
      const second = client.nextComment();
      vi.advanceTimersByTime(KEEP_ALIVE_MS);
      await second;
      expect(client.comments).toHaveLength(2);
      // Comments are not events, and do not disturb the events around them.
      const message = await send(worker, taskId, 'between pings');
      await client.waitForEvents(1);
      expect(client.messages()).toEqual([message]);
      await client.close();
      await eventually(() => fanout().subscriberCount() === 0, 3_000, 'unsubscribe');
      // The interval is cleared on close: nothing left to fire.
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('a task reassigned after its deadline', () => {
  it('the first worker’s open stream does not receive the new chat’s messages', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const first = await createWorker(t);
    const { taskId, chatId } = await assignedTask(t, agent, first, { executionDeadlineDays: 1 });
    const firstStream = await liveStream(first, taskId);
    const oldAgentStream = await liveStream(agent, taskId);
    const before = await send(first, taskId, 'working on it');
    await firstStream.waitForEvents(1);

    t.clock.advance(2 * 86_400_000);
    expect(await expireOverdueTasks(t.ctx)).toBe(1);
    const second = await createWorker(t);
    const application = await applyTo(t, second, taskId);
    const accepted = await call(t, 'PATCH', `/applications/${application.id}`, agent.headers, {
      status: 'ACCEPTED',
    });
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(accepted.json().chat.id).not.toBe(chatId);

    const newStream = await liveStream(agent, taskId);
    const secret = await send(second, taskId, 'private to the new chat');
    await newStream.waitForEvents(1);
    expect(newStream.messages()).toEqual([secret]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(firstStream.messages()).toEqual([before]);
    expect(oldAgentStream.messages()).toEqual([before]);
    // The first worker can no longer open the task's chat at all.
    const refused = await SseClient.open(`${base}/worker/chat/${taskId}/stream`, {
      headers: workerAuth(t, first.telegramId),
    });
    expect(refused.status).toBe(404);
  });
});

describe('shutdown', () => {
  it('closing the app ends open streams instead of waiting for them', async () => {
    const other = await createTestApp();
    let closed = false;
    const clients: SseClient[] = [];
    try {
      const otherBase = await other.app.listen({ port: 0, host: '127.0.0.1' });
      const agent = await createAgent(other, { deposit: '100' });
      const worker = await createWorker(other);
      const { taskId } = await assignedTask(other, agent, worker);
      clients.push(
        await SseClient.open(`${otherBase}/chat/${taskId}/stream`, { headers: agent.headers }),
        await SseClient.open(`${otherBase}/worker/chat/${taskId}/stream`, { headers: worker.headers }),
      );
      expect(clients.map((c) => c.status)).toEqual([200, 200]);
      const started = Date.now();
      const closing = other.app.close().then(() => 'closed');
      const outcome = await Promise.race([
        closing,
        new Promise((resolve) => setTimeout(() => resolve('still waiting'), 3_000)),
      ]);
      expect(outcome).toBe('closed');
      closed = true;
      expect(Date.now() - started).toBeLessThan(3_000);
      await Promise.all(clients.map((c) => c.closed));
      expect(clients.every((c) => c.isClosed)).toBe(true);
    } finally {
      // Should the app not end them, the clients do, so the close below cannot hang.
      await Promise.all(clients.map((c) => c.close()));
      // The app may already be closed; close() closes it (again) and removes its data.
      await other.close().catch((error) => {
        if (!closed) throw error;
      });
    }
  });
});
