import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendDueNotifications } from '../../src/outbox/notifications.js';
import { createTelegramBot, telegramSettings } from '../../src/telegram/bot.js';
import type { TelegramSender } from '../../src/telegram/notifier.js';
import { ok } from '../helpers/agentApi.js';
import { createTestApp, type TestApp, workerAuth } from '../helpers/app.js';
import { FakeTelegram } from '../helpers/fakeTelegram.js';
import { createAgent, createTask, newWalletAddress, type TestAgent } from '../helpers/fixtures.js';
import { call } from '../helpers/workerApi.js';
import { checkScreen } from './axe.js';
import { launchChromium } from './browser.js';
import {
  explained as harnessExplained,
  shot as harnessShot,
  lastEvent,
  type MiniAppHost,
  openMiniApp,
  pressMainButton,
  screenshotsDir,
  serveLocally,
  WAIT_MS,
} from './miniappHarness.js';
import { DARK_THEME, LIGHT_THEME, type TelegramUser } from './telegramHost.js';

/**
 * A Russian-speaking worker in Yekaterinburg (UTC+5) opens the Mini App from a Russian Telegram:
 * the profile is in Russian from the first screen, dates are in the phone's zone, the bot writes
 * in Russian with times in the zone the worker saved from the phone; switching the language in
 * the profile switches the screens and the bot. Screenshots of the profile's language picker in
 * both languages and themes.
 */
const SCREENSHOTS = screenshotsDir();
const ZONE = 'Asia/Yekaterinburg';
/** 20:30 UTC is already the next day in Yekaterinburg (01:30): a date in UTC would be a day off. */
const START = new Date('2030-01-01T20:30:00.000Z');

let t: TestApp;
let origin: string;
let browser: Browser;
let fake: FakeTelegram;
let sender: TelegramSender;
let agent: TestAgent;
const external: { url: string; type: string }[] = [];
const pageErrors: string[] = [];
const olga: TelegramUser = { id: 7_100_001, first_name: 'Ольга', language_code: 'ru' };

beforeAll(async () => {
  fake = await FakeTelegram.start();
  t = await createTestApp({ start: START, telegram: { apiRoot: fake.apiRoot } });
  ({ origin } = await serveLocally(t, { publicUrl: false }));
  sender = createTelegramBot(t.ctx, telegramSettings(t.config)!, t.app.log).sender;
  browser = await launchChromium();
  agent = await createAgent(t, { name: 'Фотоагент', deposit: '5000' });
});

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await fake?.close();
});

const host = (): MiniAppHost => ({ t, origin, browser, external, pageErrors });
const explained = (error: unknown, page: Page) => harnessExplained(host(), error, page);
const shot = (page: Page, name: string, theme: 'light' | 'dark') =>
  harnessShot(page, SCREENSHOTS, name, theme);
const openApp = (theme: Record<string, string>) =>
  openMiniApp(host(), { theme, user: olga, timezoneId: ZONE, locale: 'ru-RU' });
const deliver = () => sendDueNotifications(t.ctx, sender);
const botTexts = () =>
  fake
    .sent()
    .filter((m) => m.chatId === olga.id)
    .map((m) => m.text as string);
const olgaHeaders = () => workerAuth(t, olga.id, olga.first_name, undefined, olga.language_code);

/** English words that would give away an untranslated profile. */
const ENGLISH =
  /\b(Profile|Save|Headline|Skills|Hourly|Country|Time zone|Language|Available|Show my|Agents|missing|since|Not set)\b/;

/** The parts of the profile this screen owns (the wallet section and tab bar are other screens'). */
async function profileText(page: Page): Promise<string> {
  return (await page.evaluate(
    `Array.from(document.querySelectorAll('.notice, .profile-since, .language-picker, form.profile-form')).map((el) => el.innerText).join('\\n')`,
  )) as string;
}

/** No sideways scroll and no serious axe violation anywhere on the screen. */
async function checkProfile(page: Page, where: string) {
  await checkScreen(page, where);
}

describe('a Russian-speaking worker', () => {
  it('gets the profile in Russian, dates in the phone’s zone, the bot in Russian; English switches both', async () => {
    const { context, page } = await openApp(LIGHT_THEME);
    try {
      // Russian from the first screen, before anything was chosen: the first launch, then the
      // profile it leads to.
      await page.getByRole('heading', { name: 'Добро пожаловать, Ольга!', level: 1 }).waitFor();
      expect(await page.evaluate('document.documentElement.lang')).toBe('ru');
      await pressMainButton(page, 'Продолжить');
      const form = page.getByRole('form', { name: 'Профиль' });
      await form.waitFor();
      await page.getByText(/Вы появитесь в поиске исполнителей/).waitFor();
      // Joined in the evening UTC, which is already 2 January in Yekaterinburg.
      await page.getByText('В Handoff с 2 янв. 2030 г. · выполненных задач пока нет').waitFor();
      expect(await profileText(page)).not.toMatch(ENGLISH);
      await checkProfile(page, 'profile, Russian, light');

      // The phone's zone is offered first; choosing it (and a headline) shows Save on Telegram's
      // main button, and closing the app asks first while it is unsaved.
      expect(await lastEvent(page, 'web_app_setup_main_button')).not.toMatchObject({ is_visible: true });
      await page.getByRole('button', { name: `Как на телефоне: ${ZONE}` }).click();
      expect(await page.getByLabel('Часовой пояс').inputValue()).toBe(ZONE);
      await expect
        .poll(() => page.getByLabel('Часовой пояс').locator('option:checked').textContent())
        .toBe(`${ZONE} (этот телефон)`);
      await page.getByLabel('Коротко о себе').fill('Фотограф в Екатеринбурге');
      await page.getByLabel('Навыки через запятую').fill('фотосъёмка');
      const available = page.getByRole('switch', { name: 'Готов к работе' });
      expect(await available.isChecked()).toBe(true);
      await expect
        .poll(() => lastEvent(page, 'web_app_setup_closing_behavior'))
        .toEqual({ need_confirmation: true });
      await pressMainButton(page, 'Сохранить');
      await page.getByRole('status').filter({ hasText: 'Профиль сохранён.' }).waitFor();
      await expect
        .poll(() => lastEvent(page, 'web_app_setup_main_button'))
        .toMatchObject({ is_visible: false });
      await expect
        .poll(() => lastEvent(page, 'web_app_setup_closing_behavior'))
        .toEqual({ need_confirmation: false });
      const saved = await call(t, 'GET', '/worker/me', olgaHeaders());
      expect(saved.json().worker).toMatchObject({ timezone: ZONE, language: 'ru' });
      expect(await profileText(page)).not.toMatch(ENGLISH);
      await shot(page, 'profile-language-ru', 'light');

      // The bot: an application accepted, with the deadline in Yekaterinburg time, in Russian.
      const wallet = await call(t, 'PUT', '/worker/me/wallet', olgaHeaders(), {
        address: newWalletAddress(),
      });
      expect(wallet.statusCode, wallet.body).toBe(200);
      const task = await createTask(t, agent, {
        title: 'Фото витрины',
        reward: '1500',
        executionDeadlineDays: 2,
      });
      const applied = await call(t, 'POST', `/worker/tasks/${task.id}/applications`, olgaHeaders(), {
        message: 'Могу сегодня',
      });
      expect(applied.statusCode, applied.body).toBe(201);
      await ok(t, agent, 'PATCH', `/applications/${applied.json().application.id}`, { status: 'ACCEPTED' });
      await deliver();
      // 2030-01-03 20:30 UTC is 4 January, 01:30 in Yekaterinburg.
      expect(botTexts()).toEqual([
        [
          '✅ Ваша заявка на <b>Фото витрины</b> принята: задача ваша.',
          'Срок: 4 янв. 2030 г., 01:30 GMT+5.',
          'Откройте Handoff, чтобы написать агенту.',
        ].join('\n'),
      ]);
      fake.clear();

      // English, chosen in the profile: the screen switches at once and the bot follows.
      await page.getByRole('radio', { name: 'English' }).check();
      await page.getByRole('form', { name: 'Profile' }).waitFor();
      expect(await page.evaluate('document.documentElement.lang')).toBe('en');
      await page.getByRole('group', { name: 'Language' }).waitFor();
      expect(await page.getByRole('radio', { name: 'English' }).isChecked()).toBe(true);
      expect(await page.getByRole('radio', { name: 'Русский' }).isChecked()).toBe(false);
      await page.getByText('On Handoff since Jan 2, 2030 · no tasks done yet').waitFor({ timeout: WAIT_MS });
      expect((await call(t, 'GET', '/worker/me', olgaHeaders())).json().worker.language).toBe('en');
      await ok(t, agent, 'POST', `/chat/${task.id}/messages`, { content: 'Жду фото' }, 201);
      t.clock.advance(60_000);
      await deliver();
      expect(botTexts()).toEqual(['💬 New message from Фотоагент about <b>Фото витрины</b>:\nЖду фото']);
      await checkProfile(page, 'profile, English, light');
      await shot(page, 'profile-language', 'light');
    } catch (error) {
      throw await explained(error, page);
    } finally {
      await context.close();
    }
  });

  it('opens in the stored language even from a Russian Telegram, in the dark theme; back to Russian', async () => {
    const { context, page } = await openApp(DARK_THEME);
    try {
      // Telegram still says "ru", but the profile chose English: the app switches once it knows.
      await expect.poll(() => page.evaluate('document.documentElement.lang')).toBe('en');
      await page.getByRole('tab', { name: 'Profile' }).click();
      await page.getByRole('form', { name: 'Profile' }).waitFor();
      expect(await page.getByRole('radio', { name: 'English' }).isChecked()).toBe(true);
      await checkProfile(page, 'profile, English, dark');
      await shot(page, 'profile-language', 'dark');

      await page.getByRole('radio', { name: 'Русский' }).check();
      await page.getByRole('form', { name: 'Профиль' }).waitFor();
      await page.getByRole('group', { name: 'Язык' }).waitFor();
      expect(await profileText(page)).not.toMatch(ENGLISH);
      expect((await call(t, 'GET', '/worker/me', olgaHeaders())).json().worker.language).toBe('ru');
      await checkProfile(page, 'profile, Russian, dark');
      await shot(page, 'profile-language-ru', 'dark');
    } catch (error) {
      throw await explained(error, page);
    } finally {
      await context.close();
    }
  });
});
