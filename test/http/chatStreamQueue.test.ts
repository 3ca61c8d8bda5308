import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChatByTask } from '../../src/db/repositories/chats.js';
import type { MessageRow } from '../../src/db/repositories/executor.js';
import type { PublishedMessage } from '../../src/events/fanout.js';
import { ChatStreamQueue } from '../../src/http/chatStreamQueue.js';
import { createTestApp, DIALECT, type TestApp } from '../helpers/app.js';
import { assignedTask, createAgent, createWorker } from '../helpers/fixtures.js';
import { eventually } from '../helpers/sse.js';
import { call } from '../helpers/workerApi.js';

/**
 * The stream's ordering against the real database, with the fan-out's delivery order as the
 * injected fault: instances' publications can arrive in any order, late, twice or not at all.
 */
describe(`chat stream order on ${DIALECT}`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  async function chatWithMessages(count: number) {
    const agent = await createAgent(t, { deposit: '100' });
    const worker = await createWorker(t);
    const { taskId } = await assignedTask(t, agent, worker);
    const published: PublishedMessage[] = [];
    const unsubscribe = await t.ctx.fanout.subscribe(taskId, {
      message: (p) => published.push(p),
      resync: () => {},
    });
    for (let i = 0; i < count; i++) {
      const res = await call(t, 'POST', `/chat/${taskId}/messages`, agent.headers, { content: `m${i}` });
      expect(res.statusCode, res.body).toBe(201);
    }
    unsubscribe();
    const chat = (await findChatByTask(t.ctx.db, taskId))!;
    return { chat, published };
  }

  function queueOf(chat: Awaited<ReturnType<typeof chatWithMessages>>['chat']) {
    const written: MessageRow[] = [];
    const queue = new ChatStreamQueue(
      t.ctx,
      chat,
      (m) => written.push(m),
      (error) => {
        throw error;
      },
    );
    return { queue, written };
  }

  it('each publication names its predecessor in the chat', async () => {
    const { published } = await chatWithMessages(4);
    expect(published.map((p) => p.previousId)).toEqual([
      null,
      ...published.slice(0, 3).map((p) => p.message.id),
    ]);
  });

  it('out of order, duplicated and missing deliveries still write every message once, in order', async () => {
    const { chat, published } = await chatWithMessages(6);
    const ids = published.map((p) => p.message.id);
    const { queue, written } = queueOf(chat);
    queue.start(null, false);
    const [m0, m1, m2, m3, , m5] = published;
    // m2 first (m0 and m1 missed): read from the database; then late and repeated ones; m4 never comes.
    for (const p of [m2, m0, m1, m2, m3, m5, m3]) queue.push(p!);
    await eventually(() => written.length >= 6, 3_000, 'all six');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(written.map((m) => m.id)).toEqual(ids);
  });

  it('in order, nothing is read from the database', async () => {
    const { chat, published } = await chatWithMessages(3);
    const { queue, written } = queueOf(chat);
    queue.start({ createdAt: published[0]!.message.created_at, id: published[0]!.message.id }, false);
    // The database is not asked: the row objects written are the very ones published.
    for (const p of published.slice(1)) queue.push(p);
    await eventually(() => written.length === 2, 3_000, 'two');
    for (const [i, message] of written.entries()) expect(message).toBe(published[i + 1]!.message);
  });
});
