import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import {
  createAgent,
  createTask,
  createWorker,
  type TestAgent,
  type TestWorker,
} from '../helpers/fixtures.js';
import { call } from '../helpers/workerApi.js';
import { launchChromium } from './browser.js';
import {
  explained,
  goToApp,
  lastEvent,
  type MiniAppHost,
  openMiniApp,
  screenshotsDir,
  serveLocally,
  shot,
  WAIT_MS,
} from './miniappHarness.js';
import { DARK_THEME, LIGHT_THEME, type TelegramUser } from './telegramHost.js';

/**
 * Issue 39 in the Mini App: a worker reports a task (a reason from a named radio group and a
 * note; the report is on the server; a second report says it was already made) and blocks the
 * task's agent (after a confirmation that says what it does, its tasks leave the feed; the
 * profile lists it with Unblock). One Russian check of the dialog's words. One app, one browser
 * context per theme; screenshots 19-report-light and 19-report-dark.
 */
const SCREENSHOTS = screenshotsDir();

let t: TestApp;
let origin: string;
let browser: Browser;
let shady: TestAgent;
let fine: TestAgent;
let worker: TestWorker;
let reported: string;
const external: { url: string; type: string }[] = [];
const pageErrors: string[] = [];

const TITLES = {
  reported: 'Photograph the bakery storefront',
  sameAgent: 'Count the chairs at the café',
  other: 'Deliver a parcel to the library',
};
const NOTE = 'It asks me to photograph people through a window';

beforeAll(async () => {
  t = await createTestApp();
  ({ origin } = await serveLocally(t, { publicUrl: true }));
  browser = await launchChromium();
  shady = await createAgent(t, { name: 'Storefront checks', deposit: '100' });
  fine = await createAgent(t, { name: 'City errands', deposit: '100' });
  reported = (await createTask(t, shady, { title: TITLES.reported, reward: '5' })).id;
  await createTask(t, shady, { title: TITLES.sameAgent, reward: '3' });
  await createTask(t, fine, { title: TITLES.other, reward: '4' });
  worker = await createWorker(t, { firstName: 'Nina' });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const host = (): MiniAppHost => ({ t, origin, browser, external, pageErrors });
const nina: TelegramUser = { id: 0, first_name: 'Nina', language_code: 'en' };
const reportsOf = (taskId: string) =>
  t.ctx.db.selectFrom('task_reports').selectAll().where('task_id', '=', taskId).execute();

/** The report dialog, opened from the task page's "Report". */
async function openReport(page: Page, words = EN) {
  await page.getByRole('heading', { name: TITLES.reported, level: 1 }).waitFor();
  await page.getByRole('button', { name: words.report, exact: true }).click();
  const dialog = page.getByRole('dialog', { name: words.title });
  await dialog.waitFor();
  return dialog;
}

const EN = {
  report: 'Report',
  title: 'Report this task',
  legend: 'What is wrong with it?',
  reasons: [
    'It is dangerous for me or others',
    'It asks for something illegal',
    'Following, watching or harassing someone',
    'A scam, fake reviews or fraud',
    'Sexual content',
    'Collecting people’s personal data',
    'Spam or advertising',
    'Something else',
  ],
  note: 'Anything to add? (optional)',
  send: 'Send report',
  cancel: 'Cancel',
};
const RU: typeof EN = {
  report: 'Пожаловаться',
  title: 'Пожаловаться на задачу',
  legend: 'Что с ней не так?',
  reasons: [
    'Это опасно для меня или других',
    'Просят сделать что-то незаконное',
    'Слежка за человеком или преследование',
    'Мошенничество, фальшивые отзывы, обман',
    'Сексуальный контент',
    'Сбор чужих личных данных',
    'Спам или реклама',
    'Другое',
  ],
  note: 'Что-нибудь добавить? (необязательно)',
  send: 'Отправить жалобу',
  cancel: 'Отмена',
};

describe('a worker reports a task and blocks its agent (issue 39)', () => {
  it('reports with a reason and a note, blocks the agent, and unblocks it in the profile', async () => {
    const user = { ...nina, id: worker.telegramId };
    const options = { theme: LIGHT_THEME, user, locale: 'en-US', startParam: `task_${reported}` };
    const { context, page } = await openMiniApp(host(), options);
    try {
      const dialog = await openReport(page);
      const reasons = dialog.getByRole('radiogroup', { name: EN.legend });
      expect(await reasons.getByRole('radio').count()).toBe(8);
      // Send waits for a reason.
      expect(await dialog.getByRole('button', { name: EN.send }).isDisabled()).toBe(true);
      await reasons.getByRole('radio', { name: EN.reasons[2] }).check();
      await dialog.getByRole('textbox', { name: EN.note }).fill(NOTE);
      await shot(page, SCREENSHOTS, '19-report', 'light');
      await dialog.getByRole('button', { name: EN.send }).click();
      await dialog.getByRole('status').getByText('Thanks – operators will look at it.').waitFor();
      expect(await reportsOf(reported)).toMatchObject([
        { worker_id: worker.id, reason: 'surveillance_or_harassment', note: NOTE },
      ]);
      await dialog.getByRole('button', { name: 'Close' }).click();
      await dialog.waitFor({ state: 'detached' });

      // Block: Telegram's popup says what it does; confirmed, the agent's tasks leave the feed.
      await page.getByRole('button', { name: 'Block this agent' }).click();
      await expect
        .poll(() => lastEvent(page, 'web_app_open_popup'), { timeout: WAIT_MS })
        .toMatchObject({
          title: 'Block this agent?',
          message:
            'You will not see Storefront checks’s tasks or offers any more. You can unblock it in your profile.',
          buttons: [{ id: 'confirm', type: 'destructive', text: 'Block' }, { id: 'cancel' }],
        });
      await page.evaluate(`window.Telegram.WebView.receiveEvent('popup_closed', { button_id: 'confirm' })`);
      const feed = page.getByRole('button', { name: new RegExp(TITLES.other) });
      await feed.waitFor();
      for (const title of [TITLES.reported, TITLES.sameAgent])
        expect(await page.getByRole('button', { name: new RegExp(title) }).count()).toBe(0);
      const blocked = (await call(t, 'GET', '/worker/agents/blocked', worker.headers)).json();
      expect(blocked.agents).toEqual([expect.objectContaining({ agentId: shady.id })]);

      // The profile lists the agent with Unblock; unblocking brings its tasks back.
      await page.getByRole('tab', { name: 'Profile' }).click();
      const list = page.getByRole('region', { name: 'Blocked agents' });
      await list.getByRole('button', { name: 'Unblock Storefront checks' }).click();
      await list.waitFor({ state: 'detached' });
      expect((await call(t, 'GET', '/worker/agents/blocked', worker.headers)).json()).toEqual({ agents: [] });
      await page.getByRole('tab', { name: 'Tasks', exact: true }).click();
      await page.getByRole('button', { name: new RegExp(TITLES.reported) }).waitFor();
    } catch (error) {
      throw await explained(host(), error, page);
    } finally {
      await context.close();
    }
  }, 240_000);

  it('says the dialog in Russian, and a second report says it was made already (dark)', async () => {
    const vera = await createWorker(t, { firstName: 'Вера' });
    expect((await call(t, 'PATCH', '/worker/me', vera.headers, { language: 'ru' })).statusCode).toBe(200);
    const ru = {
      theme: DARK_THEME,
      user: { id: vera.telegramId, first_name: 'Вера', language_code: 'ru' },
      locale: 'ru-RU',
      startParam: `task_${reported}`,
    };
    const { context, page } = await openMiniApp(host(), ru);
    try {
      const dialog = await openReport(page, RU);
      const reasons = dialog.getByRole('radiogroup', { name: RU.legend });
      for (const name of RU.reasons) await reasons.getByRole('radio', { name, exact: true }).waitFor();
      await dialog.getByRole('textbox', { name: RU.note }).waitFor();
      await dialog.getByRole('button', { name: RU.send }).waitFor();
      await dialog.getByRole('button', { name: RU.cancel }).click();
      await dialog.waitFor({ state: 'detached' });
      expect((await reportsOf(reported)).map((r) => r.worker_id)).toEqual([worker.id]);

      // The same phone, now as Nina in English: she reported this task before.
      await goToApp(host(), page, { ...ru, user: { ...nina, id: worker.telegramId }, locale: 'en-US' });
      const again = await openReport(page);
      await again.getByRole('radio', { name: EN.reasons[2] }).check();
      await again.getByRole('textbox', { name: EN.note }).fill(NOTE);
      await shot(page, SCREENSHOTS, '19-report', 'dark');
      await again.getByRole('button', { name: EN.send }).click();
      await again
        .getByRole('status')
        .getByText('You have already reported this task. Operators will look at it.')
        .waitFor();
      expect(await reportsOf(reported)).toHaveLength(1);
    } catch (error) {
      throw await explained(host(), error, page);
    } finally {
      await context.close();
    }
  }, 240_000);
});
