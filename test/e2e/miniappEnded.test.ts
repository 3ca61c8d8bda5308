import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { disputedTask, resolve } from '../helpers/disputeApi.js';
import { assignedTask, createAgent, createWorker, type TestAgent } from '../helpers/fixtures.js';
import { requestRevision, submitOk, uploadFile } from '../helpers/submissionApi.js';
import { call } from '../helpers/workerApi.js';
import { launchChromium } from './browser.js';
import {
  explained as harnessExplained,
  shot as harnessShot,
  type MiniAppHost,
  openMiniApp,
  pressMainButton,
  screenshotsDir,
  serveLocally,
} from './miniappHarness.js';
import { photoPng } from './photos.js';
import { DARK_THEME, LIGHT_THEME, type TelegramUser } from './telegramHost.js';

/**
 * Issue 36 in the Mini App: a worker keeps the tasks that ended against them. A dispute an
 * operator decided for the agent and a task the agent cancelled after assigning it stay in "My
 * tasks" under "Ended"; the page the bot's link opens says who decided (an operator, not "the
 * agent cancelled"), in a warning, not a success; the decided dispute is read-only (no invitation
 * to add a statement, no green bar); a split reads "you were paid 1.8 TON of the 3 TON reward".
 * "Changes asked" is a pill and a group of its own, and submitting again shows the agent's reason
 * with the earlier photos attached (removable). English and Russian, light and dark; screenshots
 * 15-ended-*, 16-dispute-lost-* and 17-changes-asked-*.
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
  ({ origin } = await serveLocally(t, { publicUrl: true }));
  browser = await launchChromium();
  agent = await createAgent(t, { name: 'Street survey', deposit: '200' });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const host = (): MiniAppHost => ({ t, origin, browser, external, pageErrors });
const nextMinute = () => t.clock.advance(61_000);

const TITLES = {
  lost: 'Photograph the north gate',
  split: 'Photograph the south gate',
  cancelled: 'Count the parked bicycles',
};

const WORDS = {
  en: {
    mine: 'My tasks',
    ended: 'Ended',
    cancelled: 'Cancelled',
    open: 'Open task',
    stand: 'Where you stand',
    lost: 'An operator decided the dispute for the agent: the reward went back to the agent, and nothing was paid to you.',
    split: 'An operator decided the dispute: you were paid 1.8\u00a0TON of the 3\u00a0TON reward.',
    view: 'View the dispute',
    decision: 'Decision',
    decided: 'The operator decided that the reward goes back to the agent.',
    noStatements: 'No statements were added before the decision.',
    add: 'Add a statement',
  },
  ru: {
    mine: 'Мои задачи',
    ended: 'Завершены',
    cancelled: 'Отменена',
    open: 'Открыть задачу',
    stand: 'Ваш статус',
    lost: 'Оператор решил спор в пользу агента: награда вернулась агенту, вам ничего не выплачено.',
    split: 'Оператор решил спор: вам выплачено 1,8\u00a0TON из награды 3\u00a0TON.',
    view: 'Посмотреть спор',
    decision: 'Решение',
    decided: 'Оператор решил вернуть награду агенту.',
    noStatements: 'До решения заявлений не добавили.',
    add: 'Добавить заявление',
  },
} as const;

/** A worker with a dispute lost, a dispute split 60/40 and a task cancelled after assignment. */
async function workerWithEndings(firstName: string, language: 'en' | 'ru') {
  const worker = await createWorker(t, { firstName });
  expect((await call(t, 'PATCH', '/worker/me', worker.headers, { language })).statusCode).toBe(200);
  nextMinute();
  const lost = await disputedTask(t, agent, worker, { title: TITLES.lost, reward: '3' });
  expect((await resolve(t, lost.dispute.id, '0', 'The photos show another gate')).statusCode).toBe(200);
  nextMinute();
  const split = await disputedTask(t, agent, worker, { title: TITLES.split, reward: '3' });
  expect((await resolve(t, split.dispute.id, '1.8', 'Half of the photos are blurred')).statusCode).toBe(200);
  nextMinute();
  const { taskId: cancelled } = await assignedTask(t, agent, worker, {
    title: TITLES.cancelled,
    reward: '2',
  });
  expect((await call(t, 'POST', `/tasks/${cancelled}/refund`, agent.headers, {})).statusCode).toBe(200);
  nextMinute();
  const user: TelegramUser = { id: worker.telegramId, first_name: firstName, language_code: language };
  return { user, lost: lost.taskId, split: split.taskId };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const card = (page: Page | Locator, prefix: string, title: string, label: string) =>
  page.getByRole('button', {
    name: new RegExp(`^${prefix} ${escapeRegExp(title)}[^]*${escapeRegExp(label)}`),
  });

describe('a worker keeps the tasks that ended against them (issue 36)', () => {
  for (const [language, name] of [
    ['en', 'Nina'],
    ['ru', 'Вера'],
  ] as const) {
    it(`lists them under Ended and says who decided (${language})`, async () => {
      const { user, lost, split } = await workerWithEndings(name, language);
      const words = WORDS[language];
      const suffix = language === 'ru' ? '-ru' : '';
      for (const theme of ['light', 'dark'] as const) {
        const options = {
          theme: theme === 'light' ? LIGHT_THEME : DARK_THEME,
          user,
          locale: language === 'ru' ? 'ru-RU' : 'en-US',
          // The phone's clock is the test's, so "posted 5 minutes ago" reads true.
          prepare: (page: Page) => page.context().clock.setFixedTime(t.clock.now()),
        };
        nextMinute();
        const mine = await openMiniApp(host(), options);
        try {
          await mine.page.getByRole('tab', { name: words.mine, exact: true }).click();
          const ended = mine.page.getByRole('region', { name: words.ended });
          await card(ended, words.open, TITLES.lost, words.cancelled).waitFor();
          await card(ended, words.open, TITLES.cancelled, words.cancelled).waitFor();
          // The lost task's amount: nothing of the reward, as the settlement says.
          await card(ended, words.open, TITLES.lost, words.cancelled)
            .getByText(/^0\u00a0TON/)
            .waitFor();
          await harnessShot(mine.page, SCREENSHOTS, `15-ended${suffix}`, theme);
        } catch (error) {
          throw await harnessExplained(host(), error, mine.page);
        } finally {
          await mine.context.close();
        }

        // The bot's link to the lost task: who decided, in a warning; the dispute read-only.
        nextMinute();
        const linked = await openMiniApp(host(), { ...options, startParam: `task_${lost}` });
        const page = linked.page;
        try {
          const stand = page.getByRole('status', { name: words.stand });
          await stand.getByText(words.lost, { exact: true }).waitFor();
          expect(await stand.getAttribute('class')).toBe('notice warn');
          const text = (await page.evaluate('document.body.innerText')) as string;
          expect(text).not.toMatch(/The agent cancelled|Агент отменил/);
          await page.getByRole('button', { name: words.view }).click();
          const decision = page.getByRole('status', { name: words.decision });
          await decision.getByText(words.decided).waitFor();
          expect(await decision.getAttribute('class')).toBe('notice warn');
          await page.getByText(words.noStatements, { exact: true }).waitFor();
          expect(await page.getByRole('form', { name: words.add }).count()).toBe(0);
          expect(await page.getByRole('textbox').count()).toBe(0);
          expect(await page.locator('.notice.ok').count()).toBe(0);
          await harnessShot(page, SCREENSHOTS, `16-dispute-lost${suffix}`, theme);
        } catch (error) {
          throw await harnessExplained(host(), error, page);
        } finally {
          await linked.context.close();
        }

        if (theme === 'light') {
          // A split: the header and the sentence read the settlement, not the reward.
          nextMinute();
          const splitPage = await openMiniApp(host(), { ...options, startParam: `task_${split}` });
          try {
            await splitPage.page
              .getByRole('status', { name: words.stand })
              .getByText(words.split, { exact: true })
              .waitFor();
          } catch (error) {
            throw await harnessExplained(host(), error, splitPage.page);
          } finally {
            await splitPage.context.close();
          }
        }
      }
    }, 300_000);
  }
});

describe('changes asked (issue 36)', () => {
  it('is its own pill and group; submitting again shows the reason and the earlier photos', async () => {
    const worker = await createWorker(t, { firstName: 'Lena' });
    nextMinute();
    const { taskId } = await assignedTask(t, agent, worker, {
      title: 'Photograph the east gate',
      reward: '4',
    });
    const photo = photoPng({ sky: [90, 150, 230], building: [190, 120, 90], seed: 1 });
    const fileUrl = await uploadFile(t, worker, 'east-gate.png', 'image/png', photo);
    await submitOk(t, worker, taskId, { note: 'The gate', attachments: [fileUrl] });
    const reason = 'Show the gate from the street side, please';
    expect((await requestRevision(t, agent, taskId, reason)).statusCode).toBe(201);

    for (const [language, theme, group] of [
      ['en', 'dark', 'Changes asked'],
      ['ru', 'light', 'Просят доработать'],
      ['ru', 'dark', 'Просят доработать'],
      // Last: it submits again, and the task is in review afterwards.
      ['en', 'light', 'Changes asked'],
    ] as const) {
      nextMinute();
      const user: TelegramUser = { id: worker.telegramId, first_name: 'Lena', language_code: language };
      expect((await call(t, 'PATCH', '/worker/me', worker.headers, { language })).statusCode).toBe(200);
      const { context, page } = await openMiniApp(host(), {
        theme: theme === 'light' ? LIGHT_THEME : DARK_THEME,
        user,
        locale: language === 'ru' ? 'ru-RU' : 'en-US',
        prepare: (page: Page) => page.context().clock.setFixedTime(t.clock.now()),
      });
      try {
        const words = WORDS[language];
        await page.getByRole('tab', { name: words.mine, exact: true }).click();
        const region = page.getByRole('region', { name: group });
        await card(region, words.open, 'Photograph the east gate', group).waitFor();
        // Not "In progress" anywhere on the list.
        expect(
          await page.getByRole('region', { name: language === 'en' ? 'In progress' : 'В работе' }).count(),
        ).toBe(0);
        await harnessShot(page, SCREENSHOTS, `17-changes-asked${language === 'ru' ? '-ru' : ''}`, theme);
        if (language === 'en' && theme === 'light') {
          await card(region, words.open, 'Photograph the east gate', group).click();
          await pressMainButton(page, 'Submit work again');
          await page.getByRole('heading', { name: 'Submit work again', level: 1 }).waitFor();
          await page.getByRole('status', { name: 'Changes asked' }).getByText(reason).waitFor();
          const chosen = page.getByRole('list', { name: 'Chosen photos' });
          await chosen.getByRole('img', { name: 'east-gate.png' }).waitFor();
          await chosen.getByRole('button', { name: 'Remove east-gate.png' }).waitFor();
          await harnessShot(page, SCREENSHOTS, '18-submit-again', theme);
          await page.getByLabel('What you did').fill('From the street side now');
          await pressMainButton(page, 'Send for review');
          await page.getByRole('status', { name: 'Review time' }).waitFor();
          const { submissions } = (
            await call(t, 'GET', `/tasks/${taskId}/submissions`, agent.headers)
          ).json();
          expect(submissions[0]).toMatchObject({
            number: 2,
            status: 'PENDING',
            attachments: [expect.objectContaining({ name: 'east-gate.png' })],
          });
        }
      } catch (error) {
        throw await harnessExplained(host(), error, page);
      } finally {
        await context.close();
      }
    }
  }, 300_000);
});
