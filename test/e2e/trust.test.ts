import { mkdirSync, mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendDueTransfers } from '../../src/domain/money/payouts.js';
import { accept, apply, type Json, ok } from '../helpers/agentApi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createWorker, deposit, expectBooksBalanced, type TestWorker } from '../helpers/fixtures.js';
import { newTonWallet, unixSeconds } from '../helpers/tonConnect.js';
import { checkScreen } from './axe.js';
import { launchChromium } from './browser.js';
import { injectTonConnectWallet } from './consoleBrowser.js';
import {
  explained,
  goToApp,
  imagesLoaded,
  lastEvent,
  type MiniAppHost,
  type OpenOptions,
  openMiniApp,
  pressBackButton,
  pressMainButton,
  shot,
  WAIT_MS,
} from './miniappHarness.js';
import { photoPng } from './photos.js';
import { DARK_THEME, type HostLocation, LIGHT_THEME, type TelegramUser } from './telegramHost.js';

/**
 * Trust between agents and workers (issue 25), both sides in Chromium against one real server:
 * the worker in the Mini App (a phone, light and dark) submits work with photos and a location,
 * the owner reviews it in the console (approves; asks for a revision with a reason, which the
 * worker reads and answers with a new submission), the worker opens a dispute, both sides add
 * statements, and an operator resolves it with a split in the console. Screenshots of the new
 * screens go to docs/screenshots with UPDATE_SCREENSHOTS=1.
 */
const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS
  ? fileURLToPath(new URL('../../docs/screenshots/', import.meta.url))
  : mkdtempSync(path.join(os.tmpdir(), 'handoff-screenshots-'));
const DESKTOP = { width: 1280, height: 900 };
const FLOW_TIMEOUT_MS = 300_000;

/** Praça do Comércio, Lisbon: the task's spot, and the phone a little way off inside its area. */
const SQUARE = {
  latitude: 38.70775,
  longitude: -9.13659,
  radiusMeters: 300,
  label: 'Praça do Comércio, Lisbon',
};
const PHONE_HERE: HostLocation = { latitude: 38.7081, longitude: -9.1372, horizontal_accuracy: 12 };

let t: TestApp;
let origin: string;
let browser: Browser;
const external: { url: string; type: string }[] = [];
const pageErrors: string[] = [];
const host = (): MiniAppHost => ({ t, origin, browser, external, pageErrors });

/** The owner's console (signed in with a TON Connect wallet) and their agent's key. */
let owner: { context: BrowserContext; page: Page };
let agentId = '';
let agent: { headers: { authorization: string } };
let worker: TestWorker;
let ana: TelegramUser;
/** The worker's phone in each theme: the light one acts, the dark one shows the same screens. */
const phones: Record<'light' | 'dark', { context: BrowserContext; page: Page } | null> = {
  light: null,
  dark: null,
};

beforeAll(async () => {
  t = await createTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  t.config.publicUrl = origin;
  Object.assign(t.ctx, { publicUrl: origin }); // stored files' URLs
  t.config.tonProofDomains.push(`127.0.0.1:${port}`);
  browser = await launchChromium();
  mkdirSync(SCREENSHOTS, { recursive: true });
  worker = await createWorker(t, {
    firstName: 'Ana',
    profile: { headline: 'Photographer in Lisbon', skills: ['photo'] },
  });
  ana = { id: worker.telegramId, first_name: 'Ana' };
}, 180_000);

afterAll(async () => {
  for (const phone of Object.values(phones)) await phone?.context.close();
  await owner?.context.close();
  await browser?.close();
  await t?.close();
});

/**
 * Moves the server's manual clock a minute on (past the rate limits' window: the pages poll) and
 * gives every page the same time, so countdowns count from the server's now.
 */
async function nextMinute() {
  t.clock.advance(61_000);
  for (const context of [owner?.context, phones.light?.context, phones.dark?.context]) {
    await context?.clock.setFixedTime(t.clock.now());
  }
}

async function openPhone(theme: 'light' | 'dark', startParam: string) {
  const options = phoneOptions(theme, startParam);
  const opened = await openMiniApp(host(), {
    ...options,
    prepare: async (page) => page.context().clock.setFixedTime(t.clock.now()),
  });
  phones[theme] = opened;
  return opened.page;
}

function phoneOptions(theme: 'light' | 'dark', startParam: string): OpenOptions {
  return { theme: theme === 'light' ? LIGHT_THEME : DARK_THEME, user: ana, startParam, location: PHONE_HERE };
}

/** The worker's phone in `theme`, reopened at the task (as from the bot's link). */
async function phoneAt(theme: 'light' | 'dark', taskId: string, title: string): Promise<Page> {
  const phone = phones[theme];
  const page = phone ? phone.page : await openPhone(theme, `task_${taskId}`);
  if (phone) await goToApp(host(), page, phoneOptions(theme, `task_${taskId}`));
  await page.getByRole('heading', { name: title, level: 1 }).waitFor();
  return page;
}

const shoot = async (page: Page, name: string, theme: 'light' | 'dark') => {
  await imagesLoaded(page);
  await shot(page, SCREENSHOTS, name, theme);
};

const consoleShot = async (page: Page, name: string) => {
  await imagesLoaded(page);
  await checkScreen(page, `console ${name}`);
  await page.screenshot({ path: path.join(SCREENSHOTS, `console-${name}.png`), fullPage: true });
};

/** Runs a step on a page and, when it fails, says what the page showed. */
async function onPage<T>(page: Page, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    throw await explained(host(), error, page);
  }
}

const photo = (name: string, seed: number) => ({
  name,
  mimeType: 'image/png',
  buffer: photoPng({ sky: [90, 150, 230], building: seed ? [190, 120, 90] : [220, 200, 160], seed }),
});

/** A task of the owner's agent, assigned to Ana (she applied, the agent accepted). */
async function assigned(body: Record<string, unknown>): Promise<string> {
  const { task } = await ok(t, agent, 'POST', '/tasks', body, 201);
  const applicationId = await apply(t, worker, task.id, 'I am nearby.');
  await accept(t, agent as Json, applicationId);
  return task.id as string;
}

async function ownerAt(taskId: string) {
  const url = `${origin}/console/#/agents/${agentId}/tasks/${taskId}`;
  // The same address again only changes nothing: reload, as the owner opening the task afresh.
  if (owner.page.url() === url) await owner.page.reload();
  else await owner.page.goto(url);
  await owner.page.getByRole('region', { name: 'Submitted work' }).waitFor();
}

describe('trust between agents and workers, in the Mini App and the console', () => {
  it(
    'the owner signs in to the console and has an agent with money',
    async () => {
      const context = await browser.newContext({ viewport: DESKTOP });
      context.setDefaultTimeout(WAIT_MS * 3);
      const page = await context.newPage();
      owner = { context, page };
      await context.clock.setFixedTime(t.clock.now());
      await injectTonConnectWallet(page, newTonWallet('v5r1'), () => unixSeconds(t.clock.now()));
      await page.goto(`${origin}/console/`);
      await page.getByRole('button', { name: 'Sign in with wallet' }).click();
      await page.getByText('Handoff Test Wallet').first().click();
      await page.getByRole('heading', { name: 'Your agents' }).waitFor();
      await page.getByRole('textbox', { name: 'Agent name' }).fill('Lisbon field agent');
      await page.getByRole('button', { name: 'Create agent' }).click();
      const key = await page.getByRole('textbox', { name: 'API key' }).inputValue();
      await page.getByRole('button', { name: 'Done' }).click();
      await page.getByRole('heading', { name: 'Lisbon field agent' }).waitFor();
      agentId = decodeURIComponent(new URL(page.url()).hash.split('/')[2]!);
      agent = { headers: { authorization: `Bearer ${key}` } };
      await deposit(t, agentId, '50');
    },
    FLOW_TIMEOUT_MS,
  );

  let townHall = '';

  it(
    'submit work with photos and a location in the Mini App; the owner approves it in the console',
    async () => {
      expect(agentId).toMatch(/^agt_/);
      townHall = await assigned({
        title: 'Photograph the town hall',
        description: 'Two photos of the town hall from the square, in daylight.',
        reward: '6',
        reviewHours: 48,
        location: SQUARE,
      });
      await nextMinute();

      // The task, with who the agent is and where the work is; the worker starts.
      const light = await phoneAt('light', townHall, 'Photograph the town hall');
      await onPage(light, async () => {
        const about = light.getByRole('region', { name: 'About the agent' });
        await about.getByText('Lisbon field agent').waitFor();
        await about.getByText('Tasks paid').waitFor();
        await about.getByText('No ratings yet').waitFor();
        const where = light.getByRole('region', { name: 'Where' });
        await where.getByText('Praça do Comércio, Lisbon').waitFor();
        // The map opens in the phone's browser through Telegram, not inside the app.
        await where.getByRole('link', { name: 'Open the map' }).click();
        await expect
          .poll(() => lastEvent(light, 'web_app_open_link'))
          .toMatchObject({
            url: 'https://www.openstreetmap.org/?mlat=38.70775&mlon=-9.13659#map=16/38.70775/-9.13659',
          });
        await where.getByRole('button', { name: 'Show how far I am' }).click();
        await where
          .getByRole('status')
          .filter({ hasText: /^You are inside the area \(\d+ m from its centre\)\.$/ })
          .waitFor();
        await light.getByRole('button', { name: 'Start work' }).click();
        await light.getByText('In progress', { exact: true }).waitFor();
        await shoot(light, '9-task-in-progress', 'light');
      });
      const dark = await phoneAt('dark', townHall, 'Photograph the town hall');
      await onPage(dark, async () => {
        await dark
          .getByRole('region', { name: 'Where' })
          .getByRole('button', { name: 'Show how far I am' })
          .click();
        await dark.getByRole('region', { name: 'Where' }).getByRole('status').waitFor();
        await shoot(dark, '9-task-in-progress', 'dark');
      });

      // "Submit work": a note, two photos (camera or gallery), the phone's location.
      const fillSubmission = async (page: Page) => {
        await pressMainButton(page, 'Submit work');
        await page.getByRole('heading', { name: 'Submit work', level: 1 }).waitFor();
        await page.getByLabel('What you did').fill('Two photos from the square at 10:00, sun behind me.');
        const input = page.getByLabel('Add photos from the camera or gallery');
        expect(await input.getAttribute('accept')).toBe('image/*');
        await input.setInputFiles([photo('town-hall-front.png', 0), photo('town-hall-side.png', 1)]);
        const chosen = page.getByRole('list', { name: 'Chosen photos' });
        await chosen.getByRole('img', { name: 'town-hall-front.png' }).waitFor();
        await chosen.getByRole('img', { name: 'town-hall-side.png' }).waitFor();
        await page.getByRole('button', { name: 'Share my location' }).click();
        await page
          .getByRole('region', { name: 'Location' })
          .getByRole('status')
          .filter({
            hasText: 'Your location is added (accurate to about 12 m). You are inside the task’s area.',
          })
          .waitFor();
      };
      await onPage(dark, async () => {
        await fillSubmission(dark);
        await shoot(dark, '10-submit-work', 'dark');
        await pressBackButton(dark);
      });
      await nextMinute(); // uploads have their own per-minute limit
      await onPage(light, async () => {
        await fillSubmission(light);
        await shoot(light, '10-submit-work', 'light');
        await pressMainButton(light, 'Send for review');
        // Back on the task: the agent's review clock, from the task's 48 hours.
        const clock = light.getByRole('status', { name: 'Review time' });
        await clock.getByText('2 days', { exact: true }).waitFor();
        await clock
          .getByText(/If the agent neither approves nor asks for changes by .+, you are paid automatically\./)
          .waitFor();
        const mine = light.getByRole('region', { name: 'Your submissions' });
        await mine.getByText('Waiting for review').waitFor();
        await shoot(light, '11-review-countdown', 'light');
      });
      const [submission] = (await ok(t, agent, 'GET', `/tasks/${townHall}/submissions`))
        .submissions as Json[];
      expect(submission).toMatchObject({
        number: 1,
        status: 'PENDING',
        note: 'Two photos from the square at 10:00, sun behind me.',
        location: {
          latitude: PHONE_HERE.latitude,
          longitude: PHONE_HERE.longitude,
          accuracyMeters: 12,
          withinArea: true,
        },
      });
      expect((submission.attachments as Json[]).map((a) => [a.name, a.contentType])).toEqual([
        ['town-hall-front.png', 'image/png'],
        ['town-hall-side.png', 'image/png'],
      ]);
      await onPage(dark, async () => {
        await phoneAt('dark', townHall, 'Photograph the town hall');
        await dark
          .getByRole('status', { name: 'Review time' })
          .getByText('2 days', { exact: true })
          .waitFor();
        await shoot(dark, '11-review-countdown', 'dark');
      });

      // The owner sees the work with its photos and where it was made, and approves.
      await ownerAt(townHall);
      const work = owner.page.getByRole('region', { name: 'Submitted work' });
      await onPage(owner.page, async () => {
        await work.getByRole('img', { name: 'town-hall-front.png' }).waitFor();
        await work.getByRole('img', { name: 'town-hall-side.png' }).waitFor();
        await work.getByText('inside the task’s area').waitFor();
        await work.getByText(/^2 d 0 h left to review; then the reward is released/).waitFor();
        await owner.page
          .getByRole('group', { name: 'Status' })
          .getByText('Waiting for your review')
          .waitFor();
        await consoleShot(owner.page, 'task-review');
        await work.getByRole('button', { name: 'Approve', exact: true }).click();
        await work
          .getByRole('region', { name: 'Confirm approval' })
          .getByRole('button', { name: 'Approve and pay 6 TON' })
          .click();
        await work
          .getByRole('status')
          .filter({ hasText: 'Approved: the reward is on its way to the worker.' })
          .waitFor();
        await owner.page.getByRole('group', { name: 'Status' }).getByText('Completed').waitFor();
      });
      const { task } = await ok(t, agent, 'GET', `/tasks/${townHall}`);
      expect(task).toMatchObject({ status: 'COMPLETED', paymentStatus: 'RELEASED' });
      await sendDueTransfers(t.ctx);

      // The worker's task is completed and paid.
      await nextMinute();
      await onPage(light, async () => {
        await phoneAt('light', townHall, 'Photograph the town hall');
        await light.getByRole('region', { name: 'Payment' }).getByText('6 TON').waitFor();
        await light.getByRole('region', { name: 'Your submissions' }).getByText('Approved').waitFor();
      });
    },
    FLOW_TIMEOUT_MS,
  );

  let parcel = '';
  const REVISION_REASON =
    'The receipt is not in the photos: please add a photo of the registered-mail receipt.';

  it(
    'the owner asks for a revision with a reason; the worker reads it and submits again',
    async () => {
      parcel = await assigned({
        title: 'Post a parcel',
        description: 'Send the small parcel registered from the post office on Rua Augusta.',
        reward: '3',
        reviewHours: 24,
      });
      await ok(
        t,
        worker,
        'POST',
        `/worker/tasks/${parcel}/submissions`,
        { note: 'Parcel sent this morning.' },
        201,
      );
      await nextMinute();

      await ownerAt(parcel);
      const work = owner.page.getByRole('region', { name: 'Submitted work' });
      await onPage(owner.page, async () => {
        await work.getByText('Parcel sent this morning.').waitFor();
        await work.getByRole('button', { name: 'Request revision' }).click();
        await work.getByLabel('What should the worker change?').fill(REVISION_REASON);
        await work.getByRole('button', { name: 'Send revision request' }).click();
        await work
          .getByRole('status')
          .filter({ hasText: 'Revision requested: the worker was told your reason.' })
          .waitFor();
        await work.getByText('1 of 3 revisions used').waitFor();
      });

      for (const theme of ['dark', 'light'] as const) {
        const page = await phoneAt(theme, parcel, 'Post a parcel');
        await onPage(page, async () => {
          const asked = page.getByRole('status', { name: 'Changes asked' });
          await asked.getByText(REVISION_REASON).waitFor();
          await asked.getByText('The agent asked for changes').waitFor();
          await page.getByRole('button', { name: 'Open a dispute' }).waitFor();
          await shoot(page, '12-revision-asked', theme);
        });
      }
      const light = phones.light!.page;
      await onPage(light, async () => {
        await pressMainButton(light, 'Submit work again');
        await light.getByRole('heading', { name: 'Submit work again', level: 1 }).waitFor();
        await light.getByLabel('What you did').fill('Here is the receipt for the registered parcel.');
        await light
          .getByLabel('Add photos from the camera or gallery')
          .setInputFiles([photo('receipt.png', 2)]);
        await light
          .getByRole('list', { name: 'Chosen photos' })
          .getByRole('img', { name: 'receipt.png' })
          .waitFor();
        await pressMainButton(light, 'Send for review');
        await light
          .getByRole('status', { name: 'Review time' })
          .getByText('1 day', { exact: true })
          .waitFor();
        const mine = light.getByRole('region', { name: 'Your submissions' });
        await mine.getByRole('article', { name: 'Submission 2' }).getByText('Waiting for review').waitFor();
        await mine
          .getByRole('article', { name: 'Submission 1' })
          .getByText('Changes asked', { exact: true })
          .waitFor();
      });
      const { submissions } = await ok(t, agent, 'GET', `/tasks/${parcel}/submissions`);
      expect((submissions as Json[]).map((s) => [s.number, s.status, s.revisionReason])).toEqual([
        [2, 'PENDING', null],
        [1, 'REVISION_REQUESTED', REVISION_REASON],
      ]);
    },
    FLOW_TIMEOUT_MS,
  );

  it(
    'the worker opens a dispute after a revision request; both sides add statements; an operator resolves it with a split',
    async () => {
      expect(parcel).not.toBe('');
      await nextMinute();
      await ownerAt(parcel);
      const work = owner.page.getByRole('region', { name: 'Submitted work' });
      await onPage(owner.page, async () => {
        await work.getByRole('button', { name: 'Request revision' }).click();
        await work
          .getByLabel('What should the worker change?')
          .fill('The receipt shows a different address.');
        await work.getByRole('button', { name: 'Send revision request' }).click();
        await work.getByText('2 of 3 revisions used').waitFor();
      });

      // The worker disagrees: a dispute, then a statement with a photo as evidence.
      const light = await phoneAt('light', parcel, 'Post a parcel');
      await onPage(light, async () => {
        await light.getByRole('button', { name: 'Open a dispute' }).click();
        await light.getByRole('heading', { name: 'Dispute', level: 1 }).waitFor();
        await light
          .getByLabel('Why you disagree with the agent')
          .fill('The address on the receipt is the one in the task.');
        await pressMainButton(light, 'Open dispute');
        await light.getByText('Open: an operator will decide').waitFor();
        const statement = light.getByRole('form', { name: 'Add a statement' });
        await statement.getByLabel('Your statement').fill('Here is the task text next to the receipt.');
        await statement
          .getByLabel('Add photos from the camera or gallery')
          .setInputFiles([photo('receipt-and-task.png', 3)]);
        await statement.getByRole('img', { name: 'receipt-and-task.png' }).waitFor();
        await pressMainButton(light, 'Add statement');
        await light
          .getByRole('region', { name: 'Statements' })
          .getByRole('img', { name: 'receipt-and-task.png' })
          .waitFor();
      });
      const { task: disputed } = await ok(t, agent, 'GET', `/tasks/${parcel}`);
      expect(disputed.dispute).toMatchObject({ status: 'OPEN', openedBy: 'WORKER' });

      // The owner answers in the console.
      await nextMinute();
      await ownerAt(parcel);
      const dispute = owner.page.getByRole('region', { name: 'Dispute' });
      await onPage(owner.page, async () => {
        await dispute.getByText('The address on the receipt is the one in the task.').waitFor();
        await dispute.getByRole('img', { name: 'receipt-and-task.png' }).waitFor();
        await dispute
          .getByLabel('Your statement')
          .fill('Our records have the parcel going to Porto, not Lisbon.');
        await dispute.getByRole('button', { name: 'Add statement' }).click();
        await dispute.getByText('Our records have the parcel going to Porto, not Lisbon.').waitFor();
        await owner.page.getByRole('group', { name: 'Status' }).getByText('In dispute').waitFor();
        await consoleShot(owner.page, 'task-dispute');
      });

      for (const theme of ['dark', 'light'] as const) {
        await slowSecondRead(theme, parcel);
        const page = await phoneAt(theme, parcel, 'Post a parcel');
        await onPage(page, async () => {
          const statements = page.getByRole('region', { name: 'Statements' });
          await tapViewDispute(page, statements);
          await statements.getByText('Our records have the parcel going to Porto, not Lisbon.').waitFor();
          await statements.getByText(/^The agent · /).waitFor();
          await statements.getByText(/^You · /).waitFor();
          await shoot(page, '13-dispute', theme);
        });
      }

      // What they said in the chat is evidence too.
      const said = 'Sent registered this morning, to the address written in the task.';
      await ok(t, worker, 'POST', `/worker/chat/${parcel}/messages`, { content: said }, 201);
      await ok(
        t,
        agent,
        'POST',
        `/chat/${parcel}/messages`,
        { content: 'That address is our old office.' },
        201,
      );

      // The operator: the queue, the dispute with everything needed to judge, then a split.
      const { context, page } = await (async () => {
        const c = await browser.newContext({ viewport: DESKTOP });
        c.setDefaultTimeout(WAIT_MS * 3);
        await c.clock.setFixedTime(t.clock.now());
        return { context: c, page: await c.newPage() };
      })();
      try {
        await onPage(page, async () => {
          await page.goto(`${origin}/console/#/operator/disputes`);
          await page.getByLabel('Admin token').fill(t.config.adminToken);
          await page.getByRole('button', { name: 'Open operator pages' }).click();
          const queue = page.getByRole('table', { name: 'Disputes' });
          const row = queue.getByRole('row', { name: /Post a parcel/ });
          await row.getByRole('cell', { name: 'Lisbon field agent' }).waitFor();
          await row.getByRole('cell', { name: 'Ana', exact: true }).waitFor();
          await row.getByRole('cell', { name: '3 TON' }).waitFor();
          await consoleShot(page, 'disputes');
          await row.getByRole('link', { name: 'Post a parcel' }).click();

          await page.getByRole('heading', { name: 'Dispute: Post a parcel' }).waitFor();
          const submissions = page.getByRole('region', { name: 'Submissions' });
          await submissions.getByRole('img', { name: 'receipt.png' }).waitFor();
          await submissions.getByText('The receipt shows a different address.').waitFor();
          const statements = page.getByRole('region', { name: 'Statements' });
          await statements.getByText('Here is the task text next to the receipt.').waitFor();
          await statements.getByText('Our records have the parcel going to Porto, not Lisbon.').waitFor();
          await page.getByRole('region', { name: 'Task' }).getByText('Rua Augusta').waitFor();
          const chat = page.getByRole('region', { name: 'Chat' });
          await chat.getByText(said).waitFor();
          await chat.getByText('That address is our old office.').waitFor();

          // Half the reward to the worker: the slider sets the amount, the split follows.
          const resolve = page.getByRole('region', { name: 'Resolve the dispute' });
          await resolve
            .getByRole('slider', { name: 'Share of the reward to the worker, percent' })
            .fill('50');
          expect(await resolve.getByLabel('Worker’s amount (TON)').inputValue()).toBe('1.5');
          const split = resolve.getByRole('table', { name: 'Split' }).first();
          // Reward 3 TON with a 0.9 TON fee: the fee in proportion is 0.45, the agent gets 1.95 back.
          await split.getByRole('row', { name: 'To the worker, on chain 1.5 TON' }).waitFor();
          await split.getByRole('row', { name: 'Platform fee 0.45 TON' }).waitFor();
          await split.getByRole('row', { name: 'Back to the agent’s balance 1.95 TON' }).waitFor();
          await resolve
            .getByLabel('Note to both sides')
            .fill('The parcel was sent, but to the address the worker read; half each.');
          await resolve.getByRole('button', { name: 'Review the decision' }).click();
          const confirm = resolve.getByRole('region', { name: 'Confirm the decision' });
          await confirm
            .getByText('The task is completed with a partial payment of 1.5 TON of 3 TON.')
            .waitFor();
          await consoleShot(page, 'dispute-resolve');
          await confirm.getByRole('button', { name: 'Confirm resolution' }).click();
          await page
            .getByRole('region', { name: 'Decision' })
            .getByText(/^1\.5\sTON of 3\sTON to the worker/)
            .waitFor();
          // The page now reads the task's settlement, not the reward and fee held (issue 36).
          await expectSettlementStats(page, { paid: '1.5', fee: '0.45', returned: '1.95' }, 'the agent');
        });
      } finally {
        await context.close();
      }
      // The owner's task page says the same.
      await onPage(owner.page, async () => {
        await ownerAt(parcel);
        await expectSettlementStats(owner.page, { paid: '1.5', fee: '0.45', returned: '1.95' }, 'you');
      });
      const { task } = await ok(t, agent, 'GET', `/tasks/${parcel}`);
      expect(task).toMatchObject({ status: 'COMPLETED', dispute: { status: 'RESOLVED' } });
      expect(task.dispute.resolution).toMatchObject({
        workerAmount: '1.5',
        platformFee: '0.45',
        agentAmount: '1.95',
      });
      await sendDueTransfers(t.ctx);
      await expectBooksBalanced(t);

      // The worker reads the decision.
      await nextMinute();
      for (const theme of ['dark', 'light'] as const) {
        const page = await phoneAt(theme, parcel, 'Post a parcel');
        await onPage(page, async () => {
          const decision = page.getByRole('status', { name: 'Decision' });
          await tapViewDispute(page, decision);
          await decision
            .getByText('The operator decided that you get 1.5 TON of the 3 TON reward.')
            .waitFor();
          await decision
            .getByText('The parcel was sent, but to the address the worker read; half each.')
            .waitFor();
          await shoot(page, '14-dispute-decided', theme);
        });
      }
      // Nothing was asked of anyone but the service.
      expect(external).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );

  it(
    'the owner opens a dispute on waiting work; the operator gives the reward back to the agent',
    async () => {
      await nextMinute();
      const flyers = await assigned({
        title: 'Hand out flyers',
        description: 'Hand out 200 flyers at the market on Saturday morning.',
        reward: '2',
      });
      await ok(
        t,
        worker,
        'POST',
        `/worker/tasks/${flyers}/submissions`,
        { note: 'All 200 handed out.' },
        201,
      );
      await ownerAt(flyers);
      const work = owner.page.getByRole('region', { name: 'Submitted work' });
      await onPage(owner.page, async () => {
        await work.getByRole('button', { name: 'Open dispute' }).click();
        await work.getByLabel('Why do you dispute this work?').fill('The market was closed on Saturday.');
        await work.getByRole('button', { name: 'Open the dispute' }).click();
        await work
          .getByRole('status')
          .filter({ hasText: 'Dispute opened: an operator will decide.' })
          .waitFor();
        const dispute = owner.page.getByRole('region', { name: 'Dispute' });
        await dispute.getByText('The market was closed on Saturday.').waitFor();
        await dispute.getByText('Agent', { exact: true }).waitFor();
      });
      const before = (await ok(t, agent, 'GET', '/agents/me')).agent.balance as string;

      const context = await browser.newContext({ viewport: DESKTOP });
      context.setDefaultTimeout(WAIT_MS * 3);
      await context.clock.setFixedTime(t.clock.now());
      const page = await context.newPage();
      try {
        await onPage(page, async () => {
          await page.goto(`${origin}/console/#/operator/disputes`);
          await page.getByLabel('Admin token').fill(t.config.adminToken);
          await page.getByRole('button', { name: 'Open operator pages' }).click();
          const row = page
            .getByRole('table', { name: 'Disputes' })
            .getByRole('row', { name: /Hand out flyers/ });
          await row.getByRole('cell', { name: 'Agent', exact: true }).waitFor();
          await row.getByRole('link', { name: 'Hand out flyers' }).click();
          const resolve = page.getByRole('region', { name: 'Resolve the dispute' });
          // An amount past the reward is refused in words before anything is sent.
          await resolve.getByLabel('Worker’s amount (TON)').fill('2.5');
          await resolve.getByText('The worker’s amount must be between 0 and the reward, 2 TON').waitFor();
          expect(await resolve.getByRole('button', { name: 'Review the decision' }).isDisabled()).toBe(true);
          await resolve.getByRole('button', { name: 'Nothing' }).click();
          await resolve.getByRole('row', { name: 'Back to the agent’s balance 2.6 TON' }).waitFor();
          await resolve.getByLabel('Note to both sides').fill('The market was closed that day.');
          await resolve.getByRole('button', { name: 'Review the decision' }).click();
          const confirm = resolve.getByRole('region', { name: 'Confirm the decision' });
          await confirm.getByText('The task is cancelled and the agent gets everything back.').waitFor();
          await confirm.getByRole('button', { name: 'Confirm resolution' }).click();
          await page
            .getByRole('region', { name: 'Decision' })
            .getByText(/^0\sTON of 2\sTON to the worker/)
            .waitFor();
        });
      } finally {
        await context.close();
      }
      const { task } = await ok(t, agent, 'GET', `/tasks/${flyers}`);
      expect(task).toMatchObject({
        status: 'CANCELLED',
        paymentStatus: 'REFUNDED',
        dispute: { status: 'RESOLVED' },
      });
      const after = (await ok(t, agent, 'GET', '/agents/me')).agent.balance as string;
      expect(Number(after) - Number(before)).toBeCloseTo(2.6, 9);
      await expectBooksBalanced(t);

      const light = await phoneAt('light', flyers, 'Hand out flyers');
      await onPage(light, async () => {
        await light.getByText('Cancelled', { exact: true }).waitFor();
        await tapViewDispute(light, light.getByRole('status', { name: 'Decision' }));
        await light
          .getByRole('status', { name: 'Decision' })
          .getByText('The operator decided that the reward goes back to the agent.')
          .waitFor();
      });
    },
    FLOW_TIMEOUT_MS,
  );
});

/**
 * Taps "View the dispute" once and checks the dispute stays on screen. The walk used to tap again
 * when a tap seemed lost under CI load: the tap had worked, but a late answer to the launch link's
 * task read reopened the task view over it (the link's effect ran again when the profile's
 * language arrived, and twice in React's development build, which the tests were served by
 * mistake). With every read of the task after the first slowed (slowSecondRead), such a late
 * answer would land after the tap every time; the dispute must still be there once it came.
 */
/**
 * The money stats of an ended task on a console page: what the settlement says was paid, taken and
 * returned, that an operator decided, a payment line that says "in part", and the disputed
 * submission marked as decided. The fee held at creation (0.9 of 3 TON) must not show.
 */
async function expectSettlementStats(
  page: Page,
  money: { paid: string; fee: string; returned: string },
  returnedTo: string,
): Promise<void> {
  const stat = (name: string) => page.getByRole('group', { name, exact: true });
  await stat('Paid to the worker').getByText(`${money.paid} TON`).waitFor();
  await stat('Fee taken').getByText(`${money.fee} TON`).waitFor();
  await stat(`Returned to ${returnedTo}`).getByText(`${money.returned} TON`).waitFor();
  await stat('Decided by').getByText('An operator').waitFor();
  await stat('Payment').getByText('Paid in part, the rest returned').waitFor();
  expect(await stat('Fee held').count()).toBe(0);
  await page.getByText('Decided by an operator', { exact: true }).first().waitFor();
}

async function tapViewDispute(page: Page, shown: Locator): Promise<void> {
  await page.getByRole('button', { name: 'View the dispute' }).click();
  await shown.waitFor();
  // Longer than a slowed read takes to answer: a reopening caused by it would have happened.
  await page.waitForTimeout(2_500);
  expect(await shown.isVisible()).toBe(true);
  await expect.poll(() => page.getByRole('button', { name: 'View the dispute' }).count()).toBe(0);
}

/** Slows every read of the task after the first on this phone by 1.5 s (a slow network). */
async function slowSecondRead(theme: 'light' | 'dark', taskId: string): Promise<void> {
  const page = phones[theme]?.page;
  if (!page) return;
  let reads = 0;
  await page.route(`**/worker/tasks/${taskId}`, async (route) => {
    reads += 1;
    if (reads > 1) await new Promise((resolve) => setTimeout(resolve, 1_500));
    await route.continue();
  });
}
