import { existsSync } from 'node:fs';
import path from 'node:path';
import { type Address, toNano } from '@ton/core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createLiveTestApp, type LiveTestApp, roundsUntil } from '../helpers/liveChain.js';
import { newTonWallet, readCommentPayload, unixSeconds } from '../helpers/tonConnect.js';
import { injectTonConnectWallet, launchChromium, type SentTransaction } from './consoleBrowser.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
// The console's screenshots are taken by consoleOwner.test.ts (every main screen, both themes).

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

async function signIn(page: Page, origin = base) {
  await page.goto(`${origin}/console/`);
  await page.getByRole('button', { name: 'Sign in with wallet' }).click();
  await page.getByText('Handoff Test Wallet').first().click();
  await page.getByRole('heading', { name: 'Your agents' }).waitFor();
}

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

        // Its page: numbers and the escrow ledger line.
        await page.getByRole('link', { name: 'Photograph the storefront' }).click();
        await page.getByRole('heading', { name: 'Photograph the storefront' }).waitFor();
        await page
          .getByRole('table', { name: 'Ledger lines' })
          .getByRole('cell', { name: 'Held for a task' })
          .waitFor();
        expect(page.url()).toContain(taskId);

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
        // The sandbox has no deposit watcher and no chain history to reconcile, and says so.
        const chain = page.getByRole('region', { name: 'Chain status' });
        await chain.getByText('not used in the sandbox', { exact: false }).waitFor();
        await chain.getByText(t.services.chain.hotWalletAddress).waitFor();
        await page
          .getByRole('region', { name: 'Reconciliation' })
          .getByRole('status')
          .filter({ hasText: 'runs with TON_NETWORK=testnet or mainnet' })
          .waitFor();
        await page
          .getByRole('group', { name: 'Unmatched deposits' })
          .getByText('0', { exact: true })
          .waitFor();
        await page.getByText('None: every deposit named its agent.').waitFor();
      } catch (error) {
        await page.screenshot({ path: '/tmp/i12-e2e-operator-failure.png', fullPage: true });
        throw error;
      } finally {
        await context.close();
      }
    },
    FLOW_TIMEOUT_MS,
  );

  it(
    'a tab whose session ended shows the sign-in page, forgets the cookie and stops polling',
    async () => {
      const { context, page } = await newPage();
      await injectTonConnectWallet(page, newTonWallet('v5r1'), () => unixSeconds(t.clock.now()));
      const calls: string[] = [];
      page.on('request', (request) => {
        if (new URL(request.url()).pathname.startsWith('/console/api/')) calls.push(request.url());
      });
      try {
        nextMinute();
        await signIn(page);
        await page.getByRole('textbox', { name: 'Agent name' }).fill('Stale tab');
        await page.getByRole('button', { name: 'Create agent' }).click();
        await page.getByRole('button', { name: 'Done' }).click();
        await page.getByRole('heading', { name: 'Stale tab' }).waitFor();
        const cookieNames = async () => (await context.cookies()).map((c) => c.name);
        expect(await cookieNames()).toContain('handoff_console');

        // The session ends elsewhere (signed out in another browser, dropped, expired): the
        // agent page's next poll is a 401, and the tab goes back to the sign-in page.
        await t.ctx.db.deleteFrom('owner_sessions').execute();
        await page.getByRole('button', { name: 'Sign in with wallet' }).waitFor();
        expect(await cookieNames()).not.toContain('handoff_console');

        // Nothing polls any more: two refresh periods (5 s each) pass without a request.
        const asked = calls.length;
        await page.waitForTimeout(11_000);
        expect(calls.slice(asked)).toEqual([]);
      } finally {
        await context.close();
      }
    },
    FLOW_TIMEOUT_MS,
  );
});

/**
 * On TON_NETWORK=testnet with a toncenter-v2 server over the TON sandbox (test/helpers/fakeToncenter.ts):
 * deposits arrive only as chain transfers, which the deposit watcher (the wallet follower) credits.
 */
describe('the console on the TON network, over the sandbox chain', () => {
  let l: LiveTestApp;
  let origin: string;
  let agentId = '';

  beforeAll(async () => {
    l = await createLiveTestApp();
    await l.t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = l.t.app.server.address() as { port: number };
    origin = `http://127.0.0.1:${port}`;
    l.t.config.tonProofDomains.push(`127.0.0.1:${port}`);
  }, 120_000);
  afterAll(() => l?.close());

  /** The wallet contract's seqno on the chain (0 before its first transfer deploys it). */
  const seqnoOf = async (address: Address) => {
    const contract = await l.fake.blockchain.getContract(address);
    if (contract.accountState?.type !== 'active') return 0;
    return (await l.fake.blockchain.runGetMethod(address, 'seqno')).stackReader.readNumber();
  };
  /** A wallet app broadcasts the message it signed, as toncenter's sendBoc takes it. */
  const broadcast = async (boc: string) => {
    const res = await fetch(`${l.fake.url}/jsonRPC`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 1, jsonrpc: '2.0', method: 'sendBoc', params: { boc } }),
    });
    expect(((await res.json()) as { ok: boolean }).ok).toBe(true);
  };
  const depositedNano = async (id: string) =>
    (
      await l.t.ctx.db
        .selectFrom('agents')
        .select('deposited_nano')
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
    ).deposited_nano;

  it(
    'pays with the wallet: the wallet signs the requested transfer, the chain carries it, the watcher credits it',
    async () => {
      const { context, page } = await newPage();
      const wallet = newTonWallet('v5r1');
      // The owner's wallet holds TON on the chain; its first transfer deploys it.
      await l.fake.sendFromFaucet(wallet.address, toNano('50'));
      const sent = await injectTonConnectWallet(
        page,
        wallet,
        () => unixSeconds(l.t.clock.now()),
        () => seqnoOf(wallet.address),
      );
      try {
        await signIn(page, origin);
        await page.getByRole('textbox', { name: 'Agent name' }).fill('Night courier');
        await page.getByRole('button', { name: 'Create agent' }).click();
        await page.getByRole('button', { name: 'Done' }).click();
        await page.getByRole('heading', { name: 'Night courier' }).waitFor();
        agentId = decodeURIComponent(new URL(page.url()).hash.split('/')[2]!);
        // Off the sandbox there is no faucet: the only way in is a transfer.
        expect(await page.getByRole('button', { name: 'Sandbox faucet' }).count()).toBe(0);

        await page.getByRole('textbox', { name: 'Amount (TON)' }).fill('2.5');
        await page.getByRole('button', { name: 'Pay with wallet' }).click();
        await page.getByRole('status').filter({ hasText: 'Transfer sent from your wallet' }).waitFor();

        // The wallet was asked for one transfer: to the deposit address, the amount, the memo as comment.
        expect(sent).toHaveLength(1);
        const request = sent[0]!;
        expect(request.messages).toHaveLength(1);
        const message = request.messages[0]!;
        expect(message.address).toBe(l.t.services.chain.depositAddress);
        expect(message.amount).toBe(toNano('2.5').toString());
        expect(readCommentPayload(message.payload!)).toBe(agentId);
        const nowSec = Math.floor(Date.now() / 1000);
        expect(request.valid_until).toBeGreaterThan(nowSec);
        expect(request.valid_until).toBeLessThanOrEqual(nowSec + 600);
        expect(request.network).toBe('-3');
        expect(request.from).toBe(wallet.address.toRawString());
        expect(await depositedNano(agentId)).toBe(0n);

        // The wallet's answer is the message it signed; on the chain it pays the deposit address,
        // and the watcher credits the agent named by the memo.
        await broadcast(request.boc);
        await l.fake.settle();
        await roundsUntil(l, async () => (await depositedNano(agentId)) === toNano('2.5'));
        expect(await seqnoOf(wallet.address)).toBe(1);
        await page.getByRole('group', { name: 'Balance' }).getByText('2.5 TON', { exact: true }).waitFor();
        await page.getByRole('group', { name: 'Deposited' }).getByText('2.5 TON', { exact: true }).waitFor();
        await page.getByRole('status').filter({ hasText: 'Deposit credited: 2.5 TON.' }).waitFor();
      } catch (error) {
        await page.screenshot({ path: '/tmp/i12-e2e-live-failure.png', fullPage: true });
        throw error;
      } finally {
        await context.close();
      }
    },
    FLOW_TIMEOUT_MS,
  );

  it(
    'shows operators unmatched deposits, chain status and reconciliation, and resolves unmatched deposits',
    async () => {
      expect(agentId).toMatch(/^agt_/);
      const hot = l.live.wallet.address;
      // Transfers the watcher cannot credit: a mistyped memo, none at all, and one below the minimum.
      await l.fake.sendFromFaucet(hot, toNano('4'), 'agt_mistyped');
      await l.fake.sendFromFaucet(hot, toNano('1.5'));
      await l.fake.sendFromFaucet(hot, toNano('0.005'), agentId);
      // (The operator's own funding of the hot wallet, memo "funding", is unmatched too.)
      const open = async () =>
        (
          await l.t.ctx.db
            .selectFrom('unmatched_deposits')
            .select('memo')
            .where('status', '=', 'open')
            .orderBy('memo')
            .execute()
        ).map((r) => r.memo);
      await roundsUntil(l, async () => (await open()).length === 4);
      expect(await open()).toEqual(['', agentId, 'agt_mistyped', 'funding'].sort());

      const { context, page } = await newPage();
      page.on('dialog', (dialog) => dialog.accept());
      try {
        l.t.clock.advance(61_000);
        await page.goto(`${origin}/console/#/operator`);
        await page.getByLabel('Admin token').fill(l.t.config.adminToken);
        await page.getByRole('button', { name: 'Open operator pages' }).click();
        await page
          .getByRole('group', { name: 'Unmatched deposits' })
          .getByText('4', { exact: true })
          .waitFor();
        const unmatched = page.getByRole('table', { name: 'Unmatched deposits' });

        // The mistyped memo is credited to the agent it was meant for.
        const mistyped = unmatched.getByRole('row', { name: /agt_mistyped/ });
        await mistyped.getByRole('textbox', { name: 'Agent to credit' }).fill(agentId);
        await mistyped.getByRole('button', { name: 'Assign' }).click();
        await page
          .getByRole('status')
          .filter({ hasText: `Credited 4 TON to ${agentId}.` })
          .waitFor();
        await mistyped.waitFor({ state: 'detached' });
        expect(await depositedNano(agentId)).toBe(toNano('6.5'));

        // The one without a memo was sent back by hand; the operator records it.
        const noMemo = unmatched.getByRole('row', { name: /\(none\)/ });
        await noMemo.getByRole('button', { name: 'Sent back' }).click();
        await page.getByRole('status').filter({ hasText: 'Recorded 1.5 TON as sent back.' }).waitFor();
        await noMemo.waitFor({ state: 'detached' });
        const returned = await l.t.ctx.db
          .selectFrom('unmatched_deposits')
          .select(['status', 'amount_nano'])
          .where('status', '=', 'returned')
          .execute();
        expect(returned).toEqual([{ status: 'returned', amount_nano: toNano('1.5') }]);

        // The one below the minimum stays open, its agent filled in from the memo.
        const small = unmatched.getByRole('row', { name: /below the minimum/ });
        expect(await small.getByRole('textbox', { name: 'Agent to credit' }).inputValue()).toBe(agentId);
        await page
          .getByRole('group', { name: 'Unmatched deposits' })
          .getByText('2', { exact: true })
          .waitFor();
        expect(await open()).toEqual([agentId, 'funding'].sort());
        await page
          .getByRole('table', { name: 'Agents and balances' })
          .getByRole('row', { name: /Night courier/ })
          .getByRole('cell', { name: /^6\.5\sTON 0\sUSDT$/ })
          .first()
          .waitFor();

        // Chain status: the network, the hot wallet (also the deposit address) and the watcher's place.
        const chain = page.getByRole('region', { name: 'Chain status' });
        await chain.getByText('testnet', { exact: true }).waitFor();
        await chain.getByText(l.t.services.chain.depositAddress).first().waitFor();
        await chain.getByText(/^at lt \d+; synced \d+ s ago$/).waitFor();
        await chain.getByText('running', { exact: true }).waitFor();

        // Reconciliation against the wallet's history: both credited deposits are on the chain.
        const reconciliation = page.getByRole('region', { name: 'Reconciliation' });
        await reconciliation.getByRole('button', { name: 'Run reconciliation' }).click();
        await reconciliation
          .getByRole('status')
          .filter({ hasText: /^OK: 2 ledger rows checked against \d+ chain transactions\.$/ })
          .waitFor();
        await page.getByRole('group', { name: 'Reconciliation' }).getByText('OK', { exact: true }).waitFor();
        await page.getByRole('group', { name: 'Health' }).getByText('OK', { exact: true }).waitFor();
        await page.getByRole('group', { name: 'Ledger audit' }).getByText('OK', { exact: true }).waitFor();
      } catch (error) {
        await page.screenshot({ path: '/tmp/i12-e2e-live-operator-failure.png', fullPage: true });
        throw error;
      } finally {
        await context.close();
      }
    },
    FLOW_TIMEOUT_MS,
  );
});
