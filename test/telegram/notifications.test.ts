import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { expireOverdueTasks } from '../../src/domain/tasks/expiry.js';
import { MESSAGE_BATCH_MS } from '../../src/domain/workers/notifications.js';
import { startBackgroundJobs } from '../../src/jobs.js';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS, sendDueNotifications } from '../../src/outbox/notifications.js';
import { createTelegramBot, telegramSettings } from '../../src/telegram/bot.js';
import type { TelegramSender } from '../../src/telegram/notifier.js';
import { ok } from '../helpers/agentApi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { closeBotApp, startBotApp } from '../helpers/botApp.js';
import { FakeTelegram } from '../helpers/fakeTelegram.js';
import {
  assignedTask,
  createAgent,
  createTask,
  createWorker,
  type TestAgent,
  type TestWorker,
} from '../helpers/fixtures.js';
import { applyTo, call, offerTo, taskEvents } from '../helpers/workerApi.js';

const DAY_MS = 86_400_000;

interface Listed {
  id: string;
  workerId: string;
  chatId: string;
  taskId: string | null;
  kind: string;
  text: string;
  buttons: { text: string; callbackData: string }[][];
  status: string;
  attempts: number;
  lastError: string | null;
  sentAt: string | null;
}

/** GET /admin/notifications with a query string; asserts 200. */
async function adminList(t: TestApp, query = '') {
  const res = await call(t, 'GET', `/admin/notifications${query}`, t.admin);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { notifications: Listed[]; nextCursor: string | null; hasMore: boolean };
}

async function notificationsOf(t: TestApp, worker: TestWorker) {
  return (await adminList(t, `?workerId=${worker.id}&limit=100`)).notifications;
}

function agentSays(t: TestApp, agent: TestAgent, taskId: string, content: string) {
  return ok(t, agent, 'POST', `/chat/${taskId}/messages`, { content }, 201);
}

describe('notifications through the Bot API', () => {
  let fake: FakeTelegram;
  let t: TestApp;
  let sender: TelegramSender;
  let agent: TestAgent;
  const deliver = () => sendDueNotifications(t.ctx, sender);
  const sentTo = (worker: TestWorker) => fake.sent().filter((m) => m.chatId === worker.telegramId);

  beforeAll(async () => {
    fake = await FakeTelegram.start();
    t = await createTestApp({ telegram: { apiRoot: fake.apiRoot } });
    const settings = telegramSettings(t.config);
    expect(settings).not.toBeNull();
    sender = createTelegramBot(t.ctx, settings!, t.app.log).sender;
    agent = await createAgent(t, { name: 'Photo <Bot> & Co', deposit: '1000' });
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });
  beforeEach(() => fake.clear());

  it('a direct offer reaches the worker’s chat with the title escaped and Accept / Decline buttons', async () => {
    const worker = await createWorker(t);
    const offer = await offerTo(t, agent, worker, { title: 'Fix <b>this</b> & that', reward: '2.5' });
    expect(fake.calls).toEqual([]); // the request itself never calls Telegram
    await deliver();
    const sent = sentTo(worker);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.parseMode).toBe('HTML');
    expect(sent[0]?.text).toBe(
      [
        '📩 <b>New offer</b> from Photo &lt;Bot&gt; &amp; Co',
        '<b>Fix &lt;b&gt;this&lt;/b&gt; &amp; that</b>',
        'Reward: <b>2.5\u00a0TON</b>',
        '',
        'Accept to take the task; its execution deadline starts when you accept.',
      ].join('\n'),
    );
    expect(sent[0]?.replyMarkup).toEqual({
      inline_keyboard: [
        [
          { text: '✅ Accept', callback_data: `offer:accept:${offer.task.id}` },
          { text: '✖️ Decline', callback_data: `offer:decline:${offer.task.id}` },
        ],
        [
          {
            text: 'Open in Handoff',
            web_app: { url: `${t.config.miniAppUrl}?startapp=task_${offer.task.id}` },
          },
        ],
      ],
    });
    const [row] = await notificationsOf(t, worker);
    expect(row).toMatchObject({
      kind: 'offer',
      status: 'sent',
      attempts: 1,
      chatId: String(worker.telegramId),
    });
    expect(row?.sentAt).toBe(t.clock.now().toISOString());
    // Sent once: a second run finds nothing due.
    await deliver();
    expect(sentTo(worker)).toHaveLength(1);
  });

  it('application accepted (with its deadline) and the other applicant rejected', async () => {
    const chosen = await createWorker(t);
    const other = await createWorker(t);
    const task = await createTask(t, agent, { title: 'Photograph the bridge', executionDeadlineDays: 2 });
    const mine = await applyTo(t, chosen, task.id);
    await applyTo(t, other, task.id);
    await ok(t, agent, 'PATCH', `/applications/${mine.id}`, { status: 'ACCEPTED' });
    const deadline = new Date(t.clock.now().getTime() + 2 * DAY_MS).toISOString();
    await deliver();
    expect(sentTo(chosen).map((m) => m.text)).toEqual([
      [
        '✅ Your application for <b>Photograph the bridge</b> was accepted: the task is yours.',
        // No time zone in the profile: the time in UTC, said so.
        `Deadline: ${new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(deadline))}, ${new Intl.DateTimeFormat('en', { timeStyle: 'short', timeZone: 'UTC' }).format(new Date(deadline))} UTC.`,
        'Open Handoff to chat with the agent.',
      ].join('\n'),
    ]);
    // The only button opens the task in the Mini App (a startapp deep link).
    expect(sentTo(chosen)[0]?.replyMarkup).toEqual({
      inline_keyboard: [
        [{ text: 'Open in Handoff', web_app: { url: `${t.config.miniAppUrl}?startapp=task_${task.id}` } }],
      ],
    });
    expect(sentTo(other)[0]?.replyMarkup).toBeUndefined();
    expect(sentTo(other).map((m) => m.text)).toEqual([
      'Your application for <b>Photograph the bridge</b> was not selected this time.',
    ]);
  });

  it('a burst of agent messages is one notification that says how many, after the batch window', async () => {
    const worker = await createWorker(t);
    const { taskId } = await assignedTask(t, agent, worker, { title: 'Count the <birds>' });
    await deliver();
    fake.clear();

    await agentSays(t, agent, taskId, 'First question');
    expect(await deliver()).toBe(0); // not due yet: more may follow
    t.clock.advance(10_000);
    await agentSays(t, agent, taskId, 'Second question');
    await agentSays(t, agent, taskId, 'And <one> more');
    expect(await deliver()).toBe(0);
    expect(sentTo(worker)).toEqual([]);

    t.clock.advance(MESSAGE_BATCH_MS - 10_000);
    await deliver();
    expect(sentTo(worker).map((m) => m.text)).toEqual([
      [
        '💬 3 new messages from Photo &lt;Bot&gt; &amp; Co about <b>Count the &lt;birds&gt;</b>. The latest:',
        'And &lt;one&gt; more',
      ].join('\n'),
    ]);
    const messages = (await notificationsOf(t, worker)).filter((n) => n.kind === 'message');
    expect(messages).toHaveLength(1);

    // Once that one went out, the next message starts a new batch.
    await agentSays(t, agent, taskId, 'Thanks');
    t.clock.advance(MESSAGE_BATCH_MS);
    await deliver();
    expect(sentTo(worker).map((m) => m.text)[1]).toBe(
      '💬 New message from Photo &lt;Bot&gt; &amp; Co about <b>Count the &lt;birds&gt;</b>:\nThanks',
    );
  });

  it('payment sent names the amount in TON and the transaction hash', async () => {
    const worker = await createWorker(t);
    const { taskId } = await assignedTask(t, agent, worker, { title: 'Deliver a letter', reward: '7.25' });
    await deliver();
    fake.clear();
    const done = await ok(t, agent, 'POST', `/tasks/${taskId}/complete`);
    const txHash = done.payment.txHash as string;
    expect(txHash).toEqual(expect.any(String));
    await deliver();
    expect(sentTo(worker).map((m) => m.text)).toEqual([
      `💸 Payment sent: <b>7.25\u00a0TON</b> for <b>Deliver a letter</b>.\nTransaction: <code>${txHash}</code>`,
    ]);
    // The same hash the agent's payment.sent event carries.
    const paid = (await taskEvents(t, taskId)).find((e) => e.type === 'payment.sent');
    expect(paid?.data).toMatchObject({ payment: { amount: '7.25', txHash } });
  });

  it('task expired reaches the worker whose deadline passed', async () => {
    const worker = await createWorker(t);
    await assignedTask(t, agent, worker, { title: 'Late job', executionDeadlineDays: 1 });
    await deliver();
    fake.clear();
    t.clock.advance(DAY_MS + 60_000);
    expect(await expireOverdueTasks(t.ctx)).toBeGreaterThanOrEqual(1);
    await deliver();
    expect(sentTo(worker).map((m) => m.text)).toEqual([
      '⌛ The execution deadline of <b>Late job</b> passed: the task is no longer assigned to you.',
    ]);
  });

  it('the request that causes a notification never waits for Telegram', async () => {
    const worker = await createWorker(t);
    await deliver();
    fake.clear();
    fake.hang();
    await offerTo(t, agent, worker, { title: 'First while hanging' });
    let sendingDone = false;
    const sending = deliver().then(() => {
      sendingDone = true;
    });
    // The sender is now stuck inside Telegram...
    await vi.waitFor(() => expect(fake.callsOf('sendMessage')).toHaveLength(1));
    // ...and a request that queues another notification still completes.
    const second = await call(t, 'POST', '/tasks', agent.headers, {
      title: 'Second while hanging',
      description: 'x',
      reward: '1',
      assignToUserId: worker.id,
    });
    expect(second.statusCode, second.body).toBe(201);
    expect(sendingDone).toBe(false);
    fake.release();
    await sending;
    await deliver();
    expect(sentTo(worker).map((m) => m.text.split('\n')[1])).toEqual([
      '<b>First while hanging</b>',
      '<b>Second while hanging</b>',
    ]);
  });
});

describe('retries', () => {
  let fake: FakeTelegram;
  let t: TestApp;
  let sender: TelegramSender;
  let agent: TestAgent;
  const deliver = () => sendDueNotifications(t.ctx, sender);
  const sentTo = (worker: TestWorker) => fake.sent().filter((m) => m.chatId === worker.telegramId);

  beforeAll(async () => {
    ({ fake, t, sender, agent } = await startBotApp({ name: 'Retry agent', deposit: '1000' }));
  });
  afterAll(() => closeBotApp({ t, fake }));
  beforeEach(async () => {
    await deliver(); // nothing left over from the previous test
    fake.clear();
  });

  it('failures (429, 500) are retried after 30 s and 2 min, then the message goes out once', async () => {
    expect(RETRY_DELAYS_MS).toEqual([30_000, 120_000, 600_000]);
    const worker = await createWorker(t);
    await offerTo(t, agent, worker, { title: 'Flaky' });
    fake.failNext(1, 429).failNext(1, 500);

    await deliver();
    let [row] = await notificationsOf(t, worker);
    expect(row).toMatchObject({ status: 'pending', attempts: 1 });
    expect(row?.lastError).toMatch(/429/);
    await deliver(); // not due again yet
    expect(sentTo(worker)).toHaveLength(1);

    t.clock.advance(30_000);
    await deliver();
    [row] = await notificationsOf(t, worker);
    expect(row).toMatchObject({ status: 'pending', attempts: 2, lastError: expect.stringMatching(/500/) });

    t.clock.advance(119_000);
    await deliver();
    expect(sentTo(worker)).toHaveLength(2);
    t.clock.advance(1_000);
    await deliver();
    [row] = await notificationsOf(t, worker);
    expect(row).toMatchObject({ status: 'sent', attempts: 3 });
    expect(sentTo(worker)).toHaveLength(3);
    expect(new Set(sentTo(worker).map((m) => m.text)).size).toBe(1);
  });

  it('after every attempt fails the notification is failed, with the last error, and not tried again', async () => {
    const worker = await createWorker(t);
    await offerTo(t, agent, worker);
    fake.failNext(MAX_ATTEMPTS, 500);
    await deliver();
    for (const delay of RETRY_DELAYS_MS) {
      t.clock.advance(delay);
      await deliver();
    }
    const [row] = await notificationsOf(t, worker);
    expect(row).toMatchObject({
      status: 'failed',
      attempts: MAX_ATTEMPTS,
      lastError: 'Telegram answered 500: Internal Server Error',
      sentAt: null,
    });
    t.clock.advance(DAY_MS);
    await deliver();
    expect(sentTo(worker)).toHaveLength(MAX_ATTEMPTS);
    expect((await adminList(t, `?status=failed&workerId=${worker.id}`)).notifications).toHaveLength(1);
  });

  it('a user who blocked the bot (403) is not retried', async () => {
    const worker = await createWorker(t);
    await offerTo(t, agent, worker);
    fake.failNext(1, 403);
    await deliver();
    const [row] = await notificationsOf(t, worker);
    expect(row).toMatchObject({
      status: 'failed',
      attempts: 1,
      lastError: 'Telegram answered 403: Forbidden: bot was blocked by the user',
    });
  });

  it('a Bot API that cannot be reached is retried like a failure', async () => {
    const worker = await createWorker(t);
    await offerTo(t, agent, worker);
    const unreachable = createTelegramBot(
      t.ctx,
      { ...telegramSettings(t.config)!, apiRoot: 'http://127.0.0.1:1' },
      t.app.log,
    ).sender;
    await sendDueNotifications(t.ctx, unreachable);
    const [row] = await notificationsOf(t, worker);
    expect(row).toMatchObject({ status: 'pending', attempts: 1 });
    expect(row?.lastError).toMatch(/sendMessage/);
    expect(row?.lastError).not.toContain(t.config.telegramBotToken);
  });

  it('the background jobs send due notifications on their own', async () => {
    const worker = await createWorker(t);
    const jobs = startBackgroundJobs(t.ctx, t.app.log, sender);
    try {
      await offerTo(t, agent, worker, { title: 'Sent by the loop' });
      await vi.waitFor(() => expect(sentTo(worker)).toHaveLength(1), { timeout: 10_000, interval: 100 });
    } finally {
      await jobs.stop();
    }
    expect(sentTo(worker)[0]?.text).toContain('<b>Sent by the loop</b>');
  });
});

describe('without a bot token', () => {
  let t: TestApp;
  let agent: TestAgent;

  beforeAll(async () => {
    t = await createTestApp();
    agent = await createAgent(t, { name: 'Quiet agent', deposit: '1000' });
  });
  afterAll(() => t.close());

  it('notifications are recorded, not sent, and the operator reads them at GET /admin/notifications', async () => {
    expect(t.config.telegramBotEnabled).toBe(false);
    expect(telegramSettings(t.config)).toBeNull();
    const worker = await createWorker(t);
    const offer = await offerTo(t, agent, worker, { title: 'Nobody is told', reward: '3' });
    expect(await sendDueNotifications(t.ctx, null)).toBe(1);
    const [row] = await notificationsOf(t, worker);
    expect(row).toEqual({
      id: expect.stringMatching(/^ntf_/),
      workerId: worker.id,
      workerName: expect.any(String),
      chatId: String(worker.telegramId),
      taskId: offer.task.id,
      kind: 'offer',
      text: expect.stringContaining('<b>Nobody is told</b>\nReward: <b>3\u00a0TON</b>'),
      buttons: [
        [
          { text: '✅ Accept', callbackData: `offer:accept:${offer.task.id}` },
          { text: '✖️ Decline', callbackData: `offer:decline:${offer.task.id}` },
        ],
      ],
      status: 'recorded',
      attempts: 0,
      lastError: null,
      nextAttemptAt: expect.any(String),
      sentAt: null,
      createdAt: expect.any(String),
    });
    expect(await sendDueNotifications(t.ctx, null)).toBe(0);
  });

  it('lists newest first, filtered by status and worker, page by page; operator token required', async () => {
    const worker = await createWorker(t);
    const { taskId } = await assignedTask(t, agent, worker, { title: 'Chatty' });
    await agentSays(t, agent, taskId, 'Hello there');
    await sendDueNotifications(t.ctx, null);
    // The chat message waits for its batch window: pending; the acceptance is recorded.
    const mine = await notificationsOf(t, worker);
    expect(mine.map((n) => [n.kind, n.status])).toEqual([
      ['message', 'pending'],
      ['application_accepted', 'recorded'],
    ]);
    expect(mine[0]?.text).toBe('💬 New message from Quiet agent about <b>Chatty</b>:\nHello there');
    t.clock.advance(MESSAGE_BATCH_MS);
    await sendDueNotifications(t.ctx, null);
    expect((await adminList(t, `?workerId=${worker.id}&status=pending`)).notifications).toEqual([]);

    const first = await adminList(t, '?limit=1');
    expect(first.notifications).toHaveLength(1);
    expect(first.hasMore).toBe(true);
    const second = await adminList(t, `?limit=1&cursor=${encodeURIComponent(first.nextCursor!)}`);
    expect(second.notifications[0]?.id).not.toBe(first.notifications[0]?.id);
    const all = (await adminList(t, '?limit=100')).notifications;
    expect(all.length).toBeGreaterThanOrEqual(3);
    expect(all.every((n) => n.status === 'recorded')).toBe(true);

    expect((await call(t, 'GET', '/admin/notifications')).statusCode).toBe(401);
    expect((await call(t, 'GET', '/admin/notifications?status=lost', t.admin)).statusCode).toBe(400);
    expect((await call(t, 'GET', '/admin/notifications?cursor=nonsense', t.admin)).statusCode).toBe(400);
  });
});
