import { mkdirSync, mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accept, apply, type Json, ok } from '../helpers/agentApi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { consoleOk, signInOwner } from '../helpers/consoleApi.js';
import { createWorker, deposit } from '../helpers/fixtures.js';
import { submitOk } from '../helpers/submissionApi.js';
import { newTonWallet, unixSeconds } from '../helpers/tonConnect.js';
import { expectNoHorizontalScroll, seriousViolations } from './axe.js';
import { launchChromium } from './browser.js';
import { injectTonConnectWallet } from './consoleBrowser.js';

/**
 * The owner's batches and bonuses in the console (issue 40) in Chromium: the agent page lists a
 * batch with its progress, the batch page cancels its open tasks after a red confirmation naming
 * them and the sum (and then says which were refunded and which left), and a completed task's
 * bonus dialog shows the fee and total before paying, and pays once under a double click.
 * UPDATE_SCREENSHOTS=1 writes console-batch[-dark][-phone].png and console-bonus[-dark][-phone].png.
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

async function signedIn(viewport: typeof PHONE, colorScheme: 'light' | 'dark') {
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

/** Checks the page and saves it; a modal dialog is shot as the viewport shows it (its backdrop covers that). */
async function check(page: Page, where: string, file: string, fullPage = true) {
  await page.evaluate('document.fonts.ready');
  await expectNoHorizontalScroll(page).catch((e) => {
    throw new Error(`${where}: ${e.message}`);
  });
  expect(await seriousViolations(page), where).toEqual([]);
  await page.screenshot({ path: path.join(SCREENSHOTS, file), fullPage });
}

describe("the owner's batches and bonuses in the console", () => {
  it(
    'lists a batch with progress, cancels its open tasks naming them, and pays a bonus once from the dialog',
    async () => {
      const owner = await signInOwner(t, wallet);
      const { agent: created, apiKey } = await consoleOk(t, owner, 'POST', '/agents', { name: 'Menus' }, 201);
      const agent = { id: created.id as string, apiKey, headers: { authorization: `Bearer ${apiKey}` } };
      await deposit(t, created.id, '50');
      const { batch, tasks } = await ok(
        t,
        agent,
        'POST',
        '/batches',
        {
          tasks: ['Old Town', 'Harbour', 'Station', 'Market'].map((place) => ({
            title: `Photograph the menu of the café at the ${place}`,
            description: 'Every page of the menu, readable',
            reward: '2',
          })),
        },
        201,
      );
      // The fourth task stays open for applications.
      const [done, review, assigned] = tasks.map((task: Json) => task.id as string);
      const worker = await createWorker(t, { firstName: 'Olga' });
      for (const id of [done, review, assigned]) await accept(t, agent, await apply(t, worker, id));
      await submitOk(t, worker, done);
      await submitOk(t, worker, review);
      await ok(t, agent, 'POST', `/tasks/${done}/complete`);

      const { context, page } = await signedIn(PHONE, 'light');
      try {
        await page.getByRole('link', { name: /Menus/ }).first().click();
        const batches = page.getByRole('table', { name: 'Batches' });
        await batches
          .getByText('1 Open for applications · 1 Assigned · 1 Waiting for your review · 1 Completed')
          .waitFor();
        await batches.getByText('10.4\u00a0TON').waitFor();
        await batches.getByRole('link', { name: batch.id }).click();
        await page.getByRole('heading', { name: 'Batch of 4 tasks' }).waitFor();
        await page.getByRole('table', { name: 'Tasks of the batch' }).getByRole('row').nth(4).waitFor();

        // The red confirmation names the two open tasks and their sum; then says what it did.
        nextMinute();
        await page.getByRole('button', { name: 'Cancel open tasks' }).click();
        const confirm = page.getByRole('region', { name: 'Confirm cancelling the open tasks' });
        await confirm.getByText(/^Cancel 2 open tasks and refund/).waitFor();
        const toRefund = confirm.getByRole('list', { name: 'Tasks to be refunded' });
        await toRefund.getByText(/Station · Assigned · 2\.6\u00a0TON/).waitFor();
        await toRefund.getByText(/Market · Open for applications · 2\.6\u00a0TON/).waitFor();
        await check(page, 'batch cancel at 390 px, light', 'console-batch-cancel-phone.png');
        await confirm.getByRole('button', { name: 'Refund 5.2\u00a0TON and cancel' }).click();
        const outcome = page.getByRole('status', { name: 'Cancel result' });
        await outcome.getByText('Refunded 2 tasks: 5.2\u00a0TON is back in the balance.').waitFor();
        await outcome
          .getByRole('list', { name: 'Refunded' })
          .getByText(/Station/)
          .waitFor();
        const left = outcome.getByRole('list', { name: 'Not refunded' });
        await left.getByText(/Completed: it had already ended/).waitFor();
        await left.getByText(/Waiting for your review: work was handed in/).waitFor();
        await left.getByRole('link', { name: /Harbour/ }).waitFor();
        const after = await ok(t, agent, 'GET', `/batches/${batch.id}`);
        expect(after.batch.counts).toMatchObject({ CANCELLED: 2, COMPLETED: 1, REVIEW: 1 });
        await check(page, 'batch page at 390 px, light', 'console-batch-phone.png');

        // The completed task: the bonus dialog shows fee and total from the server, pays once.
        nextMinute();
        await page
          .getByRole('table', { name: 'Tasks of the batch' })
          .getByRole('link', { name: /Old Town/ })
          .click();
        await page.getByRole('button', { name: 'Pay a bonus' }).click();
        const dialog = page.getByRole('dialog', { name: 'Pay Olga a bonus' });
        await dialog.getByLabel('Amount (TON)').fill('25');
        await dialog
          .getByText("A bonus can be at most 10 times the task's reward: 20\u00a0TON here.")
          .waitFor();
        await dialog.getByLabel('Amount (TON)').fill('1.5');
        await dialog.getByLabel(/^Reason/).fill('Every dish legible, and the prices too');
        const cost = dialog.getByRole('table', { name: 'What the bonus costs' });
        await cost
          .getByRole('row', { name: /Platform fee \(30%\)/ })
          .getByText('0.45\u00a0TON')
          .waitFor();
        await cost
          .getByRole('row', { name: /Taken from the balance/ })
          .getByText('1.95\u00a0TON')
          .waitFor();
        await check(page, 'bonus dialog at 390 px, light', 'console-bonus-dialog-phone.png', false);
        await dialog.getByRole('button', { name: 'Pay 1.95\u00a0TON' }).dblclick();
        await page
          .getByRole('status')
          .getByText(/^Paid a bonus of 1\.5\u00a0TON to Olga/)
          .waitFor();
        const bonuses = page.getByRole('list', { name: 'Bonuses paid' });
        await bonuses.getByText(/Every dish legible, and the prices too/).waitFor();
        const { task } = await ok(t, agent, 'GET', `/tasks/${done}`);
        expect(task.settlement.bonuses).toEqual({ count: 1, amount: '1.5', fee: '0.45' });
        await check(page, 'bonus paid at 390 px, light', 'console-bonus-phone.png');
        await page.setViewportSize(DESKTOP);
        await check(page, 'bonus paid at 1280 px, light', 'console-bonus.png');
        await page.goto(`${origin}/console/#/agents/${created.id}/batches/${batch.id}`);
        await page.getByRole('heading', { name: 'Batch of 4 tasks' }).waitFor();
        await page.getByRole('table', { name: 'Tasks of the batch' }).getByRole('row').nth(4).waitFor();
        await check(page, 'batch page at 1280 px, light', 'console-batch.png');
      } catch (error) {
        await page.screenshot({
          path: path.join(os.tmpdir(), 'console-batches-failure.png'),
          fullPage: true,
        });
        throw error;
      } finally {
        await context.close();
      }

      for (const [viewport, suffix] of [
        [PHONE, '-dark-phone'],
        [DESKTOP, '-dark'],
      ] as const) {
        const dark = await signedIn(viewport, 'dark');
        try {
          nextMinute();
          await dark.page.goto(`${origin}/console/#/agents/${created.id}/batches/${batch.id}`);
          await dark.page.getByRole('heading', { name: 'Batch of 4 tasks' }).waitFor();
          await dark.page
            .getByRole('table', { name: 'Tasks of the batch' })
            .getByRole('row')
            .nth(4)
            .waitFor();
          await check(dark.page, `batch page, dark${suffix}`, `console-batch${suffix}.png`);
          nextMinute();
          await dark.page.goto(`${origin}/console/#/agents/${created.id}/tasks/${done}`);
          await dark.page.getByRole('list', { name: 'Bonuses paid' }).waitFor();
          await dark.page.getByRole('button', { name: 'Pay a bonus' }).click();
          const dialog = dark.page.getByRole('dialog', { name: 'Pay Olga a bonus' });
          await dialog.getByLabel('Amount (TON)').fill('3');
          await dialog.getByLabel(/^Reason/).fill('The opening hours as well');
          await dialog.getByRole('button', { name: 'Pay 3.9\u00a0TON' }).waitFor();
          await check(dark.page, `bonus dialog, dark${suffix}`, `console-bonus-dialog${suffix}.png`, false);
        } finally {
          await dark.context.close();
        }
      }
      // Opening the dialog and closing it paid nothing more.
      const { task } = await ok(t, agent, 'GET', `/tasks/${done}`);
      expect(task.settlement.bonuses.count).toBe(1);
    },
    FLOW_TIMEOUT_MS,
  );
});
