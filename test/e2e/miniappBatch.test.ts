import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../helpers/agentApi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createAgent, createTask, createWorker, type TestAgent } from '../helpers/fixtures.js';
import { call } from '../helpers/workerApi.js';
import { launchChromium } from './browser.js';
import {
  explained as harnessExplained,
  shot as harnessShot,
  type MiniAppHost,
  openMiniApp,
  pressBackButton,
  pressMainButton,
  screenshotsDir,
  serveLocally,
  WAIT_MS,
} from './miniappHarness.js';
import { DARK_THEME, LIGHT_THEME, type TelegramUser } from './telegramHost.js';

/**
 * Issue 40, item 2 in the Mini App: a batch of 50 places is one card in the open tasks, saying how
 * many places are left ("18 of 50 places left", in Russian with its plural forms); applying from
 * it takes the batch's next open place, and at the batch's one place per person the card says so
 * and offers no application. English and Russian, light and dark (screenshots 3-batch-card*).
 */
const SCREENSHOTS = screenshotsDir();
const TITLE = 'Photograph a café menu';

let t: TestApp;
let origin: string;
let browser: Browser;
let agent: TestAgent;
let batch: { id: string; taskIds: string[] };
const external: { url: string; type: string }[] = [];
const pageErrors: string[] = [];

beforeAll(async () => {
  t = await createTestApp();
  ({ origin } = await serveLocally(t, { publicUrl: false }));
  browser = await launchChromium();
  agent = await createAgent(t, { name: 'Menu Mapper', deposit: '1000' });
  await createTask(t, agent, { title: 'Deliver a letter', reward: '3' });
  const created = await ok(
    t,
    agent,
    'POST',
    '/batches',
    {
      template: { title: TITLE, description: 'One café each; the whole menu, readable', reward: '2' },
      count: 50,
      maxPerWorker: 1,
    },
    201,
  );
  batch = { id: created.batch.id, taskIds: created.tasks.map((task: { id: string }) => task.id) };
  // 32 people took a place each: 18 of 50 are left.
  for (let i = 0; i < 32; i++) {
    const worker = await createWorker(t);
    const res = await call(t, 'POST', `/worker/batches/${batch.id}/applications`, worker.headers, {
      message: '',
    });
    expect(res.statusCode, res.body).toBe(201);
  }
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const host = (): MiniAppHost => ({ t, origin, browser, external, pageErrors });

const WORDS = {
  en: {
    tasks: 'Tasks',
    left: (n: number) => `${n} of 50 places left`,
    limit: 'One place per person, and you have yours',
  },
  ru: {
    tasks: 'Задачи',
    left: (n: number) =>
      `Свободно ${n} ${n % 10 === 1 && n % 100 !== 11 ? 'место' : [2, 3, 4].includes(n % 10) && ![12, 13, 14].includes(n % 100) ? 'места' : 'мест'} из 50`,
    limit: 'Одно место на человека, и оно у вас уже есть',
  },
} as const;

async function worker(
  firstName: string,
  language: 'en' | 'ru',
): Promise<TelegramUser & { headers: Record<string, string> }> {
  const w = await createWorker(t, { firstName });
  const lang = await call(t, 'PATCH', '/worker/me', w.headers, { language });
  expect(lang.statusCode, lang.body).toBe(200);
  return { id: w.telegramId, first_name: firstName, language_code: language, headers: w.headers };
}

/** The open-task cards with the batch's title: a batch is one of them, never 50. */
const batchCards = (page: Page) => page.getByRole('button', { name: TITLE });

describe('a batch in the Mini App', () => {
  for (const [language, name] of [
    ['en', 'Mia'],
    ['ru', 'Ольга'],
  ] as const) {
    it(`is one card with its places left, and applying takes the next place (${language})`, async () => {
      const user = await worker(name, language);
      const words = WORDS[language];
      const before = (await call(t, 'GET', '/worker/tasks?limit=100', user.headers)).json().tasks;
      const left = before.find((task: { batch?: { placesLeft: number } }) => task.batch)?.batch.placesLeft;
      expect(left).toBe(language === 'en' ? 18 : 17);
      for (const theme of ['light', 'dark'] as const) {
        const { context, page } = await openMiniApp(host(), {
          theme: theme === 'light' ? LIGHT_THEME : DARK_THEME,
          user,
          locale: language === 'ru' ? 'ru-RU' : 'en-US',
          prepare: (p) => p.context().clock.setFixedTime(t.clock.now()),
        });
        try {
          await page.getByRole('heading', { name: words.tasks, level: 1 }).waitFor();
          await page.getByText(words.left(left), { exact: true }).waitFor();
          expect(await batchCards(page).count()).toBe(1);
          await page.getByText('Deliver a letter').waitFor();
          await harnessShot(page, SCREENSHOTS, `3-batch-card${language === 'ru' ? '-ru' : ''}`, theme);
          if (theme === 'dark') {
            // Apply from the card: the application takes the batch's next open place.
            await batchCards(page).click();
            await page.getByRole('heading', { name: TITLE, level: 1 }).waitFor();
            await page.locator('.batch-note').getByText(words.left(left), { exact: true }).waitFor();
            await pressMainButton(page, language === 'ru' ? 'Откликнуться' : 'Send application');
            await expect
              .poll(
                async () => (await call(t, 'GET', '/worker/applications', user.headers)).json().applications,
                {
                  timeout: WAIT_MS,
                },
              )
              .toHaveLength(1);
            const [mine] = (await call(t, 'GET', '/worker/applications', user.headers)).json().applications;
            expect(batch.taskIds).toContain(mine.taskId);
            await pressBackButton(page);
            await page.getByRole('heading', { name: words.tasks, level: 1 }).waitFor();
            // One place per person: the card counts one fewer and says this worker has theirs.
            await page.getByText(words.left(left - 1), { exact: true }).waitFor({ timeout: WAIT_MS });
            await batchCards(page).getByText(words.limit).waitFor();
            expect(await batchCards(page).count()).toBe(1);
            await harnessShot(
              page,
              SCREENSHOTS,
              `3-batch-card-taken${language === 'ru' ? '-ru' : ''}`,
              theme,
            );
          }
        } catch (error) {
          throw await harnessExplained(host(), error, page as Page);
        } finally {
          await context.close();
        }
      }
    }, 300_000);
  }
});
