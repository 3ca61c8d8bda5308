import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completedTask } from '../helpers/agentApi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createAgent, createWorker } from '../helpers/fixtures.js';
import { expectNoHorizontalScroll, seriousViolations } from './axe.js';
import { launchChromium } from './browser.js';

/**
 * The operator's overview in both currencies (issue 36, scope 3), in Chromium against a real
 * server: with a USDT deposit and a USDT payout beside TON ones, every tile, the agents table, the
 * recent deposits and the chain status show each amount in its own currency (a 50 USDT deposit
 * never reads "0.05 TON"). At 360, 390 and 1280 px, light and dark: no sideways scroll, no
 * serious axe-core finding. UPDATE_SCREENSHOTS=1 writes docs/screenshots/console-operator-money*.png.
 */
const ROOT = path.resolve(import.meta.dirname, '..', '..');
const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS
  ? path.join(ROOT, 'docs', 'screenshots')
  : mkdtempSync(path.join(os.tmpdir(), 'handoff-screenshots-'));
const VIEWPORTS = [
  { width: 360, height: 780, suffix: '-phone' },
  { width: 390, height: 844, suffix: '-390' },
  { width: 1280, height: 900, suffix: '' },
];
const FLOW_TIMEOUT_MS = 300_000;

let t: TestApp;
let base: string;
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(path.join(ROOT, 'dist', 'web', 'console', 'index.html'))) {
    const { execFileSync } = await import('node:child_process');
    execFileSync('node', ['scripts/build-web.mjs', 'console'], { cwd: ROOT, stdio: 'inherit' });
  }
  t = await createTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as { port: number };
  base = `http://127.0.0.1:${port}`;
  browser = await launchChromium();
  mkdirSync(SCREENSHOTS, { recursive: true });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** The page polls; the manual clock steps past the rate limits' window between phases. */
const nextMinute = () => t.clock.advance(61_000);

describe('the operator overview in both currencies', () => {
  it(
    'shows a USDT deposit and a USDT payout in USDT and TON ones in TON, on every screen size and theme',
    async () => {
      const agent = await createAgent(t, { name: 'Two purses', deposit: '20' });
      const usdt = await t.app.inject({
        method: 'POST',
        url: `/admin/agents/${agent.id}/deposits`,
        headers: t.admin,
        payload: { amount: '50', currency: 'USDT' },
      });
      expect(usdt.statusCode, usdt.body).toBe(201);
      const worker = await createWorker(t);
      // 10 USDT to the worker and 3 to the platform; 2 TON and 0.6 TON.
      await completedTask(t, agent, worker, { reward: '10', currency: 'USDT' });
      await completedTask(t, agent, worker, { reward: '2' });

      for (const colorScheme of ['light', 'dark'] as const) {
        for (const viewport of VIEWPORTS) {
          const where = `operator overview at ${viewport.width} px, ${colorScheme}`;
          const context = await browser.newContext({
            viewport: { width: viewport.width, height: viewport.height },
            colorScheme,
          });
          context.setDefaultTimeout(60_000);
          const page = await context.newPage();
          try {
            nextMinute();
            await page.goto(`${base}/console/#/operator`);
            await page.getByLabel('Admin token').fill(t.config.adminToken);
            await page.getByRole('button', { name: 'Open operator pages' }).click();

            const tile = (currency: string, label: string, value: string) =>
              page
                .getByRole('region', { name: `Money in ${currency}` })
                .getByRole('group', { name: label })
                .getByText(value, { exact: true })
                .waitFor();
            await tile('USDT', 'Deposited', '50 USDT');
            await tile('USDT', 'Paid out to workers', '10 USDT');
            await tile('USDT', 'Fees earned', '3 USDT');
            await tile('USDT', 'Agent balances', '37 USDT');
            await tile('USDT', 'Escrowed in tasks', '0 USDT');
            await tile('TON', 'Deposited', '20 TON');
            await tile('TON', 'Paid out to workers', '2 TON');
            await tile('TON', 'Fees earned', '0.6 TON');
            await tile('TON', 'Agent balances', '17.4 TON');

            const deposits = page.getByRole('table', { name: 'Recent deposits' });
            await deposits
              .getByRole('row', { name: /Two purses/ })
              .first()
              .waitFor();
            const amounts = await deposits
              .getByRole('row', { name: /Two purses/ })
              .getByRole('cell', { name: /TON|USDT/ })
              .allInnerTexts();
            expect(amounts.map((a) => a.replace(/\s+/g, ' '))).toEqual(['50 USDT', '20 TON']);
            // (0.05 TON does appear once: the TON attached to each USDT payout, in the chain status.)
            expect(await deposits.getByText('0.05 TON').count()).toBe(0);

            const row = page.getByRole('table', { name: 'Agents and balances' }).getByRole('row', {
              name: /Two purses/,
            });
            await row.getByRole('cell', { name: '17.4 TON 37 USDT' }).waitFor();

            const chain = page.getByRole('region', { name: 'Chain status' });
            await chain.getByText('Hot wallet USDT', { exact: true }).waitFor();
            await chain.getByText('Gas for USDT payouts').waitFor();
            await chain.getByText('USDT payouts', { exact: true }).waitFor();

            await page.evaluate('document.fonts.ready');
            await expectNoHorizontalScroll(page).catch((e) => {
              throw new Error(`${where}: ${e.message}`);
            });
            expect(await seriousViolations(page), where).toEqual([]);
            await page.screenshot({
              path: path.join(
                SCREENSHOTS,
                `console-operator-money${colorScheme === 'dark' ? '-dark' : ''}${viewport.suffix}.png`,
              ),
              fullPage: true,
            });
          } catch (error) {
            await page.screenshot({ path: '/tmp/overview-e2e-operator-failure.png', fullPage: true });
            throw new Error(`${where}: ${(error as Error).message}`);
          } finally {
            await context.close();
          }
        }
      }
    },
    FLOW_TIMEOUT_MS * 2,
  );
});
