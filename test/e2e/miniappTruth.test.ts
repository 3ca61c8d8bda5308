import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completedTask, ok } from '../helpers/agentApi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { assignedTask, createAgent, createTask, createWorker, type TestAgent } from '../helpers/fixtures.js';
import { newTonWallet, type TestTonWallet } from '../helpers/tonConnect.js';
import { applyTo, call, offerTo } from '../helpers/workerApi.js';
import { checkScreen } from './axe.js';
import { launchChromium } from './browser.js';
import {
  expectMainButton,
  explained as harnessExplained,
  lastEvent,
  type MiniAppHost,
  openMiniApp,
  PHONE,
  pressBackButton,
  pressMainButton,
  receive,
  screenshotsDir,
  serveLocally,
  WAIT_MS,
  type WalletConnectRequest,
  walletConnectAnswer,
} from './miniappHarness.js';
import {
  DARK_THEME,
  injectedWalletScript,
  LIGHT_THEME,
  launchHash,
  type TelegramUser,
  telegramInitData,
  telegramWebviewScript,
} from './telegramHost.js';

/**
 * Issue 27 in the real built Mini App: every state a worker meets has its true label on the
 * cards and on the task page (from the one mapping in labels.ts), declining an offer asks first
 * and the task leaves the worker's lists, rating shows the stars and then the rating given,
 * errors are sentences (an expired session closes the app), the first launch, "Connect a wallet"
 * from a task coming back to it, the fixed chrome's height, rewards inside their cell at 320 px.
 * At 360 px, light and dark, English and Russian; axe and "no sideways scroll" on every screen.
 */
const SCREENSHOTS = screenshotsDir('handoff-truth-');
const WALLET_KEY = 'handoffTestWallet';
const LONG_TITLE =
  'Photograph every entrance of the central railway station, including the bicycle parking and the taxi rank';

let t: TestApp;
let origin: string;
let browser: Browser;
let agent: TestAgent;
let wallet: TestTonWallet;
let ana: TelegramUser;
let anaRu: TelegramUser;
const external: { url: string; type: string }[] = [];
const pageErrors: string[] = [];

/** Task ids by the state they are in for Ana. */
const ids: Record<string, string> = {};
const TITLES = {
  open: LONG_TITLE,
  applied: 'Count the benches in the park',
  expired: 'Queue at the passport office',
  offered: 'Check the café opening hours',
  declined: 'Pick up a parcel across town',
  rejected: 'Photograph the old bridge',
  assigned: 'Read the water meter',
  inProgress: 'Photograph the museum',
  inReview: 'Film the sunset at the pier',
  completed: 'Translate the shop sign',
  cancelled: 'Measure the shop window',
} as const;

beforeAll(async () => {
  t = await createTestApp();
  const served = await serveLocally(t, { publicUrl: true });
  origin = served.origin;
  t.config.tonProofDomains = [`127.0.0.1:${served.port}`];
  browser = await launchChromium();
  wallet = newTonWallet('v4r2');

  agent = await createAgent(t, { name: 'Lisbon Survey', deposit: '200000' });
  const worker = await createWorker(t, {
    firstName: 'Ana',
    profile: { headline: 'Photographer', skills: ['photo'] },
  });
  ana = { id: worker.telegramId, first_name: 'Ana' };
  anaRu = { ...ana, language_code: 'ru' };
  const other = await createWorker(t, { firstName: 'Olga' });

  // Expired: its deadline passes while it is still open (the clock moves on below).
  ids.expired = (
    await createTask(t, agent, {
      title: TITLES.expired,
      reward: '3',
      executionDeadlineDays: undefined,
      deadline: new Date(t.clock.now().getTime() + 3_600_000).toISOString(),
    })
  ).id;
  ids.completed = await completed(worker);
  ids.cancelled = (await createTask(t, agent, { title: TITLES.cancelled, reward: '2' })).id;
  await applyTo(t, worker, ids.cancelled);
  expect((await call(t, 'DELETE', `/tasks/${ids.cancelled}`, agent.headers)).statusCode).toBe(200);
  ids.rejected = (await createTask(t, agent, { title: TITLES.rejected, reward: '4' })).id;
  await applyTo(t, worker, ids.rejected);
  const chosen = await applyTo(t, other, ids.rejected);
  await ok(t, agent, 'PATCH', `/applications/${chosen.id}`, { status: 'ACCEPTED' });
  ids.inReview = (await assignedTask(t, agent, worker, { title: TITLES.inReview, reward: '7' })).taskId;
  await ok(t, worker, 'PATCH', `/worker/tasks/${ids.inReview}`, { status: 'REVIEW' });
  ids.inProgress = (await assignedTask(t, agent, worker, { title: TITLES.inProgress, reward: '6' })).taskId;
  await ok(t, worker, 'PATCH', `/worker/tasks/${ids.inProgress}`, { status: 'IN_PROGRESS' });
  ids.assigned = (await assignedTask(t, agent, worker, { title: TITLES.assigned, reward: '5' })).taskId;
  ids.declined = (await offerTo(t, agent, worker, { title: TITLES.declined, reward: '9' })).task.id;
  ids.offered = (await offerTo(t, agent, worker, { title: TITLES.offered, reward: '8' })).task.id;
  ids.applied = (await createTask(t, agent, { title: TITLES.applied, reward: '2.5' })).id;
  await applyTo(t, worker, ids.applied);
  ids.open = (
    await createTask(t, agent, {
      title: TITLES.open,
      reward: '123456.789',
      location: { latitude: 38.7077, longitude: -9.1365, radiusMeters: 300, label: 'Praça do Comércio' },
    })
  ).id;
  // Two hours on: the expired task's deadline is behind it; the rest is "posted 2 hours ago".
  t.clock.advance(2 * 3_600_000);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function completed(worker: Awaited<ReturnType<typeof createWorker>>) {
  return (await completedTask(t, agent, worker, { title: TITLES.completed, reward: '1.5' })).taskId;
}

/**
 * Moves the server's clock a minute on, past the rate limits' window (the pages make many
 * requests; a worker may make 100 a minute), and gives the page the same time.
 */
async function nextMinute(page?: Page) {
  t.clock.advance(61_000);
  await page?.context().clock.setFixedTime(t.clock.now());
}

const host = (): MiniAppHost => ({ t, origin, browser, external, pageErrors });

async function open(
  theme: 'light' | 'dark',
  who: TelegramUser,
  startParam?: string,
  width = PHONE.width,
  height = PHONE.height,
) {
  await nextMinute();
  const opened = await openMiniApp(host(), {
    theme: theme === 'light' ? LIGHT_THEME : DARK_THEME,
    user: who,
    ...(startParam ? { startParam } : {}),
    prepare: async (page) => {
      await page.context().clock.setFixedTime(t.clock.now());
      await page.addInitScript(injectedWalletScript(WALLET_KEY));
      await page.exposeFunction('__walletConnect', walletAnswers);
      if (width !== PHONE.width || height !== PHONE.height) await page.setViewportSize({ width, height });
    },
  });
  return opened;
}

const walletAnswers = (message: WalletConnectRequest) => walletConnectAnswer(wallet, t.clock, message);

const explained = (error: unknown, page: Page) => harnessExplained(host(), error, page);

async function settled(page: Page) {
  await page
    .getByRole('status')
    .filter({ hasText: /Loading|Checking|Загруж|Провер/ })
    .first()
    .waitFor({ state: 'detached' });
}

async function save(page: Page, name: string, theme: 'light' | 'dark', language: 'en' | 'ru' = 'en') {
  await settled(page);
  await checkScreen(page, `${name} ${language} ${theme}`);
  const file = language === 'en' ? `${name}-${theme}.png` : `${name}-ru-${theme}.png`;
  // The whole screen as one tall phone, so the tab bar is at the bottom, not over the middle.
  const height = (await page.evaluate('document.documentElement.scrollHeight')) as number;
  await page.setViewportSize({
    width: page.viewportSize()?.width ?? PHONE.width,
    height: Math.max(PHONE.height, height),
  });
  await page.screenshot({ path: path.join(SCREENSHOTS, file) });
  await page.setViewportSize({ width: page.viewportSize()?.width ?? PHONE.width, height: PHONE.height });
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A task's cell, named "Open task <title> <reward> <state> …": found by its title and state. */
const card = (page: Page, title: string, label: string, prefix = 'Open task') =>
  page.getByRole('button', {
    name: new RegExp(`^${prefix} ${escapeRegExp(title)}[^]*${escapeRegExp(label)}`),
  });

/** Tasks tab and My tasks tab: every state's card says its state (English). */
const CARD_LABELS: [keyof typeof TITLES, string, 'tasks' | 'mine'][] = [
  ['open', 'Open', 'tasks'],
  ['applied', 'Applied', 'tasks'],
  ['expired', 'Expired', 'tasks'],
  ['offered', 'Offered to you', 'tasks'],
  ['assigned', 'Assigned to you', 'mine'],
  ['inProgress', 'In progress', 'mine'],
  ['inReview', 'In review', 'mine'],
  ['completed', 'Completed', 'mine'],
  ['rejected', 'Not selected', 'mine'],
  ['cancelled', 'Cancelled', 'mine'],
];

/** The sentence the task page says for each state. */
const DETAIL: Record<string, string> = {
  open: 'Open for applications.',
  applied: 'You applied. The agent will answer here and in Telegram.',
  expired: 'The deadline for this task has passed',
  offered: 'The agent offered this task to you.',
  declined: 'You declined this offer.',
  rejected: 'The agent chose someone else this time.',
  assigned: 'The task is yours.',
  inProgress: 'You are working on it.',
  inReview: 'Your work is with the agent for review.',
  completed: 'Done and paid.',
  cancelled: 'The agent cancelled this task.',
};

describe('the Mini App tells the truth (issue 27)', () => {
  it('labels every state on the cards and the task pages, light and dark', async () => {
    for (const theme of ['light', 'dark'] as const) {
      const { context, page } = await open(theme, ana);
      try {
        await page.getByRole('heading', { name: 'Tasks', level: 1 }).waitFor();
        // One header: Telegram's. The app paints Telegram's header and background in its colours.
        expect(await page.getByText('Handoff', { exact: true }).count()).toBe(0);
        expect(await lastEvent(page, 'web_app_set_header_color')).toEqual({
          color_key: 'secondary_bg_color',
        });
        expect(await lastEvent(page, 'web_app_set_background_color')).not.toBeNull();
        for (const [key, label] of CARD_LABELS.filter(([, , tab]) => tab === 'tasks'))
          await card(page, TITLES[key], label).waitFor();
        // Trust signals on an open task's cell: the agent, posted, applicants, the place.
        const openCell = card(page, TITLES.open, 'Open');
        await expect
          .poll(() => openCell.textContent())
          .toMatch(
            /Lisbon Survey · 1 task paid · posted 2 hours ago · no applicants yet · Praça do Comércio/,
          );
        await card(page, TITLES.applied, 'Applied').getByText('1 applicant').waitFor();
        // The tab bar has icons and names, and with no main button shown the fixed chrome is small.
        await page.getByRole('tab', { name: 'My tasks', exact: true }).locator('svg').waitFor();
        expect(await fixedChrome(page)).toBeLessThanOrEqual(110);
        await save(page, 'states-tasks', theme);

        await nextMinute(page);
        await page.getByRole('tab', { name: 'My tasks', exact: true }).click();
        for (const [key, label] of CARD_LABELS.filter(([, , tab]) => tab === 'mine'))
          await card(page, TITLES[key], label).waitFor();
        for (const group of ['To do', 'In progress', 'In review', 'Completed', 'My applications'])
          await page.getByRole('region', { name: group }).waitFor();
        // No lie and no doubled words anywhere in the lists.
        const text = await page.locator('main').textContent();
        expect(text).not.toMatch(/Not selected[\s·]*Assigned to you|Offered to you[\s·]*Offered to you/);
        await save(page, 'states-my-tasks', theme);

        if (theme === 'light') {
          // Every state's page says the same state and what it means, in a sentence.
          for (const [key, label, tab] of CARD_LABELS) {
            await nextMinute(page);
            await page
              .getByRole('tab', { name: tab === 'tasks' ? 'Tasks' : 'My tasks', exact: true })
              .click();
            await card(page, TITLES[key], label).click();
            await page.getByRole('heading', { name: TITLES[key], level: 1 }).waitFor();
            const stand = page.getByRole('status', { name: 'Where you stand' });
            await stand.getByText(DETAIL[key] as string, { exact: false }).waitFor();
            await page.locator('.detail-head .pill').getByText(label, { exact: true }).waitFor();
            await settled(page);
            await checkScreen(page, `task page ${key}`);
            if (key === 'rejected') expect(await page.getByText('That task is closed.').count()).toBe(0);
            await pressBackButton(page);
          }
        }
      } catch (error) {
        throw await explained(error, page);
      } finally {
        await context.close();
      }
    }
  });

  it('declines an offer only after a confirmation, and the task leaves the lists', async () => {
    const { context, page } = await open('light', ana, `offer_${ids.declined}`);
    try {
      await page.getByRole('heading', { name: TITLES.declined, level: 1 }).waitFor();
      // Accept on the main button, Decline on the secondary one.
      await expectMainButton(page, 'Accept offer');
      await expect
        .poll(() => lastEvent(page, 'web_app_setup_secondary_button'), { timeout: WAIT_MS })
        .toMatchObject({ text: 'Decline', is_visible: true, is_active: true });
      await checkScreen(page, 'offer');

      // Telegram's popup asks first; "Cancel" changes nothing.
      await receive(page, 'secondary_button_pressed');
      await expect
        .poll(() => lastEvent(page, 'web_app_open_popup'), { timeout: WAIT_MS })
        .toMatchObject({
          title: 'Decline the offer?',
          buttons: [{ id: 'confirm', type: 'destructive', text: 'Decline' }, { id: 'cancel' }],
        });
      await page.evaluate(`window.Telegram.WebView.receiveEvent('popup_closed', { button_id: 'cancel' })`);
      await page.waitForTimeout(300);
      expect((await ok(t, agent, 'GET', `/tasks/${ids.declined}`)).task.status).toBe('OFFERED');
      await page.locator('.detail-head .pill').getByText('Offered to you', { exact: true }).waitFor();

      // Confirmed: declined, said so, and the buttons are gone.
      await receive(page, 'secondary_button_pressed');
      await expect
        .poll(async () => (await events(page)).filter((e) => e.type === 'web_app_open_popup').length)
        .toBe(2);
      await page.evaluate(`window.Telegram.WebView.receiveEvent('popup_closed', { button_id: 'confirm' })`);
      await page.locator('.detail-head .pill').getByText('You declined', { exact: true }).waitFor();
      await page
        .getByRole('status', { name: 'Where you stand' })
        .getByText(DETAIL.declined as string)
        .waitFor();
      expect((await ok(t, agent, 'GET', `/tasks/${ids.declined}`)).task.status).toBe('FUNDED');
      await expect
        .poll(() => lastEvent(page, 'web_app_setup_secondary_button'))
        .toMatchObject({ is_visible: false });
      await checkScreen(page, 'declined');

      // Neither the open tasks nor the worker's own lists show it again.
      await pressBackButton(page);
      await card(page, TITLES.open, 'Open').waitFor();
      expect(await page.getByText(TITLES.declined).count()).toBe(0);
      await page.getByRole('tab', { name: 'My tasks', exact: true }).click();
      await card(page, TITLES.cancelled, 'Cancelled').waitFor();
      expect(await page.getByText(TITLES.declined).count()).toBe(0);
    } catch (error) {
      throw await explained(error, page);
    } finally {
      await context.close();
    }
  });

  it('rates with stars that light up and are a named radio group, then shows the rating given', async () => {
    const { context, page } = await open('light', ana, `task_${ids.completed}`);
    try {
      await page.getByRole('heading', { name: TITLES.completed, level: 1 }).waitFor();
      const group = page.getByRole('radiogroup', { name: 'How was working with this agent?' });
      await group.waitFor();
      await group.getByRole('radio', { name: '4 stars' }).check();
      expect(await group.getByRole('radio', { name: '4 stars' }).isChecked()).toBe(true);
      await page.getByText('4 stars chosen').waitFor();
      // Stars 1-4 are lit (gold), 5 is not.
      const colours = (await page.evaluate(
        `Array.from(document.querySelectorAll('.stars .star > span')).map((s) => getComputedStyle(s).color)`,
      )) as string[];
      expect(colours.slice(0, 4)).toEqual(Array(4).fill('rgb(245, 180, 0)'));
      expect(colours[4]).not.toBe('rgb(245, 180, 0)');
      await page.getByLabel('Comment (optional)').fill('Clear brief, paid fast.');
      await checkScreen(page, 'rating form');
      await pressMainButton(page, 'Send rating');
      const given = page.getByRole('status', { name: 'Your rating' });
      await given.getByText('You rated the agent 4 of 5.').waitFor();
      await given.getByRole('img', { name: '4 of 5 stars' }).waitFor();

      // Reopened: the rating given, never the form again.
      await page.reload();
      await page.getByRole('heading', { name: TITLES.completed, level: 1 }).waitFor();
      await page.getByRole('status', { name: 'Your rating' }).getByText('Clear brief, paid fast.').waitFor();
      expect(await page.getByRole('radiogroup').count()).toBe(0);
      expect(await page.getByText('Already rated this task').count()).toBe(0);
    } catch (error) {
      throw await explained(error, page);
    } finally {
      await context.close();
    }
  });

  it('says errors as sentences: an expired session closes the app, a server error says try again', async () => {
    // Init data signed two days ago: the server refuses it (401).
    const context = await browser.newContext({ viewport: PHONE, deviceScaleFactor: 1 });
    const page = await context.newPage();
    try {
      await page.addInitScript(telegramWebviewScript(LIGHT_THEME));
      const stale = telegramInitData(
        ana,
        t.config.telegramBotToken,
        new Date(t.clock.now().getTime() - 2 * 86_400_000),
      );
      await page.goto(`${origin}/app/?stale=1${launchHash({ initData: stale, theme: LIGHT_THEME })}`);
      const alert = page.getByRole('alert');
      await alert.getByText('Your session has expired. Open Handoff again from the bot.').waitFor();
      expect(await alert.textContent()).not.toMatch(/tma|initData|Authorization|401/);
      await checkScreen(page, 'session expired');
      await alert.getByRole('button', { name: 'Close the app' }).click();
      await expect.poll(() => lastEvent(page, 'web_app_close').then((e) => e !== null)).toBe(true);
    } finally {
      await context.close();
    }

    const { context: second, page: broken } = await open('dark', ana);
    try {
      await broken.getByRole('heading', { name: 'Tasks', level: 1 }).waitFor();
      await broken.route('**/worker/assignments*', (route) =>
        route.fulfill({ status: 500, contentType: 'text/plain', body: 'Internal Server Error' }),
      );
      await broken.getByRole('tab', { name: 'My tasks', exact: true }).click();
      const alert = broken.getByRole('alert');
      await alert.getByText('Handoff had a problem. Try again in a moment.').waitFor();
      await alert.getByRole('button', { name: 'Try again' }).waitFor();
      expect(await broken.getByText('Internal Server Error').count()).toBe(0);
      await checkScreen(broken, 'server error');
    } catch (error) {
      throw await explained(error, broken);
    } finally {
      await second.close();
    }
  });

  it('first launch: what Handoff is, then what applying needs; a wallet from a task comes back to it', async () => {
    const newcomer: TelegramUser = { id: 7_100_001, first_name: 'Bea' };
    const { context, page } = await open('light', newcomer);
    try {
      await page.getByRole('heading', { name: 'Welcome, Bea!', level: 1 }).waitFor();
      await page.getByText(/AI agents post small paid tasks/).waitFor();
      await page.getByRole('region', { name: 'To apply for tasks' }).getByLabel('Headline').waitFor();
      await page
        .getByRole('region', { name: 'Wallet' })
        .getByRole('button', { name: 'Connect wallet' })
        .waitFor();
      await expectMainButton(page, 'Continue');
      await checkScreen(page, 'first launch');
      await page.getByLabel('Headline').fill('Runner in Porto');
      // A draft: closing asks first.
      await expect
        .poll(() => lastEvent(page, 'web_app_setup_closing_behavior'))
        .toEqual({ need_confirmation: true });
      await pressMainButton(page, 'Continue');
      await page.getByRole('heading', { name: 'Profile', level: 1 }).waitFor();

      // From a task: "Connect a wallet" on the main button, then straight back to the task.
      await page.getByRole('tab', { name: 'Tasks', exact: true }).click();
      await card(page, TITLES.applied, 'Open').click();
      await page.getByRole('heading', { name: TITLES.applied, level: 1 }).waitFor();
      await pressMainButton(page, 'Connect a wallet');
      await page.getByRole('heading', { name: 'Connect a wallet', level: 1 }).waitFor();
      await checkScreen(page, 'wallet from a task');
      await page.getByRole('button', { name: 'Connect wallet' }).click();
      await page.getByRole('heading', { name: TITLES.applied, level: 1 }).waitFor();
      await expectMainButton(page, 'Send application');
    } catch (error) {
      throw await explained(error, page);
    } finally {
      await context.close();
    }
  });

  it('keeps rewards inside their cell at 320 px', async () => {
    const { context, page } = await open('light', ana, undefined, 320);
    try {
      const cell = card(page, TITLES.open, 'Open');
      await cell.waitFor();
      const [box, reward] = await Promise.all([cell.boundingBox(), cell.locator('.reward').boundingBox()]);
      expect(box && reward).toBeTruthy();
      expect(reward!.x + reward!.width).toBeLessThanOrEqual(box!.x + box!.width - 8);
      expect(reward!.x).toBeGreaterThanOrEqual(box!.x);
      await checkScreen(page, 'tasks at 320 px');
      await cell.click();
      await page.getByRole('heading', { name: TITLES.open, level: 1 }).waitFor();
      await settled(page);
      await checkScreen(page, 'long task at 320 px');
    } catch (error) {
      throw await explained(error, page);
    } finally {
      await context.close();
    }
  });

  it('fits a 1280 px window (Telegram Desktop, full screen), light and dark', async () => {
    for (const theme of ['light', 'dark'] as const) {
      const { context, page } = await open(theme, ana, undefined, 1280, 800);
      try {
        await page.getByRole('heading', { name: 'Tasks', level: 1 }).waitFor();
        await settled(page);
        await checkScreen(page, `tasks at 1280 px, ${theme}`);
        for (const [tab, heading] of [
          ['My tasks', 'My tasks'],
          ['Earnings', 'Earnings'],
          ['Profile', 'Profile'],
        ] as const) {
          await page.getByRole('tab', { name: tab, exact: true }).click();
          await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
          await settled(page);
          await checkScreen(page, `${tab} at 1280 px, ${theme}`);
        }
        await page.getByRole('tab', { name: 'Tasks', exact: true }).click();
        await card(page, TITLES.open, 'Open').click();
        await page.getByRole('heading', { name: TITLES.open, level: 1 }).waitFor();
        await settled(page);
        await checkScreen(page, `a task at 1280 px, ${theme}`);
      } catch (error) {
        throw await explained(error, page);
      } finally {
        await context.close();
      }
    }
  });

  it('shows the main screens in Russian, light and dark', async () => {
    for (const theme of ['light', 'dark'] as const) {
      const { context, page } = await open(theme, anaRu);
      try {
        await page.getByRole('heading', { name: 'Задачи', level: 1 }).waitFor();
        await card(page, TITLES.offered, 'Предложена вам', 'Открыть задачу').waitFor();
        await card(page, TITLES.open, 'Открыта', 'Открыть задачу').waitFor();
        await save(page, 'states-tasks', theme, 'ru');
        await page.getByRole('tab', { name: 'Мои задачи', exact: true }).click();
        await card(page, TITLES.rejected, 'Выбрали другого', 'Открыть задачу').waitFor();
        await card(page, TITLES.assigned, 'Назначена вам', 'Открыть задачу').waitFor();
        await save(page, 'states-my-tasks', theme, 'ru');
      } catch (error) {
        throw await explained(error, page);
      } finally {
        await context.close();
      }
    }
  });
});

describe('the main screens, in English and Russian, light and dark', () => {
  let next = 7_200_000;
  for (const language of ['en', 'ru'] as const) {
    for (const theme of ['light', 'dark'] as const) {
      it(`${language} ${theme}: the offer, the rated task, the first launch`, async () => {
        const who = { ...ana, language_code: language };
        const words =
          language === 'en'
            ? {
                stand: 'Where you stand',
                offer: 'The agent offered',
                accept: 'Accept offer',
                rating: 'Your rating',
              }
            : { stand: 'Ваш статус', offer: 'Агент предложил', accept: 'Принять', rating: 'Ваша оценка' };
        const offer = await open(theme, who, `offer_${ids.offered}`);
        try {
          await offer.page
            .getByRole('status', { name: words.stand })
            .getByText(new RegExp(words.offer))
            .waitFor();
          await expectMainButton(offer.page, words.accept);
          await save(offer.page, 'offer', theme, language);
        } catch (error) {
          throw await explained(error, offer.page);
        } finally {
          await offer.context.close();
        }
        const rated = await open(theme, who, `task_${ids.completed}`);
        try {
          await rated.page.getByRole('status', { name: words.rating }).waitFor();
          await save(rated.page, 'rated', theme, language);
        } catch (error) {
          throw await explained(error, rated.page);
        } finally {
          await rated.context.close();
        }
        next += 1;
        const first = await open(theme, { id: next, first_name: 'Bea', language_code: language });
        try {
          await first.page
            .getByRole('heading', { name: language === 'en' ? 'Welcome, Bea!' : 'Добро пожаловать, Bea!' })
            .waitFor();
          await save(first.page, 'first-launch', theme, language);
        } catch (error) {
          throw await explained(error, first.page);
        } finally {
          await first.context.close();
        }
      });
    }
  }
});

/** Posted events, for counting popups. */
const events = (page: Page) =>
  page.evaluate('window.__tgEvents') as Promise<{ type: string; data: Record<string, unknown> | null }[]>;

/**
 * The screen's fixed chrome: Telegram's own header (56 px, outside the page), its main button
 * when shown (56 px) and whatever the page pins to the screen's edges (the tab bar).
 */
async function fixedChrome(page: Page): Promise<number> {
  const pinned = (await page.evaluate(`(() => {
    let sum = 0;
    for (const el of document.querySelectorAll('body *')) {
      const style = getComputedStyle(el);
      if (style.position === 'fixed' || style.position === 'sticky') sum += el.getBoundingClientRect().height;
    }
    return sum;
  })()`)) as number;
  const main = (await lastEvent(page, 'web_app_setup_main_button')) as { is_visible?: boolean } | null;
  return 56 + pinned + (main?.is_visible ? 56 : 0);
}
