import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, workerAuth } from '../helpers/app.js';
import {
  assignedTask,
  createAgent,
  createWorker,
  type TestAgent,
  type TestWorker,
} from '../helpers/fixtures.js';
import { call, offerTo, taskEvents } from '../helpers/workerApi.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

interface Message {
  id: string;
  senderId: string;
  senderType: 'USER' | 'AGENT';
  content: string;
  fileUrl: string | null;
  fileName: string | null;
  fileSize: number | null;
  mimeType: string | null;
  createdAt: string;
}

const UNKNOWN_TASK = `tsk_${'0'.repeat(40)}`;

const agentMessages = (_agent: TestAgent, taskId: string) => `/chat/${taskId}/messages`;
const workerMessages = (taskId: string) => `/worker/chat/${taskId}/messages`;

/** Posts as the agent (`side` agent) or the worker; returns the raw response. */
function post(side: TestAgent | TestWorker, taskId: string, body: Record<string, unknown>) {
  const url = 'apiKey' in side ? agentMessages(side, taskId) : workerMessages(taskId);
  return call(t, 'POST', url, side.headers, body);
}

async function postOk(side: TestAgent | TestWorker, taskId: string, body: Record<string, unknown>) {
  const res = await post(side, taskId, body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().message as Message;
}

async function chatsOf(side: TestAgent | TestWorker) {
  const url = 'apiKey' in side ? '/chats' : '/worker/chats';
  const res = await call(t, 'GET', url, side.headers);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().chats as {
    id: string;
    taskId: string;
    task: { title: string; status: string };
    user: { id: string; username: string | null; firstName: string };
    lastMessage: { content: string; senderType: string; createdAt: string } | null;
    closed: boolean;
    updatedAt: string;
  }[];
}

/** Uploads bytes through the signed-URL mode (JSON, then PUT) and returns the upload's answer. */
async function upload(side: TestAgent | TestWorker, filename: string, contentType: string, bytes: Buffer) {
  const url = 'apiKey' in side ? '/upload' : '/worker/upload';
  const signed = await call(t, 'POST', url, side.headers, { filename, contentType });
  expect(signed.statusCode, signed.body).toBe(200);
  const { uploadUrl } = signed.json() as { uploadUrl: string; fileUrl: string };
  const put = await t.app.inject({
    method: 'PUT',
    url: uploadUrl.slice(t.config.publicUrl.length),
    headers: { 'content-type': 'application/octet-stream' },
    payload: bytes,
  });
  expect(put.statusCode, put.body).toBe(200);
  return put.json() as { fileUrl: string; fileName: string; fileSize: number; mimeType: string };
}

/** Walks GET .../messages page by page; checks the page invariants on the way. */
async function walkMessages(url: string, headers: Record<string, string>, limit: number) {
  const all: Message[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const query: string = `?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const res = await call(t, 'GET', `${url}${query}`, headers);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as { messages: Message[]; nextCursor: string | null; hasMore: boolean };
    expect(body.messages.length).toBeLessThanOrEqual(limit);
    expect(body.hasMore).toBe(body.nextCursor !== null);
    if (body.nextCursor !== null) {
      // The cursor is a message id: the last message of the page.
      expect(body.messages.length).toBe(limit);
      expect(body.nextCursor).toBe(body.messages[body.messages.length - 1]!.id);
    }
    all.push(...body.messages);
    cursor = body.nextCursor;
    pages++;
    expect(pages).toBeLessThan(100);
  } while (cursor);
  return { all, pages };
}

describe('a chat per task', () => {
  it('apply + accept opens one chat for the task, visible to both sides and empty', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const worker = await createWorker(t, { firstName: 'Wanda' });
    const { taskId, chatId } = await assignedTask(t, agent, worker, { title: 'Photo of a bridge' });
    expect(chatId).toMatch(/^cht_/);

    const agentChats = await chatsOf(agent);
    expect(agentChats).toHaveLength(1);
    expect(agentChats[0]).toMatchObject({
      id: chatId,
      taskId,
      task: { title: 'Photo of a bridge', status: 'ASSIGNED' },
      user: { id: worker.id, firstName: 'Wanda' },
      lastMessage: null,
      closed: false,
    });
    const workerChats = await chatsOf(worker);
    expect(workerChats.map((c) => c.id)).toEqual([chatId]);

    for (const [url, headers] of [
      [agentMessages(agent, taskId), agent.headers],
      [workerMessages(taskId), worker.headers],
    ] as const) {
      const res = await call(t, 'GET', url, headers);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ messages: [], nextCursor: null, hasMore: false });
    }
  });

  it('a direct offer has no chat until accepted: GET and POST are 404 for both sides, then 200/201', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const worker = await createWorker(t);
    const { task } = await offerTo(t, agent, worker);

    for (const [url, headers] of [
      [agentMessages(agent, task.id), agent.headers],
      [workerMessages(task.id), worker.headers],
    ] as const) {
      const get = await call(t, 'GET', url, headers);
      expect(get.statusCode, get.body).toBe(404);
      expect(get.json().error).toEqual(expect.any(String));
      const sent = await call(t, 'POST', url, headers, { content: 'hello?' });
      expect(sent.statusCode, sent.body).toBe(404);
    }
    expect(await chatsOf(agent)).toEqual([]);
    expect(await chatsOf(worker)).toEqual([]);

    const accepted = await call(t, 'POST', `/worker/offers/${task.id}/accept`, worker.headers);
    expect(accepted.statusCode, accepted.body).toBe(200);
    const chatId = accepted.json().chat.id as string;
    expect(chatId).toMatch(/^cht_/);
    expect((await chatsOf(agent)).map((c) => [c.id, c.taskId])).toEqual([[chatId, task.id]]);
    expect((await chatsOf(worker)).map((c) => c.id)).toEqual([chatId]);

    const sent = await postOk(agent, task.id, { content: 'Welcome aboard' });
    const read = await call(t, 'GET', workerMessages(task.id), worker.headers);
    expect(read.statusCode).toBe(200);
    expect(read.json().messages).toEqual([sent]);
  });

  it('an unknown task is 404, a missing or bad key 401', async () => {
    const agent = await createAgent(t);
    expect((await call(t, 'GET', agentMessages(agent, UNKNOWN_TASK), agent.headers)).statusCode).toBe(404);
    expect(
      (await call(t, 'POST', agentMessages(agent, UNKNOWN_TASK), agent.headers, { content: 'x' })).statusCode,
    ).toBe(404);
    expect((await call(t, 'GET', '/chats')).statusCode).toBe(401);
    expect((await call(t, 'GET', agentMessages(agent, UNKNOWN_TASK))).statusCode).toBe(401);
    const badKey = { authorization: `Bearer hr_${'x'.repeat(64)}` };
    expect(
      (await call(t, 'POST', agentMessages(agent, UNKNOWN_TASK), badKey, { content: 'x' })).statusCode,
    ).toBe(401);
    expect((await call(t, 'GET', '/worker/chats')).statusCode).toBe(401);
  });
});

describe('messages', () => {
  let agent: TestAgent;
  let worker: TestWorker;
  let taskId: string;
  beforeAll(async () => {
    agent = await createAgent(t, { deposit: '100' });
    worker = await createWorker(t);
    ({ taskId } = await assignedTask(t, agent, worker));
  });

  it('a message comes back with its fields, newest first, to both sides', async () => {
    const postedAt = t.clock.now().toISOString();
    const first = await postOk(agent, taskId, { content: 'Please take a photo' });
    t.clock.advance(1000);
    const second = await postOk(worker, taskId, { content: 'On my way' });
    expect(first).toEqual({
      id: expect.stringMatching(/^msg_/),
      senderId: agent.id,
      senderType: 'AGENT',
      content: 'Please take a photo',
      fileUrl: null,
      fileName: null,
      fileSize: null,
      mimeType: null,
      createdAt: postedAt,
    });
    expect(second).toMatchObject({ senderId: worker.id, senderType: 'USER', content: 'On my way' });
    expect(Date.parse(second.createdAt) - Date.parse(first.createdAt)).toBe(1000);
    expect(second.createdAt).toBe(t.clock.now().toISOString());

    for (const [url, headers] of [
      [agentMessages(agent, taskId), agent.headers],
      [workerMessages(taskId), worker.headers],
    ] as const) {
      const res = await call(t, 'GET', url, headers);
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.messages.slice(0, 2)).toEqual([second, first]);
      expect(body.hasMore).toBe(false);
      expect(body.nextCursor).toBeNull();
    }
  });

  it('content may be 4000 characters, not 4001; empty or blank content without a file is 400', async () => {
    const max = 'é'.repeat(4000);
    expect((await postOk(agent, taskId, { content: max })).content).toBe(max);
    const before = (await call(t, 'GET', agentMessages(agent, taskId), agent.headers)).json().messages;
    for (const body of [{ content: 'x'.repeat(4001) }, { content: '' }, { content: '   \n\t' }, {}]) {
      for (const side of [agent, worker]) {
        const res = await post(side, taskId, body);
        expect(res.statusCode, JSON.stringify(body)).toBe(400);
        expect(res.json().error).toEqual(expect.any(String));
      }
    }
    const after = (await call(t, 'GET', agentMessages(agent, taskId), agent.headers)).json().messages;
    expect(after).toEqual(before);
  });

  it('a file message may have empty content; its attachment fields come from the stored upload', async () => {
    const bytes = randomBytes(3000);
    const uploaded = await upload(worker, 'receipt.pdf', 'application/pdf', bytes);
    expect(uploaded).toMatchObject({ fileName: 'receipt.pdf', fileSize: 3000, mimeType: 'application/pdf' });

    const message = await postOk(worker, taskId, {
      content: '',
      fileUrl: uploaded.fileUrl,
      // Claims that disagree with the stored file are ignored.
      fileName: 'invoice.exe',
      fileSize: 1,
      mimeType: 'application/x-msdownload',
    });
    expect(message).toMatchObject({
      senderType: 'USER',
      content: '',
      fileUrl: uploaded.fileUrl,
      fileName: 'receipt.pdf',
      fileSize: 3000,
      mimeType: 'application/pdf',
    });
    const listed = (await call(t, 'GET', `${agentMessages(agent, taskId)}?limit=1`, agent.headers)).json();
    expect(listed.messages).toEqual([message]);

    // The agent can attach its own upload too, with a caption.
    const image = await upload(agent, 'map.png', 'image/png', randomBytes(10));
    const captioned = await postOk(agent, taskId, { content: 'Here', fileUrl: image.fileUrl });
    expect(captioned).toMatchObject({
      content: 'Here',
      fileName: 'map.png',
      fileSize: 10,
      mimeType: 'image/png',
    });
  });

  it('a fileUrl that is not one of our stored uploads is 400 and writes nothing', async () => {
    const pending = await call(t, 'POST', '/upload', agent.headers, {
      filename: 'never-sent.png',
      contentType: 'image/png',
    });
    expect(pending.statusCode).toBe(200);
    const stored = await upload(agent, 'real.png', 'image/png', randomBytes(5));
    const storedId = stored.fileUrl.split('/files/')[1]!.split('/')[0]!;
    const before = (await call(t, 'GET', agentMessages(agent, taskId), agent.headers)).json().messages;
    for (const fileUrl of [
      'https://evil.example/files/upl_00000000000000000000000000/x.png',
      `https://evil.example/files/${storedId}/real.png`,
      `${t.config.publicUrl}/files/upl_${'0'.repeat(40)}/x.png`,
      `${t.config.publicUrl}/files/not-an-id/x.png`,
      // Uploaded-but-never-PUT: the URL exists, the file does not.
      pending.json().fileUrl as string,
      'not a url',
    ]) {
      for (const content of ['', 'look']) {
        const res = await post(agent, taskId, { content, fileUrl });
        expect(res.statusCode, `${fileUrl} ${res.body}`).toBe(400);
      }
    }
    const after = (await call(t, 'GET', agentMessages(agent, taskId), agent.headers)).json().messages;
    expect(after).toEqual(before);
  });

  it('only the sender’s own uploads may be attached: the other party’s, another agent’s or another worker’s are 400 and write nothing', async () => {
    const otherAgent = await createAgent(t);
    const otherWorker = await createWorker(t);
    const workersFile = await upload(worker, 'worker.jpg', 'image/jpeg', randomBytes(8));
    const agentsFile = await upload(agent, 'agent.png', 'image/png', randomBytes(8));
    const otherAgentsFile = await upload(otherAgent, 'other.png', 'image/png', randomBytes(8));
    const otherWorkersFile = await upload(otherWorker, 'other.jpg', 'image/jpeg', randomBytes(8));
    const before = (await call(t, 'GET', agentMessages(agent, taskId), agent.headers)).json().messages;
    for (const [side, fileUrl] of [
      [agent, workersFile.fileUrl],
      [agent, otherAgentsFile.fileUrl],
      [agent, otherWorkersFile.fileUrl],
      [worker, agentsFile.fileUrl],
      [worker, otherAgentsFile.fileUrl],
      [worker, otherWorkersFile.fileUrl],
    ] as const) {
      const res = await post(side, taskId, { content: 'see attached', fileUrl });
      expect(res.statusCode, `${fileUrl} ${res.body}`).toBe(400);
      expect(res.json()).toEqual({
        error: 'Validation failed',
        details: [
          {
            path: 'fileUrl',
            message: 'must be a file you uploaded yourself (upload it with POST /upload first)',
          },
        ],
      });
    }
    const after = (await call(t, 'GET', agentMessages(agent, taskId), agent.headers)).json().messages;
    expect(after).toEqual(before);
    // Each side's own file is still fine.
    await postOk(agent, taskId, { content: '', fileUrl: agentsFile.fileUrl });
    await postOk(worker, taskId, { content: '', fileUrl: workersFile.fileUrl });
  });

  it('agent B is refused 403 on agent A’s chat; another worker gets 404', async () => {
    const other = await createAgent(t);
    const stranger = await createWorker(t);
    const get = await call(t, 'GET', agentMessages(other, taskId), other.headers);
    expect(get.statusCode).toBe(403);
    expect(get.json()).toEqual({ error: 'Access denied' });
    const sent = await post(other, taskId, { content: 'hijack' });
    expect(sent.statusCode).toBe(403);
    expect(sent.json()).toEqual({ error: 'Access denied' });

    expect((await call(t, 'GET', workerMessages(taskId), stranger.headers)).statusCode).toBe(404);
    expect((await post(stranger, taskId, { content: 'hijack' })).statusCode).toBe(404);
    expect(await chatsOf(other)).toEqual([]);
    expect(await chatsOf(stranger)).toEqual([]);

    const all = (await call(t, 'GET', `${agentMessages(agent, taskId)}?limit=100`, agent.headers)).json();
    expect(all.messages.map((m: Message) => m.content)).not.toContain('hijack');
  });

  it('a bad cursor or limit is 400', async () => {
    const otherAgent = await createAgent(t, { deposit: '100' });
    const otherWorker = await createWorker(t);
    const other = await assignedTask(t, otherAgent, otherWorker);
    const foreign = await postOk(otherAgent, other.taskId, { content: 'elsewhere' });
    for (const cursor of [
      'abc',
      `msg_${'0'.repeat(40)}`,
      foreign.id,
      taskId,
      Buffer.from('["2030-01-01T00:00:00.000Z","msg_x"]').toString('base64url'),
    ]) {
      const res = await call(
        t,
        'GET',
        `${agentMessages(agent, taskId)}?cursor=${encodeURIComponent(cursor)}`,
        agent.headers,
      );
      expect(res.statusCode, cursor).toBe(400);
      expect(res.json().error).toEqual(expect.any(String));
    }
    for (const limit of ['0', '101', 'x', '-1']) {
      const res = await call(t, 'GET', `${workerMessages(taskId)}?limit=${limit}`, worker.headers);
      expect(res.statusCode, limit).toBe(400);
    }
  });
});

describe('pagination', () => {
  it('walking every page (limit 7) returns each of 120 messages exactly once, newest first', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const worker = await createWorker(t);
    const { taskId } = await assignedTask(t, agent, worker);
    const sent: Message[] = [];
    for (let i = 0; i < 120; i++) {
      // A new rate-limit window every 20 messages; time moves on every 5th, so many messages
      // share a createdAt (ties broken by id) and many do not.
      if (i > 0 && i % 20 === 0) {
        t.clock.advance(61_000);
        worker.headers = workerAuth(t, worker.telegramId);
      } else if (i % 5 === 0) t.clock.advance(1 + (i % 3));
      sent.push(await postOk(i % 3 === 0 ? worker : agent, taskId, { content: `message ${i}` }));
    }
    const createdAts = new Set(sent.map((m) => m.createdAt));
    expect(createdAts.size).toBeGreaterThan(10);
    expect(createdAts.size).toBeLessThan(60);

    const expected = [...sent].reverse();
    const fromAgent = await walkMessages(agentMessages(agent, taskId), agent.headers, 7);
    expect(fromAgent.pages).toBe(Math.ceil(120 / 7));
    expect(new Set(fromAgent.all.map((m) => m.id)).size).toBe(120);
    expect(fromAgent.all).toEqual(expected);
    const fromWorker = await walkMessages(workerMessages(taskId), worker.headers, 7);
    expect(fromWorker.all.map((m) => m.id)).toEqual(expected.map((m) => m.id));

    // A page boundary that falls inside a run of equal createdAt still continues correctly.
    const page1 = (await call(t, 'GET', `${agentMessages(agent, taskId)}?limit=3`, agent.headers)).json();
    expect(page1.messages.map((m: Message) => m.content)).toEqual([
      'message 119',
      'message 118',
      'message 117',
    ]);
    const page2 = (
      await call(
        t,
        'GET',
        `${agentMessages(agent, taskId)}?limit=3&cursor=${page1.nextCursor}`,
        agent.headers,
      )
    ).json();
    expect(page2.messages.map((m: Message) => m.content)).toEqual([
      'message 116',
      'message 115',
      'message 114',
    ]);

    // Default page size is 50; the maximum 100.
    const defaults = (await call(t, 'GET', agentMessages(agent, taskId), agent.headers)).json();
    expect(defaults.messages).toHaveLength(50);
    expect(defaults.hasMore).toBe(true);
    const max = (await call(t, 'GET', `${agentMessages(agent, taskId)}?limit=100`, agent.headers)).json();
    expect(max.messages).toEqual(expected.slice(0, 100));
  });
});

describe('a cancelled task', () => {
  it('keeps its chat readable (200) but refuses new messages from both sides with 409', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const worker = await createWorker(t);
    const { taskId, chatId } = await assignedTask(t, agent, worker);
    const before = await postOk(worker, taskId, { content: 'Started' });
    const refund = await call(t, 'POST', `/tasks/${taskId}/refund`, agent.headers, {
      reason: 'changed plans',
    });
    expect(refund.statusCode, refund.body).toBe(200);

    for (const side of [agent, worker]) {
      const res = await post(side, taskId, { content: 'still there?' });
      expect(res.statusCode, res.body).toBe(409);
      expect(res.json().error).toEqual(expect.any(String));
    }
    for (const [url, headers] of [
      [agentMessages(agent, taskId), agent.headers],
      [workerMessages(taskId), worker.headers],
    ] as const) {
      const res = await call(t, 'GET', url, headers);
      expect(res.statusCode).toBe(200);
      expect(res.json().messages).toEqual([before]);
    }
    const [chat] = await chatsOf(agent);
    expect(chat).toMatchObject({ id: chatId, task: { status: 'CANCELLED' }, closed: true });
    expect((await chatsOf(worker))[0]).toMatchObject({ id: chatId, closed: true });
    expect((await taskEvents(t, taskId)).filter((e) => e.type === 'message.received')).toHaveLength(1);
  });
});

describe('chat lists', () => {
  it('GET /chats shows task, user, lastMessage and updatedAt, most recently active first', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const w1 = await createWorker(t, { firstName: 'Ann' });
    const w2 = await createWorker(t, { firstName: 'Bob' });
    const w3 = await createWorker(t, { firstName: 'Cy' });
    const c1 = await assignedTask(t, agent, w1, { title: 'First' });
    t.clock.advance(1000);
    const c2 = await assignedTask(t, agent, w2, { title: 'Second' });
    t.clock.advance(1000);
    const c3 = await assignedTask(t, agent, w3, { title: 'Third' });
    t.clock.advance(1000);

    let chats = await chatsOf(agent);
    expect(chats.map((c) => c.id)).toEqual([c3.chatId, c2.chatId, c1.chatId]);
    expect(chats.every((c) => c.lastMessage === null)).toBe(true);

    // Activity in the oldest chat moves it to the top.
    const fromWorker = await postOk(w1, c1.taskId, { content: 'Done with the first' });
    t.clock.advance(1000);
    chats = await chatsOf(agent);
    expect(chats.map((c) => c.id)).toEqual([c1.chatId, c3.chatId, c2.chatId]);
    expect(chats[0]).toEqual({
      id: c1.chatId,
      taskId: c1.taskId,
      task: { title: 'First', status: 'ASSIGNED' },
      user: { id: w1.id, username: null, firstName: 'Ann' },
      agent: { id: agent.id, name: 'Test agent' },
      lastMessage: { content: 'Done with the first', senderType: 'USER', createdAt: fromWorker.createdAt },
      closed: false,
      updatedAt: fromWorker.createdAt,
    });

    const fromAgent = await postOk(agent, c2.taskId, { content: 'How is the second going?' });
    chats = await chatsOf(agent);
    expect(chats.map((c) => c.id)).toEqual([c2.chatId, c1.chatId, c3.chatId]);
    expect(chats[0]!.lastMessage).toEqual({
      content: 'How is the second going?',
      senderType: 'AGENT',
      createdAt: fromAgent.createdAt,
    });
    expect(chats[0]!.updatedAt).toBe(fromAgent.createdAt);

    // Each worker sees only the own chat.
    const w2Chats = await chatsOf(w2);
    expect(w2Chats.map((c) => c.id)).toEqual([c2.chatId]);
    expect(w2Chats[0]!.lastMessage?.content).toBe('How is the second going?');
  });
});

describe('message.received', () => {
  it('is recorded in the outbox for worker messages only, with chatId, taskId, messageId, content, hasFile', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const worker = await createWorker(t);
    const { taskId, chatId } = await assignedTask(t, agent, worker);
    const eventsBefore = await taskEvents(t, taskId);

    await postOk(agent, taskId, { content: 'From the agent' });
    const text = await postOk(worker, taskId, { content: 'From the worker' });
    const file = await upload(worker, 'photo.jpg', 'image/jpeg', randomBytes(64));
    const withFile = await postOk(worker, taskId, { content: '', fileUrl: file.fileUrl });

    const added = (await taskEvents(t, taskId)).slice(eventsBefore.length);
    expect(added).toEqual([
      {
        type: 'message.received',
        agentId: agent.id,
        data: { chatId, taskId, messageId: text.id, content: 'From the worker', hasFile: false },
      },
      {
        type: 'message.received',
        agentId: agent.id,
        data: { chatId, taskId, messageId: withFile.id, content: '', hasFile: true },
      },
    ]);
  });

  it('a refused message records no event', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const worker = await createWorker(t);
    const { taskId } = await assignedTask(t, agent, worker);
    const before = await taskEvents(t, taskId);
    expect((await post(worker, taskId, { content: 'x'.repeat(4001) })).statusCode).toBe(400);
    expect((await post(worker, taskId, { content: '' })).statusCode).toBe(400);
    expect(await taskEvents(t, taskId)).toEqual(before);
  });
});
