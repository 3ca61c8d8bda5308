import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completedTask } from '../helpers/agentApi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createAgent, createTask, createWorker, type TestAgent } from '../helpers/fixtures.js';
import { submittedTask } from '../helpers/submissionApi.js';
import { call } from '../helpers/workerApi.js';
import { launchChromium } from './browser.js';
import {
  explained as harnessExplained,
  shot as harnessShot,
  type MiniAppHost,
  openMiniApp,
  pressBackButton,
  screenshotsDir,
  serveLocally,
} from './miniappHarness.js';
import { DARK_THEME, LIGHT_THEME, type TelegramUser } from './telegramHost.js';

/**
 * Issue 29 in the Mini App: a worker paid in USDT and in TON sees every amount with its own
 * currency (the task card, the task's page, the earnings rows) and the earnings per currency,
 * USDT with 2 to 6 decimals in the worker's language; a USDT amount never reads as TON. In
 * English and in Russian; screenshots of the earnings in both themes (8-earnings-usdt*).
 */
const SCREENSHOTS = screenshotsDir();

let t: TestApp;
let origin: string;
let browser: Browser;
let agent: TestAgent;
const external: { url: string; type: string }[] = [];
const pageErrors: string[] = [];

beforeAll(async () => {
  t = await createTestApp();
  ({ origin } = await serveLocally(t, { publicUrl: false }));
  browser = await launchChromium();
  agent = await createAgent(t, { name: 'Price agent', deposit: '100' });
  const usdt = await call(t, 'POST', `/admin/agents/${agent.id}/deposits`, t.admin, {
    amount: '1000',
    currency: 'USDT',
  });
  expect(usdt.statusCode, usdt.body).toBe(201);
  await createTask(t, agent, { title: 'Check the price of milk', reward: '5', currency: 'USDT' });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const host = (): MiniAppHost => ({ t, origin, browser, external, pageErrors });
const nextMinute = () => t.clock.advance(61_000);

/** The words each language uses on the screens this test reads. */
const WORDS = {
  en: { tasks: 'Tasks', earnings: 'Earnings', paid: 'Paid', byTask: 'By task' },
  ru: { tasks: 'Задачи', earnings: 'Доход', paid: 'Выплачено', byTask: 'По задачам' },
} as const;

async function workerWithMoney(firstName: string, language: 'en' | 'ru'): Promise<TelegramUser> {
  const worker = await createWorker(t, { firstName });
  const lang = await call(t, 'PATCH', '/worker/me', worker.headers, { language });
  expect(lang.statusCode, lang.body).toBe(200);
  nextMinute();
  await completedTask(t, agent, worker, { title: 'Photograph the menu', reward: '12.25', currency: 'USDT' });
  nextMinute();
  await submittedTask(t, agent, worker, { title: 'Count the benches', reward: '3.5', currency: 'USDT' });
  nextMinute();
  await completedTask(t, agent, worker, { title: 'Deliver a letter', reward: '2' });
  nextMinute();
  return { id: worker.telegramId, first_name: firstName, language_code: language };
}

describe('a worker paid in USDT', () => {
  for (const [language, name, number] of [
    ['en', 'Mia', (s: string) => s],
    ['ru', 'Ольга', (s: string) => s.replace('.', ',')],
  ] as const) {
    it(`sees USDT amounts as USDT, earnings per currency (${language})`, async () => {
      const user = await workerWithMoney(name, language);
      const words = WORDS[language];
      for (const theme of ['light', 'dark'] as const) {
        const { context, page } = await openMiniApp(host(), {
          theme: theme === 'light' ? LIGHT_THEME : DARK_THEME,
          user,
          locale: language === 'ru' ? 'ru-RU' : 'en-US',
          // The phone's clock is the test's, so "published 2 minutes ago" reads true.
          prepare: (page) => page.context().clock.setFixedTime(t.clock.now()),
        });
        try {
          await page.getByRole('heading', { name: words.tasks, level: 1 }).waitFor();
          // The open USDT task's card and page: 5 USDT (the one formatter's rule), never TON.
          await page.getByText(`5\u00a0USDT`, { exact: true }).first().waitFor();
          if (theme === 'light') {
            await page.getByText('Check the price of milk').click();
            await page.getByRole('heading', { name: 'Check the price of milk', level: 1 }).waitFor();
            await page.locator('.detail-reward').getByText(`5\u00a0USDT`, { exact: true }).waitFor();
            await pressBackButton(page);
            await page.getByRole('heading', { name: words.tasks, level: 1 }).waitFor();
          }

          await page.getByRole('tab', { name: words.earnings, exact: true }).click();
          await page.getByRole('heading', { name: words.byTask }).waitFor();
          const totals = page.locator('dl.cells');
          // Paid: USDT's and TON's on their own lines (12.25 USDT may still be on its way).
          await totals
            .getByText(`${number('3.5')}\u00a0USDT`)
            .first()
            .waitFor();
          await totals.getByText(/TON$/).first().waitFor();
          const rows = page.locator('ul.cells').first();
          await rows.getByText(`${number('12.25')}\u00a0USDT`).waitFor();
          await rows.getByText(`${number('3.5')}\u00a0USDT`).waitFor();
          await rows.getByText('2\u00a0TON').waitFor();
          const text = (await page.evaluate('document.body.innerText')) as string;
          // No USDT amount reads as TON, and no sum adds the two currencies.
          for (const wrong of ['12.25', '12,25', '3.5', '3,5', '15.75', '15,75', '17.75', '17,75']) {
            expect(text).not.toContain(`${wrong}\u00a0TON`);
          }
          await harnessShot(page, SCREENSHOTS, `8-earnings-usdt${language === 'ru' ? '-ru' : ''}`, theme);
        } catch (error) {
          throw await harnessExplained(host(), error, page as Page);
        } finally {
          await context.close();
        }
      }
    }, 300_000);
  }
});
