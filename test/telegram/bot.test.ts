import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { FakeTelegram } from '../helpers/fakeTelegram.js';
import {
  createAgent,
  createWorker,
  expectBooksBalanced,
  type TestAgent,
  type TestWorker,
} from '../helpers/fixtures.js';
import { agentTask, call, offerTo, taskEvents } from '../helpers/workerApi.js';

const DAY_MS = 86_400_000;
const BOT_ID = 100000;

let fake: FakeTelegram;
let t: TestApp;
let agent: TestAgent;
let nextUpdateId = 1;

beforeAll(async () => {
  fake = await FakeTelegram.start();
  t = await createTestApp({ telegram: { apiRoot: fake.apiRoot } });
  agent = await createAgent(t, { name: 'Button agent', deposit: '1000' });
});
afterAll(async () => {
  await t.close();
  await fake.close();
});
beforeEach(() => fake.clear());

/** What Telegram posts to the webhook; `secret` null sends no secret-token header. */
function postUpdate(update: Record<string, unknown>, secret: string | null = t.config.telegramWebhookSecret) {
  return t.app.inject({
    method: 'POST',
    url: '/telegram/webhook',
    headers: secret === null ? {} : { 'x-telegram-bot-api-secret-token': secret },
    payload: { update_id: nextUpdateId++, ...update },
  });
}

const OFFER_TEXT = 'New offer from Button agent\nDirect job\nReward: 5\u00a0TON';

/** A press of an inline button under the bot's offer message in `telegramId`'s private chat. */
async function press(telegramId: number, data: string, messageId = 42) {
  const callbackId = `cbq-${nextUpdateId}`;
  const res = await postUpdate({
    callback_query: {
      id: callbackId,
      from: { id: telegramId, is_bot: false, first_name: 'Presser' },
      chat_instance: `ci-${telegramId}`,
      data,
      message: {
        message_id: messageId,
        date: 1_900_000_000,
        chat: { id: telegramId, type: 'private', first_name: 'Presser' },
        from: { id: BOT_ID, is_bot: true, first_name: 'Handoff', username: 'handoff_test_bot' },
        text: OFFER_TEXT,
        entities: [{ type: 'bold', offset: 0, length: 9 }],
      },
    },
  });
  expect(res.statusCode, res.body).toBe(200);
  const answers = fake.callsOf('answerCallbackQuery').filter((c) => c.body.callback_query_id === callbackId);
  expect(answers).toHaveLength(1);
  return answers[0]!.body as { text: string; show_alert: boolean };
}

/** The task as its agent sees it, with the parts that must match between two accepted offers. */
async function acceptedShape(taskId: string, worker: TestWorker) {
  const task = await agentTask(t, agent, taskId);
  const events = await taskEvents(t, taskId);
  const chat = await t.ctx.db
    .selectFrom('chats')
    .selectAll()
    .where('task_id', '=', taskId)
    .executeTakeFirst();
  return {
    status: task.status,
    paymentStatus: task.paymentStatus,
    executionDeadline: task.executionDeadline,
    worker: (task.worker as { id: string } | null)?.id === worker.id,
    applications: task.applications.map((a) => a.status),
    chat: chat ? { open: chat.worker_id === worker.id } : null,
    events: events.map((e) => ({
      type: e.type,
      data: JSON.parse(
        JSON.stringify(e.data)
          .replaceAll(taskId, 'TASK')
          .replaceAll(worker.id, 'WORKER')
          .replaceAll(task.applications[0]?.id ?? 'none', 'APPLICATION'),
      ),
    })),
  };
}

describe('offer buttons (callback queries through POST /telegram/webhook)', () => {
  it('Accept assigns the task exactly as POST /worker/offers/:taskId/accept does', async () => {
    const byButton = await createWorker(t, { firstName: 'Same' });
    const byHttp = await createWorker(t, { firstName: 'Same' });
    const buttonOffer = await offerTo(t, agent, byButton, { executionDeadlineDays: 3 });
    const httpOffer = await offerTo(t, agent, byHttp, { executionDeadlineDays: 3 });
    // Events of one millisecond have no defined order (ids are time + random): move time on.
    t.clock.advance(3600_000);
    const acceptedAt = t.clock.now();

    const answer = await press(byButton.telegramId, `offer:accept:${buttonOffer.task.id}`);
    const res = await call(t, 'POST', `/worker/offers/${httpOffer.task.id}/accept`, byHttp.headers);
    expect(res.statusCode, res.body).toBe(200);

    const viaButton = await acceptedShape(buttonOffer.task.id, byButton);
    const viaHttp = await acceptedShape(httpOffer.task.id, byHttp);
    expect(viaButton).toEqual(viaHttp);
    expect(viaButton).toMatchObject({
      status: 'ASSIGNED',
      executionDeadline: new Date(acceptedAt.getTime() + 3 * DAY_MS).toISOString(),
      worker: true,
      applications: ['ACCEPTED'],
      chat: { open: true },
    });
    expect(viaButton.events.map((e) => e.type)).toEqual(['task.funded', 'offer.accepted']);

    expect(answer).toMatchObject({ text: 'Accepted: the task is yours.', show_alert: false });
    const edits = fake.callsOf('editMessageText');
    expect(edits).toHaveLength(1);
    expect(edits[0]?.body).toMatchObject({
      chat_id: byButton.telegramId,
      message_id: 42,
      text: `${OFFER_TEXT}\n\n✅ You accepted this offer: the task is yours. Open Handoff to chat with the agent.`,
      entities: [{ type: 'bold', offset: 0, length: 9 }],
    });
    // The edit carries no reply_markup: the buttons are gone.
    expect(edits[0]?.body.reply_markup).toBeUndefined();
    await expectBooksBalanced(t);
  });

  it('Decline reopens the task like POST /worker/offers/:taskId/decline', async () => {
    const worker = await createWorker(t, { firstName: 'Dee' });
    const offer = await offerTo(t, agent, worker);
    t.clock.advance(1000);
    const answer = await press(worker.telegramId, `offer:decline:${offer.task.id}`);
    expect(answer).toMatchObject({ text: 'Offer declined.', show_alert: false });
    const task = await agentTask(t, agent, offer.task.id);
    expect(task.status).toBe('FUNDED');
    expect(task.worker).toBeNull();
    expect(task.applications.map((a) => a.status)).toEqual(['DECLINED']);
    const events = await taskEvents(t, offer.task.id);
    expect(events.map((e) => e.type)).toEqual(['task.funded', 'offer.declined']);
    expect(events[1]?.data).toMatchObject({ worker: { id: worker.id, name: 'Dee' } });
    expect(fake.callsOf('editMessageText')[0]?.body.text).toBe(`${OFFER_TEXT}\n\n✖️ You declined this offer.`);
  });

  it('another worker’s press is refused and changes nothing', async () => {
    const worker = await createWorker(t);
    const intruder = await createWorker(t);
    const offer = await offerTo(t, agent, worker);
    for (const data of [`offer:accept:${offer.task.id}`, `offer:decline:${offer.task.id}`]) {
      const answer = await press(intruder.telegramId, data);
      expect(answer).toMatchObject({ text: 'Offer not found', show_alert: true });
    }
    expect(fake.callsOf('editMessageText')).toEqual([]);
    expect((await agentTask(t, agent, offer.task.id)).status).toBe('OFFERED');
    expect((await taskEvents(t, offer.task.id)).map((e) => e.type)).toEqual(['task.funded']);
  });

  it('a Telegram user who never opened the Mini App is told to sign in first', async () => {
    const worker = await createWorker(t);
    const offer = await offerTo(t, agent, worker);
    const answer = await press(987_654_321, `offer:accept:${offer.task.id}`);
    expect(answer).toMatchObject({
      text: 'Open Handoff first to sign in, then press the button again.',
      show_alert: true,
    });
    expect((await agentTask(t, agent, offer.task.id)).status).toBe('OFFERED');
  });

  it('a second press after the offer was answered says so and removes the buttons', async () => {
    const worker = await createWorker(t);
    const offer = await offerTo(t, agent, worker);
    await press(worker.telegramId, `offer:accept:${offer.task.id}`);
    fake.clear();
    const again = await press(worker.telegramId, `offer:decline:${offer.task.id}`);
    expect(again).toMatchObject({
      text: 'This offer is no longer open.',
      show_alert: true,
    });
    expect(fake.callsOf('editMessageText')[0]?.body.text).toBe(
      `${OFFER_TEXT}\n\nℹ️ This offer is no longer open.`,
    );
    expect((await agentTask(t, agent, offer.task.id)).status).toBe('ASSIGNED');
  });

  it('buttons this bot never made are answered and ignored', async () => {
    const worker = await createWorker(t);
    const answer = await press(worker.telegramId, 'something:else');
    expect(answer).toMatchObject({ text: 'This button is no longer in use.', show_alert: true });
  });

  it('a Bot API failure while answering does not undo or fail the accepted offer', async () => {
    const worker = await createWorker(t);
    const offer = await offerTo(t, agent, worker);
    fake.failNext(2, 500); // the answer and the edit
    const res = await postUpdate({
      callback_query: {
        id: 'cbq-failing',
        from: { id: worker.telegramId, is_bot: false, first_name: 'W' },
        chat_instance: 'ci',
        data: `offer:accept:${offer.task.id}`,
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect((await agentTask(t, agent, offer.task.id)).status).toBe('ASSIGNED');
    expect(fake.callsOf('answerCallbackQuery')).toHaveLength(1);
  });
});

describe('/start', () => {
  it('answers with a button that opens the Mini App', async () => {
    const res = await postUpdate({
      message: {
        message_id: 1,
        date: 1_900_000_000,
        chat: { id: 5555, type: 'private', first_name: 'New' },
        from: { id: 5555, is_bot: false, first_name: 'New' },
        text: '/start',
        entities: [{ type: 'bot_command', offset: 0, length: 6 }],
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    const sent = fake.sent();
    expect(sent).toHaveLength(1);
    expect(sent[0]?.chatId).toBe(5555);
    expect(sent[0]?.text).toMatch(/^👋 This is Handoff/);
    expect(sent[0]?.replyMarkup).toEqual({
      inline_keyboard: [[{ text: 'Open Handoff', web_app: { url: t.config.miniAppUrl } }]],
    });
  });

  it('other messages get no answer', async () => {
    const res = await postUpdate({
      message: {
        message_id: 2,
        date: 1_900_000_000,
        chat: { id: 5555, type: 'private', first_name: 'New' },
        from: { id: 5555, is_bot: false, first_name: 'New' },
        text: 'hello',
      },
    });
    expect(res.statusCode).toBe(200);
    expect(fake.sent()).toEqual([]);
  });
});

describe('webhook security', () => {
  it('a wrong or missing secret token is 401 and the update is not handled', async () => {
    const worker = await createWorker(t);
    const offer = await offerTo(t, agent, worker);
    const update = {
      callback_query: {
        id: 'forged',
        from: { id: worker.telegramId, is_bot: false, first_name: 'W' },
        chat_instance: 'ci',
        data: `offer:accept:${offer.task.id}`,
      },
    };
    for (const secret of ['wrong-secret', null, `${t.config.telegramWebhookSecret}x`]) {
      const res = await postUpdate(update, secret);
      expect(res.statusCode, String(secret)).toBe(401);
      expect(res.json()).toEqual({ error: 'Unauthorized' });
    }
    expect(fake.calls).toEqual([]);
    expect((await agentTask(t, agent, offer.task.id)).status).toBe('OFFERED');
  });

  it('a body that is not an update is 400', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/telegram/webhook',
      headers: { 'x-telegram-bot-api-secret-token': t.config.telegramWebhookSecret },
      payload: { hello: 'world' },
    });
    expect(res.statusCode).toBe(400);
  });

  it('the webhook is not in the OpenAPI document', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(Object.keys(doc.paths)).not.toContain('/telegram/webhook');
    expect(Object.keys(doc.paths)).toContain('/admin/notifications');
  });

  it('without a bot token the webhook is 404', async () => {
    const quiet = await createTestApp();
    try {
      const res = await quiet.app.inject({
        method: 'POST',
        url: '/telegram/webhook',
        headers: { 'x-telegram-bot-api-secret-token': quiet.config.telegramWebhookSecret },
        payload: { update_id: 1 },
      });
      expect(res.statusCode).toBe(404);
    } finally {
      await quiet.close();
    }
  });
});

describe('start-up', () => {
  it('once listening with background jobs, the bot points Telegram’s webhook at PUBLIC_URL', async () => {
    const own = await createTestApp({ telegram: { apiRoot: fake.apiRoot } });
    const app = await buildApp({
      config: { ...own.config, publicUrl: 'https://handoff.example' },
      ...own.services,
      clock: own.clock,
      jobs: true,
    });
    try {
      await app.listen({ port: 0, host: '127.0.0.1' });
      // The call goes out after listen; on a loaded machine it can take longer than waitFor's 1 s default.
      await vi.waitFor(() => expect(fake.callsOf('setWebhook')).toHaveLength(1), { timeout: 15_000 });
      expect(fake.callsOf('setWebhook')[0]?.body).toEqual({
        url: 'https://handoff.example/telegram/webhook',
        secret_token: own.config.telegramWebhookSecret,
        allowed_updates: ['message', 'callback_query'],
      });
    } finally {
      await app.close();
      await own.close();
    }
  });
});
