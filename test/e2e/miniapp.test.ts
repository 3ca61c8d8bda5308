import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendDueTransfers } from '../../src/domain/money/payouts.js';
import { ok } from '../helpers/agentApi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createAgent, createTask, type TestAgent } from '../helpers/fixtures.js';
import { newTonWallet, type TestTonWallet } from '../helpers/tonConnect.js';
import { launchChromium } from './browser.js';
import {
  bodyBackground,
  events,
  expectMainButton,
  explained as harnessExplained,
  shot as harnessShot,
  lastEvent,
  type MiniAppHost,
  openMiniApp,
  pressBackButton,
  pressMainButton,
  screenshotsDir,
  serveLocally,
  type WalletConnectRequest,
  walletConnectAnswer,
} from './miniappHarness.js';
import { DARK_THEME, injectedWalletScript, LIGHT_THEME, type TelegramUser } from './telegramHost.js';

/**
 * A new worker walks through the real built Mini App in headless Chromium, inside a Telegram
 * environment the test sets up, against the real server on a real port: profile, wallet (a
 * TON Connect wallet injected into the page signs a real ton_proof), applying, being accepted by
 * the agent (agent API), chatting both ways live, completion, the payout's hash, rating.
 * Screenshots of each main screen, light and dark, go to docs/screenshots.
 */
const SCREENSHOTS = screenshotsDir();
const WALLET_KEY = 'handoffTestWallet';
const TRACKING_URL =
  'https://www.ctt.pt/feapl_2/app/open/objectSearch/objectSearch.jspx?objects=RR123456789PT';

let t: TestApp;
let origin: string;
let browser: Browser;
let agent: TestAgent;
let wallet: TestTonWallet;
const user: TelegramUser = { id: 7_000_001, first_name: 'Ana', username: 'ana_on_tg' };
/** A second worker, who opens the app for the first time in the dark theme. */
const newcomer: TelegramUser = { id: 7_000_002, first_name: 'Bea' };
/** Requests the page tried to send anywhere but the service (aborted). */
const external: { url: string; type: string }[] = [];
/** Uncaught errors and console errors in the page (shown when a step fails). */
const pageErrors: string[] = [];

beforeAll(async () => {
  t = await createTestApp();
  // The wallet signs the host of the manifest's url (PUBLIC_URL), which the service checks.
  const served = await serveLocally(t, { publicUrl: true });
  origin = served.origin;
  t.config.tonProofDomains = [`127.0.0.1:${served.port}`];
  browser = await launchChromium();
  agent = await createAgent(t, { name: 'Survey Bot', deposit: '100' });
  wallet = newTonWallet('v4r2');
});

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const host = (): MiniAppHost => ({ t, origin, browser, external, pageErrors });

async function openApp(theme: Record<string, string>, startParam?: string, who: TelegramUser = user) {
  return openMiniApp(host(), {
    theme,
    user: who,
    ...(startParam ? { startParam } : {}),
    prepare: async (page) => {
      // The page's clock is the server's (2030): "posted 2 hours ago", not "in 38 months".
      await page.context().clock.setFixedTime(t.clock.now());
      await page.addInitScript(injectedWalletScript(WALLET_KEY));
      await page.exposeFunction('__walletConnect', walletAnswers);
    },
  });
}

/** The injected wallet's answer, once the request asks for a ton_proof (the service always does). */
async function walletAnswers(message: WalletConnectRequest) {
  expect(message.items.find((i) => i.name === 'ton_proof')?.payload).toBeTruthy();
  return walletConnectAnswer(wallet, t.clock, message);
}

const explained = (error: unknown, page: Page) => harnessExplained(host(), error, page);
const shot = (page: Page, name: string, theme: 'light' | 'dark') =>
  harnessShot(page, SCREENSHOTS, name, theme);

const visible = (page: Page, text: string | RegExp) => page.getByText(text).first().waitFor();

describe('the Mini App, as a new worker uses it', () => {
  let taskId = '';
  let payoutHash = '';

  it('walks from first run to a rated, paid task', async () => {
    const { context, page } = await openApp(LIGHT_THEME);
    try {
      // Telegram was told the app is ready, and its theme became the page's colours.
      await page.getByRole('heading', { name: 'Welcome, Ana!', level: 1 }).waitFor();
      expect((await events(page)).map((e) => e.type)).toContain('web_app_ready');
      const bg = await bodyBackground(page);
      expect(bg).toBe('rgb(244, 244, 245)'); // secondary_bg_color
      // The first launch says what Handoff is; Continue goes on to the profile.
      await pressMainButton(page, 'Continue');
      await page.getByRole('heading', { name: 'Profile', level: 1 }).waitFor();
      await visible(page, /You appear in agents’ worker search once you have a wallet, a headline/);
      await shot(page, '1-profile-first-run', 'light');

      // Profile, saved with Telegram's main button.
      await page.getByLabel('Headline').fill('Photographer in Lisbon');
      await page.getByLabel('Skills, separated by commas').fill('photography, errands');
      await page.getByLabel('Hourly rate, TON').fill('12');
      await page.getByLabel('Country').fill('PT');
      await page.getByLabel('Time zone').selectOption('Europe/Lisbon');
      await page.getByRole('switch', { name: 'Show my Telegram username' }).check();
      await pressMainButton(page, 'Save profile');
      await page.getByRole('status').filter({ hasText: 'Profile saved.' }).waitFor();
      await visible(page, 'Still missing: a wallet.');
      // Nothing left to save: the main button is gone.
      await expect
        .poll(() => lastEvent(page, 'web_app_setup_main_button'))
        .toMatchObject({ is_visible: false });

      // Wallet: TON Connect UI connects the injected wallet, which signs the service's payload.
      await page.getByRole('button', { name: 'Connect wallet' }).click();
      await visible(page, 'Agents can find you in their worker search.');
      await visible(page, 'Rewards are paid to');
      const me = await ok(t, agent, 'GET', '/agents/workers?limit=100');
      const listed = (me.workers as { firstName: string; headline: string; username?: string }[]).find(
        (w) => w.firstName === 'Ana',
      );
      expect(listed).toMatchObject({ headline: 'Photographer in Lisbon', username: 'ana_on_tg' });
      await shot(page, '2-profile-with-wallet', 'light');

      // An agent posts a task; the worker finds it and applies with a message.
      const task = await createTask(t, agent, {
        title: 'Photograph the town hall',
        description: 'Three photos of the town hall from the square, today before 18:00.',
        reward: '6.5',
        executionDeadlineDays: 2,
      });
      taskId = task.id;
      await page.getByRole('tab', { name: 'Tasks', exact: true }).click();
      await page.getByRole('button', { name: 'Open task Photograph the town hall' }).waitFor();
      await shot(page, '3-tasks', 'light');
      await page.getByRole('button', { name: 'Open task Photograph the town hall' }).click();
      await page.getByRole('heading', { name: 'Photograph the town hall' }).waitFor();
      await page.getByLabel('Message to the agent').fill('I live next to the square.');
      await shot(page, '4-task-apply', 'light');
      await pressMainButton(page, 'Send application');
      await visible(page, 'You applied. The agent will answer here and in Telegram.');

      // The agent accepts through the agent API.
      const agentView = await ok(t, agent, 'GET', `/tasks/${taskId}`);
      const application = (agentView.task.applications as { id: string; message: string }[])[0]!;
      expect(application.message).toBe('I live next to the square.');
      await ok(t, agent, 'PATCH', `/applications/${application.id}`, { status: 'ACCEPTED' });

      // The worker finds it under My tasks and starts.
      await pressBackButton(page);
      await page.getByRole('tab', { name: 'My tasks', exact: true }).click();
      await page.getByRole('region', { name: 'To do' }).waitFor();
      await shot(page, '5-my-tasks', 'light');
      await page.getByRole('button', { name: 'Open task Photograph the town hall' }).click();
      await page.getByRole('button', { name: 'Start work' }).click();
      await page.getByText('In progress', { exact: true }).waitFor();
      await expectMainButton(page, 'Submit work');

      // Chat both ways, live, on the chat's own screen: the agent's message appears without a reload.
      await page.getByRole('button', { name: 'Chat with the agent' }).click();
      const chat = page.getByRole('region', { name: 'Photograph the town hall' });
      await chat.getByText('messages arrive live').waitFor();
      await page.getByLabel('Message', { exact: true }).fill('On my way to the square.');
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      // In the list of messages: the typed text may still be in the box until the POST answers.
      const messages = chat.getByRole('list', { name: 'Messages' });
      await messages.getByText('On my way to the square.').waitFor();
      await ok(
        t,
        agent,
        'POST',
        `/chat/${taskId}/messages`,
        { content: 'Great, thank you! Wide angle please.' },
        201,
      );
      await messages.getByText('Great, thank you! Wide angle please.').waitFor();
      // An attachment: uploaded, previewed, downloadable; the agent sees it.
      await page.getByLabel('Attach a file').setInputFiles({
        name: 'town-hall.png',
        mimeType: 'image/png',
        buffer: readFileSync(fileURLToPath(new URL('../../web/miniapp/public/icon.png', import.meta.url))),
      });
      await chat.getByRole('link', { name: /^town-hall\.png/ }).waitFor();
      await page.getByLabel('Message', { exact: true }).fill('First photo.');
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      await chat.getByRole('button', { name: 'Open image town-hall.png' }).waitFor();
      await chat.getByRole('img', { name: 'town-hall.png' }).waitFor();
      const seen = await ok(t, agent, 'GET', `/chat/${taskId}/messages`);
      expect(
        (seen.messages as { content: string; fileName: string | null }[]).map((m) => [m.content, m.fileName]),
      ).toEqual([
        ['First photo.', 'town-hall.png'],
        ['Great, thank you! Wide angle please.', null],
        ['On my way to the square.', null],
      ]);
      await shot(page, '6-task-chat', 'light');

      // Review, then the agent completes and the reward goes to the wallet on chain.
      await pressBackButton(page);
      await pressMainButton(page, 'Submit work');
      await page.getByLabel('What you did').fill('Three photos of the town hall, from the square.');
      await pressMainButton(page, 'Send for review');
      await page
        .getByRole('status', { name: 'Review time' })
        .getByText('left for the agent to review')
        .waitFor();
      await ok(t, agent, 'POST', `/tasks/${taskId}/complete`);
      await sendDueTransfers(t.ctx);
      const paid = await ok(t, agent, 'GET', '/transactions?type=PAYOUT');
      const payout = (paid.transactions as { task: { id: string } | null; txHash: string | null }[]).find(
        (x) => x.task?.id === taskId,
      );
      payoutHash = payout?.txHash ?? '';
      expect(payoutHash).toMatch(/^[0-9a-f]{64}$/);

      await pressBackButton(page);
      await page.getByRole('tab', { name: 'My tasks', exact: true }).click();
      await page
        .getByRole('region', { name: 'Completed' })
        .getByRole('button', { name: 'Open task Photograph the town hall' })
        .click();
      const payment = page.getByRole('region', { name: 'Payment' });
      await payment.getByText(payoutHash).waitFor();
      await payment.getByText('6.5 TON').waitFor();

      // Rating the agent.
      await page.getByRole('radio', { name: '5 stars' }).check();
      await page.getByLabel('Comment (optional)').fill('Clear brief, quick answers.');
      await shot(page, '7-task-completed', 'light');
      await pressMainButton(page, 'Send rating');
      await page
        .getByRole('status', { name: 'Your rating' })
        .getByText('You rated the agent 5 of 5.')
        .waitFor();
      const ratings = await ok(t, agent, 'GET', `/tasks/${taskId}/ratings`);
      expect(JSON.stringify(ratings)).toContain('Clear brief, quick answers.');

      // Earnings list the payout with its transaction.
      await pressBackButton(page);
      await page.getByRole('tab', { name: 'Earnings', exact: true }).click();
      await page.getByRole('region', { name: 'By task' }).getByText(payoutHash).waitFor();
      await shot(page, '8-earnings', 'light');
    } catch (error) {
      throw await explained(error, page);
    } finally {
      await context.close();
    }
  });

  it('shows the same screens in Telegram’s dark theme, and opens a task from a deep link', async () => {
    expect(taskId).not.toBe('');
    // The manual clock moves past the rate limits' minute: the light walk made its requests.
    t.clock.advance(61_000);
    // First run, dark: a worker who has set nothing up yet.
    const first = await openApp(DARK_THEME, undefined, newcomer);
    try {
      await first.page.getByRole('heading', { name: 'Welcome, Bea!', level: 1 }).waitFor();
      expect(await bodyBackground(first.page)).toBe('rgb(15, 15, 15)');
      await pressMainButton(first.page, 'Continue');
      await first.page.getByRole('heading', { name: 'Profile', level: 1 }).waitFor();
      await visible(first.page, /You appear in agents’ worker search once you have a wallet, a headline/);
      await shot(first.page, '1-profile-first-run', 'dark');
    } catch (error) {
      throw await explained(error, first.page);
    } finally {
      await first.context.close();
    }

    const { context, page } = await openApp(DARK_THEME, `task_${taskId}`);
    try {
      // The deep link opened the task itself.
      await page.getByRole('heading', { name: 'Photograph the town hall' }).waitFor();
      const bg = await bodyBackground(page);
      expect(bg).toBe('rgb(15, 15, 15)');
      await page.getByRole('region', { name: 'Payment' }).getByText(payoutHash).waitFor();
      await page.getByRole('button', { name: 'Chat with the agent' }).click();
      await page.getByRole('list', { name: 'Messages' }).getByText('First photo.').waitFor();
      await pressBackButton(page);
      await page.getByRole('region', { name: 'Payment' }).getByText(payoutHash).waitFor();
      await shot(page, '7-task-completed', 'dark');
      await pressBackButton(page);
      for (const [tab, name, ready] of [
        ['Tasks', '3-tasks', 'Open tasks'],
        ['My tasks', '5-my-tasks', 'Completed'],
        ['Earnings', '8-earnings', 'By task'],
        ['Profile', '2-profile-with-wallet', 'Wallet'],
      ] as const) {
        await page.getByRole('tab', { name: tab, exact: true }).click();
        await page.getByRole('region', { name: ready }).waitFor();
        // Every section loading at once shows one status each: wait until none is left.
        await expect
          .poll(() =>
            page
              .getByRole('status')
              .filter({ hasText: /Loading/ })
              .count(),
          )
          .toBe(0);
        await shot(page, name, 'dark');
      }

      // Applying and the chat, dark: a second task, accepted by the agent, then worked on. The
      // manual clock moves past the rate limits' minute: the screens above made their requests.
      t.clock.advance(61_000);
      const parcel = await createTask(t, agent, {
        title: 'Post a parcel',
        description: 'Take a small parcel to the post office on Rua Augusta and send it registered.',
        reward: '3',
        executionDeadlineDays: 1,
      });
      await page.getByRole('tab', { name: 'Tasks', exact: true }).click();
      await page.getByRole('button', { name: 'Open task Post a parcel' }).click();
      await page.getByRole('heading', { name: 'Post a parcel' }).waitFor();
      await visible(page, '1 day to do');
      await page.getByLabel('Message to the agent').fill('I pass the post office every morning.');
      await shot(page, '4-task-apply', 'dark');
      await pressMainButton(page, 'Send application');
      await visible(page, 'You applied. The agent will answer here and in Telegram.');
      const applied = await ok(t, agent, 'GET', `/tasks/${parcel.id}`);
      const application = (applied.task.applications as { id: string }[])[0]!;
      await ok(t, agent, 'PATCH', `/applications/${application.id}`, { status: 'ACCEPTED' });
      await pressBackButton(page);
      await page.getByRole('tab', { name: 'My tasks', exact: true }).click();
      await page
        .getByRole('region', { name: 'To do' })
        .getByRole('button', { name: 'Open task Post a parcel' })
        .click();
      await page.getByRole('button', { name: 'Start work' }).click();
      await page.getByText('In progress', { exact: true }).waitFor();
      await expectMainButton(page, 'Submit work');
      await page.getByRole('button', { name: 'Chat with the agent' }).click();
      const chat = page.getByRole('region', { name: 'Post a parcel' });
      await chat.getByText('messages arrive live').waitFor();
      await page.getByLabel('Message', { exact: true }).fill('Parcel picked up.');
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      const messages = chat.getByRole('list', { name: 'Messages' });
      await messages.getByText('Parcel picked up.').waitFor();
      await ok(
        t,
        agent,
        'POST',
        `/chat/${parcel.id}/messages`,
        { content: `Thanks! Keep the receipt and track it at ${TRACKING_URL}` },
        201,
      );
      // A long URL is one long word: it wraps inside its bubble (the check in shot() says so).
      await messages.getByText(TRACKING_URL).waitFor();
      await shot(page, '6-task-chat', 'dark');
    } catch (error) {
      throw await explained(error, page);
    } finally {
      await context.close();
    }
    // Nothing was asked of anyone but the service: no scripts, styles, API calls, wallets list or
    // wallet icons (the service serves those; see test/e2e/webPrivacy.test.ts).
    expect(external).toEqual([]);
  });
});
