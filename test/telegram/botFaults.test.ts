import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sendDueNotifications } from '../../src/outbox/notifications.js';
import type { TelegramSender } from '../../src/telegram/notifier.js';
import { ok } from '../helpers/agentApi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { closeBotApp, startBotApp } from '../helpers/botApp.js';
import type { FakeTelegram } from '../helpers/fakeTelegram.js';
import {
  assignedTask,
  createAgent,
  createTask,
  createWorker,
  type TestAgent,
  type TestWorker,
} from '../helpers/fixtures.js';
import { applyTo, offerTo } from '../helpers/workerApi.js';

/**
 * Faults found by trying the bot as a new worker would: cancelled tasks left workers uninformed
 * (and the offer's buttons live), a redelivered update was handled twice, and a callback query
 * without `from` answered 500.
 */
let fake: FakeTelegram;
let t: TestApp;
let sender: TelegramSender;
let agent: TestAgent;
let nextUpdateId = 5000;
const deliver = () => sendDueNotifications(t.ctx, sender);
const sentTo = (worker: TestWorker) => fake.sent().filter((m) => m.chatId === worker.telegramId);

beforeAll(async () => {
  ({ fake, t, sender, agent } = await startBotApp({ name: 'Fault agent', deposit: '1000' }));
});
afterAll(() => closeBotApp({ t, fake }));
beforeEach(() => fake.clear());

function postUpdate(update: Record<string, unknown>) {
  return t.app.inject({
    method: 'POST',
    url: '/telegram/webhook',
    headers: { 'x-telegram-bot-api-secret-token': t.config.telegramWebhookSecret },
    payload: update,
  });
}

function pressUpdate(worker: TestWorker, data: string, messageId: number, updateId = nextUpdateId++) {
  return {
    update_id: updateId,
    callback_query: {
      id: `cbq-${updateId}`,
      from: { id: worker.telegramId, is_bot: false, first_name: 'Presser' },
      chat_instance: `ci-${worker.telegramId}`,
      data,
      message: {
        message_id: messageId,
        date: 1_900_000_000,
        chat: { id: worker.telegramId, type: 'private', first_name: 'Presser' },
        text: 'New offer',
        entities: [],
      },
    },
  };
}

describe('cancelling or deleting a task tells its workers', () => {
  it('DELETE tells the offered worker and replaces the offer’s buttons', async () => {
    const worker = await createWorker(t);
    const offer = await offerTo(t, agent, worker, { title: 'Direct <job>' });
    await deliver();
    const [offerMessage] = sentTo(worker);
    expect(offerMessage?.replyMarkup?.inline_keyboard).toHaveLength(2); // Accept / Decline, Open
    const offerMessageId = fake.callsOf('sendMessage').length; // the fake numbers messages from 1
    fake.clear();

    await ok(t, agent, 'DELETE', `/tasks/${offer.task.id}`);
    await deliver();

    expect(sentTo(worker).map((m) => m.text)).toEqual([
      '🚫 The agent withdrew the offer <b>Direct &lt;job&gt;</b>: there is nothing to do for it.',
    ]);
    const edits = fake.callsOf('editMessageText');
    expect(edits).toHaveLength(1);
    expect(edits[0]?.body).toMatchObject({ chat_id: worker.telegramId, message_id: offerMessageId });
    expect(edits[0]?.body.text).toContain('🚫 Withdrawn by the agent.');
    // An edit without reply_markup drops the Accept / Decline buttons.
    expect(edits[0]?.body.reply_markup).toBeUndefined();
    // The withdrawal itself has no button: there is no task to open.
    expect(sentTo(worker)[0]?.replyMarkup).toBeUndefined();
  });

  it('DELETE tells every waiting applicant; a refund tells the assigned worker', async () => {
    const first = await createWorker(t);
    const second = await createWorker(t);
    const task = await createTask(t, agent, { title: 'Open job' });
    await applyTo(t, first, task.id);
    await applyTo(t, second, task.id);
    await ok(t, agent, 'DELETE', `/tasks/${task.id}`);

    const worker = await createWorker(t);
    const assigned = await assignedTask(t, agent, worker, { title: 'Assigned job' });
    await ok(t, agent, 'POST', `/tasks/${assigned.taskId}/refund`, { reason: 'Plans changed' });
    await deliver();

    for (const applicant of [first, second]) {
      expect(sentTo(applicant).map((m) => m.text)).toEqual([
        '🚫 The agent cancelled <b>Open job</b>: your application is closed.',
      ]);
    }
    expect(sentTo(worker).map((m) => m.text)).toContain(
      '🚫 The agent cancelled <b>Assigned job</b>: it is no longer assigned to you.\nReason: Plans changed',
    );
  });
});

describe('Telegram updates are handled once', () => {
  it('a redelivered update (same update_id) does not edit an accepted offer again', async () => {
    const worker = await createWorker(t);
    const offer = await offerTo(t, agent, worker);
    const update = pressUpdate(worker, `offer:accept:${offer.task.id}`, 77);

    const first = await postUpdate(update);
    expect(first.statusCode, first.body).toBe(200);
    expect(fake.callsOf('editMessageText')).toHaveLength(1);
    expect(fake.callsOf('answerCallbackQuery')).toHaveLength(1);

    const again = await postUpdate(update);
    expect(again.statusCode, again.body).toBe(200);
    // Nothing more was said or edited: the accepted message keeps its "you accepted" text.
    expect(fake.callsOf('editMessageText')).toHaveLength(1);
    expect(fake.callsOf('answerCallbackQuery')).toHaveLength(1);
  });

  it('an update that failed is handled when Telegram delivers it again', async () => {
    // A fresh app: its bot learns its name with getMe on the first update, and a failing getMe
    // fails that update (500), as any fault while handling it would.
    const other = await createTestApp({ telegram: { apiRoot: fake.apiRoot } });
    try {
      const otherAgent = await createAgent(other, { deposit: '100' });
      const worker = await createWorker(other);
      const offer = await offerTo(other, otherAgent, worker);
      const update = pressUpdate(worker, `offer:accept:${offer.task.id}`, 78);
      const inject = () =>
        other.app.inject({
          method: 'POST',
          url: '/telegram/webhook',
          headers: { 'x-telegram-bot-api-secret-token': other.config.telegramWebhookSecret },
          payload: update,
        });
      fake.failNext(1, 500);
      expect((await inject()).statusCode).toBe(500);
      const retried = await inject();
      expect(retried.statusCode, retried.body).toBe(200);
      expect(fake.callsOf('editMessageText')).toHaveLength(1);
      const { task } = await ok(other, otherAgent, 'GET', `/tasks/${offer.task.id}`);
      expect(task.status).toBe('ASSIGNED');
    } finally {
      await other.close();
    }
  });
});

describe('a callback query without `from`', () => {
  it('is answered without an error and changes nothing', async () => {
    const worker = await createWorker(t);
    const offer = await offerTo(t, agent, worker);
    const update = pressUpdate(worker, `offer:accept:${offer.task.id}`, 79);
    delete (update.callback_query as { from?: unknown }).from;
    const res = await postUpdate(update);
    expect(res.statusCode, res.body).toBe(200);
    const answers = fake.callsOf('answerCallbackQuery');
    expect(answers).toHaveLength(1);
    expect(answers[0]?.body.text).toBe('Open Handoff first to sign in, then press the button again.');
    expect(fake.callsOf('editMessageText')).toHaveLength(0);
    const { task } = await ok(t, agent, 'GET', `/tasks/${offer.task.id}`);
    expect(task.status).toBe('OFFERED');
  });
});
