import { mkdirSync, mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { launchChromium } from './browser.js';
import { LIGHT_THEME, launchHash, telegramInitData, telegramWebviewScript } from './telegramHost.js';

/**
 * Before anyone chooses a wallet, the web apps ask nothing of anyone but the service: the console
 * and the Mini App, with TON Connect's wallet modal open (its list and icons), load only from
 * their own origin, under the Content-Security-Policy the service sends, with no violation.
 */
const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS
  ? fileURLToPath(new URL('../../docs/screenshots/', import.meta.url))
  : mkdtempSync(path.join(os.tmpdir(), 'handoff-screenshots-'));
const PHONE = { width: 360, height: 740 };
const DESKTOP = { width: 1200, height: 900 };
/** Tonkeeper's bridge and its universal link (https://app.tonkeeper.com/ton-connect), from the list. */
const TONKEEPER = ['https://bridge.tonapi.io', 'https://app.tonkeeper.com'];
const WAIT_MS = 30_000;

let t: TestApp;
let origin: string;
let browser: Browser;

beforeAll(async () => {
  t = await createTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  t.config.publicUrl = origin;
  browser = await launchChromium();
  mkdirSync(SCREENSHOTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** What a page asked for, and what it reported: CSP violations and console errors. */
interface Recorded {
  requests: string[];
  /** Requests started and not yet finished or failed. */
  pending: number;
  violations: string[];
  errors: string[];
}

/**
 * A fresh phone-sized context whose every request is recorded; requests for anywhere but the
 * service are refused (the machine has no internet, and a test must not reach it anyway).
 * Each CSP violation the page sees (securitypolicyviolation) is recorded too.
 */
async function openRecorded(
  viewport = PHONE,
): Promise<{ context: BrowserContext; page: Page; seen: Recorded }> {
  const seen: Recorded = { requests: [], pending: 0, violations: [], errors: [] };
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1 });
  context.setDefaultTimeout(WAIT_MS);
  await context.route('**/*', (route) => {
    const url = route.request().url();
    seen.requests.push(url);
    return url.startsWith(`${origin}/`) ? route.continue() : route.abort();
  });
  context.on('request', () => seen.pending++);
  context.on('requestfinished', () => seen.pending--);
  context.on('requestfailed', () => seen.pending--);
  const page = await context.newPage();
  await page.exposeFunction('__cspViolation', (text: string) => seen.violations.push(text));
  await page.addInitScript(() => {
    const w = globalThis as unknown as {
      addEventListener: (type: string, listener: (event: Record<string, string>) => void) => void;
      __cspViolation: (text: string) => void;
    };
    w.addEventListener('securitypolicyviolation', (e) =>
      w.__cspViolation(`${e.violatedDirective} blocked ${e.blockedURI} (${e.sourceFile}:${e.lineNumber})`),
    );
  });
  page.on('console', (message) => {
    if (message.type() === 'error') seen.errors.push(message.text());
  });
  page.on('pageerror', (error) => seen.errors.push(error.message));
  return { context, page, seen };
}

/**
 * Waits until the page has asked for wallet icons and no request is still open, so the record
 * holds everything the open modal loads.
 */
async function iconsSettled(seen: Recorded) {
  await expect
    .poll(
      () => seen.requests.some((url) => url.includes('/tonconnect/wallet-icons/')) && seen.pending === 0,
      {
        timeout: WAIT_MS,
      },
    )
    .toBe(true);
}

const offOrigin = (seen: Recorded) => seen.requests.filter((url) => !url.startsWith(`${origin}/`));

describe('the web apps ask nothing of third parties before a wallet is chosen', () => {
  it('sends a Content-Security-Policy and its companions on both apps', async () => {
    for (const prefix of ['/console/', '/app/']) {
      const res = await fetch(`${origin}${prefix}`);
      expect(res.status).toBe(200);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp, prefix).toContain("default-src 'self'");
      expect(csp, prefix).toContain("script-src 'self'");
      expect(csp, prefix).not.toMatch(/script-src[^;]*'unsafe-(inline|eval)'/);
      expect(csp, prefix).toContain("img-src 'self' data: blob:");
      // connect-src: the service, and the bridges of the served wallets (for after the choice).
      const connect = csp.split('; ').find((d) => d.startsWith('connect-src ')) ?? '';
      expect(connect.split(' ').slice(0, 2), prefix).toEqual(['connect-src', "'self'"]);
      expect(connect.split(' '), prefix).toContain('https://bridge.tonapi.io');
      expect(connect.split(' '), prefix).toContain('https://walletbot.me');
      expect(csp, prefix).toContain("object-src 'none'");
      expect(csp, prefix).toContain("base-uri 'none'");
      expect(res.headers.get('referrer-policy'), prefix).toBe('no-referrer');
      expect(res.headers.get('x-content-type-options'), prefix).toBe('nosniff');
      await res.body?.cancel();
    }
    const consoleCsp = (await fetch(`${origin}/console/`)).headers.get('content-security-policy');
    expect(consoleCsp).toContain("frame-ancestors 'none'");
    const appCsp = (await fetch(`${origin}/app/`)).headers.get('content-security-policy');
    expect(appCsp).toContain('frame-ancestors https://web.telegram.org');
    // Assets carry the policy too (an SVG opened on its own is a document).
    expect((await fetch(`${origin}/app/icon.png`)).headers.get('content-security-policy')).toBeTruthy();
  });

  for (const viewport of [PHONE, DESKTOP]) {
    it(`the console at ${viewport.width} px, wallets listed: everything from the service, no CSP violation`, async () => {
      const { context, page, seen } = await openRecorded(viewport);
      try {
        await page.goto(`${origin}/console/`);
        await page.getByRole('button', { name: 'Sign in with wallet' }).click();
        // The page lists the wallets of the service's list, with the service's icons.
        const wallets = page.getByRole('list', { name: 'Wallets' });
        await wallets.getByRole('button', { name: 'Tonkeeper', exact: true }).waitFor();
        await iconsSettled(seen);
        if (viewport === PHONE) {
          await page.screenshot({ path: path.join(SCREENSHOTS, 'console-sign-in-wallets.png') });
        }
        expect(offOrigin(seen)).toEqual([]);
        expect(seen.requests).toContain(`${origin}/tonconnect/wallets.json`);
        expect(seen.requests).toContain(`${origin}/tonconnect/wallet-icons/tonkeeper`);
        expect(seen.violations).toEqual([]);
        expect(seen.errors.filter((e) => /Content.Security.Policy|Refused to/i.test(e))).toEqual([]);

        // Choosing a wallet contacts that wallet alone; its bridge is in the policy's connect-src.
        await wallets.getByRole('button', { name: 'Tonkeeper', exact: true }).click();
        await expect.poll(() => offOrigin(seen).length, { timeout: WAIT_MS }).toBeGreaterThan(0);
        // Its bridge, and (on a phone, opening the wallet) its universal link: nothing else.
        const hosts = new Set(offOrigin(seen).map((url) => new URL(url).origin));
        expect([...hosts].filter((h) => !TONKEEPER.includes(h))).toEqual([]);
        expect(seen.violations).toEqual([]);
        if (viewport === PHONE) {
          await page.getByText('Tonkeeper', { exact: true }).last().waitFor();
          await page.screenshot({ path: path.join(SCREENSHOTS, 'console-sign-in-tonkeeper.png') });
        }
      } finally {
        await context.close();
      }
    }, 120_000);
  }

  for (const viewport of [PHONE, DESKTOP]) {
    it(`the Mini App in Telegram at ${viewport.width} px, wallets listed: everything from the service, no CSP violation`, async () => {
      const { context, page, seen } = await openRecorded(viewport);
      try {
        await page.addInitScript(telegramWebviewScript(LIGHT_THEME));
        const initData = telegramInitData(
          { id: 7_100_001 + viewport.width, first_name: 'Cleo' },
          t.config.telegramBotToken,
          t.clock.now(),
        );
        await page.goto(`${origin}/app/${launchHash({ initData, theme: LIGHT_THEME })}`);
        // A new worker's first launch asks for a wallet among what applying needs.
        await page.getByRole('heading', { name: 'Welcome, Cleo!', level: 1 }).waitFor();
        await page.getByRole('button', { name: 'Connect wallet' }).click();
        const wallets = page.getByRole('list', { name: 'Wallets' });
        await wallets.getByRole('button', { name: 'Tonkeeper', exact: true }).waitFor();
        await iconsSettled(seen);
        await page.screenshot({
          path: path.join(os.tmpdir(), `handoff-miniapp-wallets-${viewport.width}.png`),
        });
        expect(offOrigin(seen)).toEqual([]);
        expect(seen.requests).toContain(`${origin}/tonconnect/wallets.json`);
        expect(seen.requests).toContain(`${origin}/tonconnect/wallet-icons/tonkeeper`);
        expect(seen.violations).toEqual([]);
        expect(seen.errors.filter((e) => /Content.Security.Policy|Refused to/i.test(e))).toEqual([]);

        // Choosing a wallet contacts that wallet alone; its bridge is in the policy's connect-src.
        await wallets.getByRole('button', { name: 'Tonkeeper', exact: true }).click();
        await expect.poll(() => offOrigin(seen).length, { timeout: WAIT_MS }).toBeGreaterThan(0);
        // Its bridge, and (on a phone, opening the wallet) its universal link: nothing else.
        const hosts = new Set(offOrigin(seen).map((url) => new URL(url).origin));
        expect([...hosts].filter((h) => !TONKEEPER.includes(h))).toEqual([]);
        expect(seen.violations).toEqual([]);
      } finally {
        await context.close();
      }
    }, 120_000);
  }
});
