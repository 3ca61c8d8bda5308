import { mkdirSync, mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, ok } from '../helpers/agentApi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { consoleOk, signInOwner } from '../helpers/consoleApi.js';
import { createWorker, deposit, type TestAgent } from '../helpers/fixtures.js';
import { submittedTask } from '../helpers/submissionApi.js';
import { newTonWallet, unixSeconds } from '../helpers/tonConnect.js';
import { expectNoHorizontalScroll, seriousViolations } from './axe.js';
import { launchChromium } from './browser.js';
import { injectTonConnectWallet } from './consoleBrowser.js';

/**
 * The owner's key page (issue 38, scope 4) in Chromium: from the agent's key list to one key,
 * a refused limit shown next to its field, a policy saved with what is used and left today, the
 * key's activity log (searched by title) and its spending chart. UPDATE_SCREENSHOTS=1 writes
 * console-key[-dark][-phone].png and the
 * refusal, console-key-refused-phone.png.
 */
const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS
  ? path.resolve(import.meta.dirname, '..', '..', 'docs', 'screenshots')
  : mkdtempSync(path.join(os.tmpdir(), 'handoff-screenshots-'));
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };
const FLOW_TIMEOUT_MS = 300_000;

let t: TestApp;
let origin: string;
let browser: Browser;
const wallet = newTonWallet('v5r1');

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

async function openKey(viewport: typeof PHONE, colorScheme: 'light' | 'dark') {
  const context = await browser.newContext({ viewport, colorScheme, timezoneId: 'Europe/Berlin' });
  context.setDefaultTimeout(60_000);
  const page = await context.newPage();
  await injectTonConnectWallet(page, wallet, () => unixSeconds(t.clock.now()));
  nextMinute();
  await page.goto(`${origin}/console/`);
  await page.getByRole('button', { name: 'Sign in with wallet' }).click();
  await page.getByText('Handoff Test Wallet').first().click();
  await page.getByRole('heading', { name: 'Your agents' }).waitFor();
  await page.getByRole('link', { name: 'Scout' }).click();
  await page.getByRole('table', { name: 'API keys' }).getByRole('link', { name: 'default' }).click();
  await page.getByRole('heading', { name: /^Key default/, level: 1 }).waitFor();
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

/** The desktop width, reloaded: the charts pick their drawing for the width they are first drawn at. */
async function wide(page: Page) {
  await page.setViewportSize(DESKTOP);
  await page.reload();
  await page.getByRole('table', { name: 'Key activity' }).getByRole('row').nth(1).waitFor();
  await page.getByRole('img', { name: /^USDT spent and refunded/ }).waitFor();
}

describe("the owner's key page in the console", () => {
  it(
    'refuses a bad limit next to its field, saves a policy and scopes, shows the activity log and the chart',
    async () => {
      let owner = await signInOwner(t, wallet);
      const { agent, apiKey } = await consoleOk(t, owner, 'POST', '/agents', { name: 'Scout' }, 201);
      await deposit(t, agent.id, '100');
      const usdt = await call(t, { headers: t.admin }, 'POST', `/admin/agents/${agent.id}/deposits`, {
        amount: '50',
        currency: 'USDT',
      });
      expect(usdt.statusCode, usdt.body).toBe(201);
      const key: TestAgent = { id: agent.id, apiKey, headers: { authorization: `Bearer ${apiKey}` } };
      const worker = await createWorker(t);
      // Yesterday: a USDT task done and paid. Today: two TON tasks, one cancelled (refunded).
      const { taskId: done } = await submittedTask(t, key, worker, {
        title: 'Photograph the town hall',
        reward: '10',
        currency: 'USDT',
      });
      await ok(t, key, 'POST', `/tasks/${done}/complete`);
      t.clock.advance(86_400_000);
      nextMinute();
      for (const [title, reward] of [
        ['Count the bikes at the station', '3'],
        ['Check the bakery opening hours', '2'],
      ]) {
        await ok(t, key, 'POST', '/tasks', { title, description: `${title}, please.`, reward }, 201);
      }
      const { tasks } = await ok(t, key, 'GET', '/agents/tasks');
      const bakery = tasks.find((x: { title: string }) => x.title.startsWith('Check the bakery'));
      await ok(t, key, 'DELETE', `/tasks/${bakery.id}`);
      // Sign in again a day later: the first session ended.
      owner = await signInOwner(t, wallet);

      const { context, page } = await openKey(PHONE, 'light');
      try {
        const ton = page.getByRole('group', { name: 'TON', exact: true });
        // A negative limit: the server's sentence next to the field, nothing saved.
        await ton.getByLabel('Daily limit').fill('-5');
        await page.getByRole('button', { name: 'Save policy' }).click();
        await ton.getByRole('alert').getByText('Daily limit must not be negative.').waitFor();
        // approvalAbove above maxTaskAmount: refused the same way.
        await ton.getByLabel('Daily limit').fill('50');
        await ton.getByLabel('Max per task').fill('20');
        await ton.getByLabel('Ask me above').fill('25');
        await page.getByRole('button', { name: 'Save policy' }).click();
        await ton
          .getByRole('alert')
          .getByText(/^Ask me above must not be above “Max per task”: a task above “Max per task” is refused/)
          .waitFor();
        await page
          .getByRole('region', { name: 'Spend policy and scopes' })
          .screenshot({ path: path.join(SCREENSHOTS, 'console-key-refused-phone.png') });
        const { keys: unchanged } = await consoleOk(t, owner, 'GET', `/agents/${agent.id}`);
        expect(unchanged[0].spendPolicy.TON.dailyLimit).toBeNull();

        // A good policy: saved, with what is used and left today (3.9 escrowed, 2.6 refunded).
        await ton.getByLabel('Ask me above').fill('15');
        await page.getByRole('checkbox', { name: /webhooks/ }).uncheck();
        await page.getByRole('button', { name: 'Save policy' }).click();
        await page.getByRole('status').getByText('Saved.').waitFor();
        await ton.getByText(/^Today: 3\.9\u00a0TON used, 46\.1\u00a0TON left/).waitFor();
        const { keys } = await consoleOk(t, owner, 'GET', `/agents/${agent.id}`);
        expect(keys[0].spendPolicy.TON).toEqual({
          maxTaskAmount: '20',
          dailyLimit: '50',
          monthlyLimit: null,
          approvalAbove: '15',
        });
        expect(keys[0].scopes).not.toContain('webhooks');

        // The activity log: newest first, who did what with which amount.
        const log = page.getByRole('table', { name: 'Key activity' });
        await log.getByRole('row').nth(1).waitFor();
        const refund = log.getByRole('row', { name: /Returned to balance/ });
        await refund.getByText('Check the bakery opening hours').waitFor();
        await refund.getByText('2.6\u00a0TON').waitFor();
        await log
          .getByRole('row', { name: /Paid to the worker/ })
          .getByText('10\u00a0USDT')
          .waitFor();
        await log
          .getByRole('row', { name: /Work submitted/ })
          .getByText('the worker')
          .waitFor();
        // Searched by title: only the town hall's lines.
        await page.getByRole('searchbox', { name: 'Task id or title' }).fill('town hall');
        await page.getByRole('button', { name: 'Search' }).click();
        await log.getByRole('row', { name: /Count the bikes/ }).waitFor({ state: 'detached' });
        const rows = await log.getByRole('row').allInnerTexts();
        expect(rows.slice(1).every((r) => r.includes('Photograph the town hall'))).toBe(true);
        await page.getByRole('searchbox', { name: 'Task id or title' }).fill('');
        await page.getByRole('button', { name: 'Search' }).click();
        await log.getByRole('row', { name: /Count the bikes/ }).waitFor();

        // The chart: today's TON (escrowed 3.9 + 2.6, 2.6 refunded) and yesterday's USDT, with their totals.
        await page
          .getByRole('img', { name: /^TON spent and refunded: spent 6\.5\sTON, refunded 2\.6\sTON$/ })
          .waitFor();
        await page
          .getByRole('img', { name: /^USDT spent and refunded: spent 13\sUSDT, refunded 0\sUSDT$/ })
          .waitFor();

        await check(page, 'key page at 390 px, light', 'console-key-phone.png');
        await wide(page);
        await check(page, 'key page at 1280 px, light', 'console-key.png');
      } finally {
        await context.close();
      }

      const dark = await openKey(PHONE, 'dark');
      try {
        await dark.page.getByRole('table', { name: 'Key activity' }).getByRole('row').nth(1).waitFor();
        await check(dark.page, 'key page at 390 px, dark', 'console-key-dark-phone.png');
        await wide(dark.page);
        await check(dark.page, 'key page at 1280 px, dark', 'console-key-dark.png');
      } finally {
        await dark.context.close();
      }
    },
    FLOW_TIMEOUT_MS,
  );
});
