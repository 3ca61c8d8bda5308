import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sendDueNotifications } from '../../src/outbox/notifications.js';
import type { TelegramSender } from '../../src/telegram/notifier.js';
import { ok } from '../helpers/agentApi.js';
import { type TestApp, workerAuth } from '../helpers/app.js';
import { closeBotApp, startBotApp } from '../helpers/botApp.js';
import type { FakeTelegram } from '../helpers/fakeTelegram.js';
import { createTask, createWorker, type TestAgent, type TestWorker } from '../helpers/fixtures.js';
import { applyTo, call, offerTo, workerMe } from '../helpers/workerApi.js';

/** The bot writes to each worker in the worker's stored language, with times in their zone. */

let fake: FakeTelegram;
let t: TestApp;
let sender: TelegramSender;
let agent: TestAgent;
let nextUpdateId = 1;

beforeAll(async () => {
  ({ fake, t, sender, agent } = await startBotApp({ name: 'Фотоагент', deposit: '10000' }));
});
afterAll(() => closeBotApp({ t, fake }));
beforeEach(() => fake.clear());

const deliver = () => sendDueNotifications(t.ctx, sender);
const sentTo = (worker: TestWorker) => fake.sent().filter((m) => m.chatId === worker.telegramId);

function postUpdate(update: Record<string, unknown>) {
  return t.app.inject({
    method: 'POST',
    url: '/telegram/webhook',
    headers: { 'x-telegram-bot-api-secret-token': t.config.telegramWebhookSecret },
    payload: { update_id: nextUpdateId++, ...update },
  });
}

async function press(telegramId: number, data: string, languageCode?: string) {
  const callbackId = `cbq-${nextUpdateId}`;
  const res = await postUpdate({
    callback_query: {
      id: callbackId,
      from: { id: telegramId, is_bot: false, first_name: 'Olga', language_code: languageCode },
      chat_instance: `ci-${telegramId}`,
      data,
      message: {
        message_id: 42,
        date: 1_900_000_000,
        chat: { id: telegramId, type: 'private', first_name: 'Olga' },
        text: 'Offer',
      },
    },
  });
  expect(res.statusCode, res.body).toBe(200);
  const answer = fake.callsOf('answerCallbackQuery').find((c) => c.body.callback_query_id === callbackId);
  return answer?.body as { text: string; show_alert: boolean };
}

/** A worker who signed in with a Russian Telegram and set a time zone in the profile. */
async function russianWorker(timezone: string | null) {
  const worker = await createWorker(t, { profile: { headline: 'Фотограф', timezone } });
  const headers = workerAuth(t, worker.telegramId, undefined, undefined, 'ru');
  expect((await workerMe(t, headers)).language).toBe('ru');
  return { ...worker, headers };
}

describe('the bot in the worker’s language', () => {
  it('an offer to a Russian-speaking worker is in Russian, buttons included; the press is answered in Russian', async () => {
    const worker = await russianWorker('Europe/Moscow');
    const offer = await offerTo(t, agent, worker, { title: 'Сфотографировать витрину', reward: '1500' });
    await deliver();
    const [sent] = sentTo(worker);
    expect(sent?.text).toBe(
      [
        '📩 <b>Новое предложение</b> от Фотоагент',
        '<b>Сфотографировать витрину</b>',
        'Вознаграждение: <b>1\u00a0500\u00a0TON</b>',
        '',
        'Примите, чтобы взять задачу; срок выполнения начнётся с момента принятия.',
      ].join('\n'),
    );
    const keyboard = (sent!.replyMarkup as { inline_keyboard: { text: string }[][] }).inline_keyboard;
    expect(keyboard.flat().map((b) => b.text)).toEqual(['✅ Принять', '✖️ Отклонить', 'Открыть в Handoff']);

    fake.clear();
    // Telegram's own language on the press does not matter: the stored one does.
    const answer = await press(worker.telegramId, `offer:accept:${offer.task.id}`, 'en');
    expect(answer).toMatchObject({ text: 'Принято: задача ваша.', show_alert: false });
    expect(fake.callsOf('editMessageText')[0]?.body.text).toBe(
      'Offer\n\n✅ Вы приняли это предложение: задача ваша. Откройте Handoff, чтобы написать агенту.',
    );
    const again = await press(worker.telegramId, `offer:accept:${offer.task.id}`);
    expect(again).toMatchObject({ text: 'Это предложение уже неактуально.', show_alert: true });
  });

  it('deadlines are in the worker’s zone (named), or in UTC said explicitly', async () => {
    for (const [timezone, zone, offsetHours] of [
      ['Asia/Yekaterinburg', 'GMT+5', 5],
      [null, 'UTC', 0],
    ] as const) {
      const worker = await russianWorker(timezone);
      const task = await createTask(t, agent, { title: 'Срочно', executionDeadlineDays: 2 });
      const application = await applyTo(t, worker, task.id);
      await ok(t, agent, 'PATCH', `/applications/${application.id}`, { status: 'ACCEPTED' });
      const deadline = new Date(t.clock.now().getTime() + 2 * 86_400_000);
      await deliver();
      const local = new Intl.DateTimeFormat('ru', {
        year: 'numeric',
        month: 'short',
        day: 'numeric',
        hour: 'numeric',
        minute: '2-digit',
        timeZoneName: 'short',
        timeZone: timezone ?? 'UTC',
      }).format(deadline);
      // The wall-clock time in that zone, worked out by hand: not the UTC hour.
      const hh = String((deadline.getUTCHours() + offsetHours) % 24).padStart(2, '0');
      const mm = String(deadline.getUTCMinutes()).padStart(2, '0');
      expect(local).toContain(`${hh}:${mm} ${zone}`);
      expect(sentTo(worker).map((m) => m.text)).toEqual([
        [
          '✅ Ваша заявка на <b>Срочно</b> принята: задача ваша.',
          `Срок: ${local}.`,
          'Откройте Handoff, чтобы написать агенту.',
        ].join('\n'),
      ]);
    }
  });

  it('switching to English in the profile switches the bot', async () => {
    const worker = await russianWorker(null);
    const res = await call(t, 'PATCH', '/worker/me', worker.headers, { language: 'en' });
    expect(res.statusCode, res.body).toBe(200);
    await offerTo(t, agent, worker, { title: 'Photo', reward: '3' });
    await deliver();
    expect(sentTo(worker)[0]?.text).toMatch(/^📩 <b>New offer<\/b> from/);
  });

  it('/start answers in the stored language, or in Telegram’s for someone new', async () => {
    const worker = await russianWorker(null);
    const start = (id: number, languageCode: string) =>
      postUpdate({
        message: {
          message_id: 1,
          date: 1_900_000_000,
          chat: { id, type: 'private', first_name: 'Olga' },
          from: { id, is_bot: false, first_name: 'Olga', language_code: languageCode },
          text: '/start',
          entities: [{ type: 'bot_command', offset: 0, length: 6 }],
        },
      });
    await start(worker.telegramId, 'en');
    await start(6_666_001, 'ru-RU');
    await start(6_666_002, 'de');
    const sent = fake.sent();
    expect(sent.map((m) => (m.text as string).split('\n')[0])).toEqual([
      '👋 Это Handoff: ИИ-агенты нанимают людей для реальных задач и платят в TON или USDT.',
      '👋 Это Handoff: ИИ-агенты нанимают людей для реальных задач и платят в TON или USDT.',
      '👋 This is Handoff: AI agents hire people for real-world tasks and pay them in TON or USDT.',
    ]);
    expect(sent[0]?.replyMarkup).toEqual({
      inline_keyboard: [[{ text: 'Открыть Handoff', web_app: { url: t.config.miniAppUrl } }]],
    });
    // Someone who never signed in presses an old button: Telegram's language.
    const answer = await press(6_666_003, 'offer:accept:tsk_unknown', 'ru');
    expect(answer.text).toBe('Сначала откройте Handoff, чтобы войти, а затем нажмите кнопку ещё раз.');
  });
});
