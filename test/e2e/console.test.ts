import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { newTonWallet, unixSeconds } from '../helpers/tonConnect.js';
import { injectTonConnectWallet, launchChromium, type SentTransaction } from './consoleBrowser.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
// UPDATE_SCREENSHOTS=1 refreshes the README's screenshots; otherwise they go to a temporary folder,
// so a test run leaves the work tree clean.
const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS
  ? path.join(ROOT, 'docs', 'screenshots')
  : mkdtempSync(path.join(os.tmpdir(), 'handoff-screenshots-'));

let t: TestApp;
let base: string;
let chromium: Awaited<ReturnType<typeof launchChromium>>;
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
  // The wallet signs the proof for the page's host, as TON Connect wallets do.
  t.config.tonProofDomains.push(`127.0.0.1:${port}`);
  chromium = await launchChromium();
  browser = chromium.browser;
  mkdirSync(SCREENSHOTS, { recursive: true });
}, 180_000);

afterAll(async () => {
  await chromium?.close();
  await t?.close();
});

/**
 * Generous waits: the browser shares the machine with the rest of the suite. They bound how long a
 * failure takes to show, not how fast anything must be.
 */
const ACTION_TIMEOUT_MS = 60_000;
const FLOW_TIMEOUT_MS = 300_000;

async function newPage() {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  context.setDefaultTimeout(ACTION_TIMEOUT_MS);
  return { context, page: await context.newPage() };
}

/** The manual clock does not move by itself: step it past the rate-limit window between phases. */
const nextMinute = () => t.clock.advance(61_000);

async function signIn(page: Page) {
  await page.goto(`${base}/console/`);
  await page.getByRole('button', { name: 'Sign in with wallet' }).click();
  await page.getByText('Handoff Test Wallet').first().click();
  await page.getByRole('heading', { name: 'Your agents' }).waitFor();
}

const shot = (page: Page, name: string) =>
  page.screenshot({ path: path.join(SCREENSHOTS, `console-${name}.png`), fullPage: true });

/** The agent API as a client with a key would call it, over real HTTP. */
const withKey = (key: string, method: string, url: string, body?: unknown) =>
  fetch(`${base}${url}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });

describe('the owner console in Chromium', () => {
  it(
    'signs in with a TON Connect proof, creates an agent and a key, tops up, sees an API task, revokes the key',
    async () => {
      const { context, page } = await newPage();
      page.on('dialog', (dialog) => dialog.accept());
      const wallet = newTonWallet('v5r1');
      const sent: SentTransaction[] = await injectTonConnectWallet(page, wallet, () =>
        unixSeconds(t.clock.now()),
      );
      try {
        await signIn(page);

        // An agent; its first key is shown once.
        await page.getByRole('textbox', { name: 'Agent name' }).fill('Field scout');
        await page.getByRole('button', { name: 'Create agent' }).click();
        const firstKey = await page.getByRole('textbox', { name: 'API key' }).inputValue();
        expect(firstKey).toMatch(/^hr_[0-9a-f]{64}$/);
        await page.getByRole('button', { name: 'Copy key' }).click();
        await page.getByRole('button', { name: 'Done' }).click();
        await page.getByRole('heading', { name: 'Field scout' }).waitFor();

        // A second, named key.
        await page.getByRole('textbox', { name: 'Key name' }).fill('e2e runner');
        await page.getByRole('button', { name: 'Create key' }).click();
        const key = (await page.getByRole('textbox', { name: 'API key' }).inputValue())!;
        expect(key).toMatch(/^hr_[0-9a-f]{64}$/);
        expect(key).not.toBe(firstKey);
        await page.getByRole('button', { name: 'Done' }).click();
        await page.getByRole('cell', { name: 'e2e runner', exact: true }).waitFor();
        nextMinute();

        // Top up: the sandbox faucet, and the balance shows it.
        await page.getByRole('textbox', { name: 'Amount (TON)' }).fill('10');
        await page.getByRole('button', { name: 'Sandbox faucet' }).click();
        await page.getByRole('status').filter({ hasText: 'Sandbox faucet credited 10 TON.' }).waitFor();
        await page.getByRole('group', { name: 'Balance' }).getByText('10 TON', { exact: true }).waitFor();

        // "Pay with wallet" asks the connected wallet for a transfer to the deposit address with the memo.
        const agentId = decodeURIComponent(new URL(page.url()).hash.split('/')[2]!);
        await page.getByRole('button', { name: 'Pay with wallet' }).click();
        await page.getByRole('status').filter({ hasText: 'Transfer sent from your wallet' }).waitFor();
        expect(sent).toHaveLength(1);
        expect(sent[0]!.messages).toEqual([
          expect.objectContaining({ amount: '10000000000', payload: expect.any(String) }),
        ]);
        expect(sent[0]!.messages[0]!.address).toBe(t.services.chain.depositAddress);

        // A task created through the API with the new key appears in the console.
        const created = await withKey(key, 'POST', '/tasks', {
          title: 'Photograph the storefront',
          description: 'Two photos of the entrance in daylight',
          reward: '2',
        });
        expect(created.status).toBe(201);
        const { task } = (await created.json()) as { task: { id: string; totalAmount: string } };
        const taskId = task.id;
        nextMinute();
        await page.getByRole('combobox', { name: 'Status' }).selectOption('FUNDED');
        await page.getByRole('link', { name: 'Photograph the storefront' }).waitFor();
        await page
          .getByRole('group', { name: 'Locked in tasks' })
          .getByText(`${task.totalAmount} TON`, { exact: true })
          .waitFor();
        await shot(page, 'agent');

        // Its page: numbers and the escrow ledger line.
        await page.getByRole('link', { name: 'Photograph the storefront' }).click();
        await page.getByRole('heading', { name: 'Photograph the storefront' }).waitFor();
        await page
          .getByRole('table', { name: 'Ledger lines' })
          .getByRole('cell', { name: 'TASK_ESCROW' })
          .waitFor();
        expect(page.url()).toContain(taskId);
        await shot(page, 'task');

        // Revoke the key: the API refuses it on its next request; the first key still works.
        nextMinute();
        await page.getByRole('link', { name: '← Agent' }).click();
        await page.getByRole('button', { name: 'Revoke e2e runner' }).click();
        await page
          .getByRole('row', { name: /e2e runner/ })
          .getByText(/^revoked/)
          .waitFor();
        expect((await withKey(key, 'GET', '/agents/me')).status).toBe(401);
        expect((await withKey(firstKey!, 'GET', '/agents/me')).status).toBe(200);

        await page.getByRole('link', { name: '← All agents' }).click();
        await page.getByRole('link', { name: 'Field scout' }).waitFor();
        await shot(page, 'agents');
        expect(agentId).toMatch(/^agt_/);
      } catch (error) {
        await page.screenshot({ path: '/tmp/i12-e2e-failure.png', fullPage: true });
        throw error;
      } finally {
        await context.close();
      }
    },
    FLOW_TIMEOUT_MS,
  );

  it(
    'shows operators the money and health screen behind ADMIN_TOKEN',
    async () => {
      const { context, page } = await newPage();
      try {
        nextMinute();
        await page.goto(`${base}/console/#/operator`);
        await page.getByLabel('Admin token').fill('not-the-token');
        await page.getByRole('button', { name: 'Open operator pages' }).click();
        await page.getByRole('alert').filter({ hasText: 'ADMIN_TOKEN' }).waitFor();
        await page.getByLabel('Admin token').fill(t.config.adminToken);
        await page.getByRole('button', { name: 'Open operator pages' }).click();
        const agents = page.getByRole('table', { name: 'Agents and balances' });
        await agents.getByRole('row', { name: /Field scout/ }).waitFor();
        await page.getByRole('group', { name: 'Health' }).getByText('OK', { exact: true }).waitFor();
        await page.getByRole('group', { name: 'Ledger audit' }).getByText('OK', { exact: true }).waitFor();
        await page
          .getByRole('table', { name: 'Recent deposits' })
          .getByRole('cell', { name: '10 TON' })
          .waitFor();
        await shot(page, 'operator');
      } catch (error) {
        await page.screenshot({ path: '/tmp/i12-e2e-operator-failure.png', fullPage: true });
        throw error;
      } finally {
        await context.close();
      }
    },
    FLOW_TIMEOUT_MS,
  );
});
