import { mkdirSync, mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireApprovals } from '../../src/domain/agents/approvals.js';
import { type Json, ok } from '../helpers/agentApi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { consoleOk, signInOwner } from '../helpers/consoleApi.js';
import { deposit } from '../helpers/fixtures.js';
import { newTonWallet, unixSeconds } from '../helpers/tonConnect.js';
import { expectNoHorizontalScroll, seriousViolations } from './axe.js';
import { launchChromium } from './browser.js';
import { injectTonConnectWallet } from './consoleBrowser.js';

/**
 * The owner's Approvals screen (issue 38) in Chromium: tasks an agent posted above its key's
 * approvalAbove wait there, counted by the header's badge. Approving one creates and funds the
 * task (checked through the agent API), declining one takes nothing, approving one the balance no
 * longer covers says so and what to do, and an unanswered one shows as expired. One browser
 * context per theme; UPDATE_SCREENSHOTS=1 writes console-approvals[-dark][-phone].png.
 */
const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS
  ? path.resolve(import.meta.dirname, '..', '..', 'docs', 'screenshots')
  : mkdtempSync(path.join(os.tmpdir(), 'handoff-screenshots-'));
const PHONE = { width: 360, height: 780 };
const DESKTOP = { width: 1280, height: 900 };
const FLOW_TIMEOUT_MS = 300_000;

let t: TestApp;
let origin: string;
let browser: Browser;
const wallet = newTonWallet('v5r1');
let agent: { headers: { authorization: string } };

beforeAll(async () => {
  t = await createTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  t.config.tonProofDomains.push(`127.0.0.1:${port}`);
  browser = await launchChromium();
  mkdirSync(SCREENSHOTS, { recursive: true });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** The manual clock steps past the rate limits' window between phases. */
const nextMinute = () => t.clock.advance(61_000);

/** The agent posts a task above approvalAbove: 202 and a pending approval. */
async function ask(title: string, reward: string) {
  nextMinute();
  const { approval } = await ok(
    t,
    agent,
    'POST',
    '/tasks',
    { title, description: `${title}, please.`, reward },
    202,
  );
  return approval as Json;
}

const balance = async () => (await ok(t, agent, 'GET', '/agents/me')).agent.balance as string;

async function openApprovals(viewport: typeof PHONE, colorScheme: 'light' | 'dark') {
  const context = await browser.newContext({ viewport, colorScheme });
  context.setDefaultTimeout(60_000);
  const page = await context.newPage();
  await injectTonConnectWallet(page, wallet, () => unixSeconds(t.clock.now()));
  nextMinute();
  await page.goto(`${origin}/console/`);
  await page.getByRole('button', { name: 'Sign in with wallet' }).click();
  await page.getByText('Handoff Test Wallet').first().click();
  await page.getByRole('heading', { name: 'Your agents' }).waitFor();
  return { context, page };
}

async function check(page: Page, where: string, file: string) {
  await page.evaluate('document.fonts.ready');
  await expectNoHorizontalScroll(page).catch((e) => {
    throw new Error(`${where}: ${e.message}`);
  });
  expect(await seriousViolations(page), where).toEqual([]);
  await page.screenshot({ path: path.join(SCREENSHOTS, file), fullPage: true });
}

describe("the owner's approvals in the console", () => {
  it(
    'counts waiting approvals, approves (task funded), declines (nothing taken), says why one failed, shows the expired',
    async () => {
      // The owner (the wallet the browser signs in with), an agent with 60 TON, approvals above 13 TON.
      const owner = await signInOwner(t, wallet);
      const { agent: created, apiKey } = await consoleOk(t, owner, 'POST', '/agents', { name: 'Scout' }, 201);
      agent = { headers: { authorization: `Bearer ${apiKey}` } };
      await deposit(t, created.id, '60');
      const { keys } = await consoleOk(t, owner, 'GET', `/agents/${created.id}`);
      await consoleOk(t, owner, 'PATCH', `/agents/${created.id}/keys/${keys[0].id}`, {
        spendPolicy: { TON: { approvalAbove: '13' } },
      });

      // One left unanswered past its time (a one-minute TTL for it alone), expired by the job.
      const ttl = t.ctx.approvalTtlMs;
      Object.assign(t.ctx, { approvalTtlMs: 60_000 });
      const bakery = await ask('Check the bakery opening hours', '11');
      Object.assign(t.ctx, { approvalTtlMs: ttl });
      const hall = await ask('Photograph the town hall', '20'); // 26 TON with the fee
      await ask('Count the bikes at the station', '15');
      await ask('Deliver a parcel to the post office', '30'); // 39 TON: covered now, not after the hall
      await ask('Photograph the lunch menu', '12');
      nextMinute();
      expect(await expireApprovals(t.ctx)).toBe(1);
      expect((await ok(t, agent, 'GET', `/approvals/${bakery.id}`)).approval.status).toBe('EXPIRED');

      const { context, page } = await openApprovals(PHONE, 'light');
      try {
        await page.getByRole('link', { name: 'Approvals 4 waiting' }).click();
        await page.getByRole('heading', { name: 'Approvals', level: 1 }).waitFor();
        const waiting = page.getByRole('list', { name: 'Waiting for you' });
        const item = (title: string) => waiting.getByRole('listitem', { name: title });
        const hallItem = item('Photograph the town hall');
        await hallItem.getByText('Scout, key “default”').waitFor();
        await hallItem.getByText('26\u00a0TON', { exact: true }).waitFor();
        await hallItem.getByText('6\u00a0TON', { exact: true }).waitFor(); // the 30% fee
        await hallItem.getByText(/^in 23 h 5\d min \(/).waitFor();
        const recent = page.getByRole('table', { name: 'Decided and expired' });
        await recent
          .getByRole('row', { name: /Check the bakery opening hours/ })
          .getByText('Expired unanswered')
          .waitFor();

        // Approve: the task exists and is funded, 26 TON held from the balance.
        nextMinute();
        await hallItem.getByRole('button', { name: /^Approve/ }).click();
        await page
          .getByRole('status')
          .getByText(/^Approved “Photograph the town hall”/)
          .waitFor();
        await page.getByRole('link', { name: 'Approvals 3 waiting' }).waitFor();
        const { approval: approved } = await ok(t, agent, 'GET', `/approvals/${hall.id}`);
        expect(approved.status).toBe('APPROVED');
        const { task } = await ok(t, agent, 'GET', `/tasks/${approved.taskId}`);
        expect(task).toMatchObject({
          title: 'Photograph the town hall',
          status: 'FUNDED',
          totalAmount: '26',
        });
        expect(await balance()).toBe('34');

        // Decline: nothing is taken.
        nextMinute();
        await item('Count the bikes at the station')
          .getByRole('button', { name: /^Decline/ })
          .click();
        await page
          .getByRole('status')
          .getByText(/^Declined “Count the bikes at the station”/)
          .waitFor();
        await page.getByRole('link', { name: 'Approvals 2 waiting' }).waitFor();
        expect(await balance()).toBe('34');

        // The balance no longer covers the parcel: said in words, with what to do; nothing taken.
        nextMinute();
        await item('Deliver a parcel to the post office')
          .getByRole('button', { name: /^Approve/ })
          .click();
        const alert = page.getByRole('alert');
        await alert.getByText(/no longer covers its 39\u00a0TON/).waitFor();
        await alert.getByRole('link', { name: 'Top up Scout' }).waitFor();
        await page.getByRole('link', { name: 'Approvals 1 waiting' }).waitFor();
        expect(await balance()).toBe('34');

        for (const [title, outcome] of [
          ['Photograph the town hall', 'Approved: task created'],
          ['Count the bikes at the station', 'Declined'],
          ['Deliver a parcel to the post office', 'Approved, but not created'],
        ]) {
          await recent
            .getByRole('row', { name: new RegExp(title!) })
            .getByText(outcome!, { exact: true })
            .waitFor();
        }
        await recent.getByRole('link', { name: 'Open the task' }).waitFor();
        await check(page, 'approvals at 360 px, light', 'console-approvals-phone.png');
        await page.setViewportSize(DESKTOP);
        await check(page, 'approvals at 1280 px, light', 'console-approvals.png');
      } finally {
        await context.close();
      }

      const dark = await openApprovals(PHONE, 'dark');
      try {
        await dark.page.getByRole('link', { name: 'Approvals 1 waiting' }).click();
        await dark.page
          .getByRole('list', { name: 'Waiting for you' })
          .getByRole('listitem', { name: 'Photograph the lunch menu' })
          .waitFor();
        await dark.page.getByRole('table', { name: 'Decided and expired' }).getByRole('row').nth(4).waitFor();
        await check(dark.page, 'approvals at 360 px, dark', 'console-approvals-dark-phone.png');
      } finally {
        await dark.context.close();
      }
    },
    FLOW_TIMEOUT_MS,
  );
});
