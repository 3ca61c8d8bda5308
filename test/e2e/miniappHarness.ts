import { mkdirSync, mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { signTonProof, stateInitBoc, type TestTonWallet, unixSeconds } from '../helpers/tonConnect.js';
import { pageOverflow, seriousViolations } from './axe.js';
import {
  DARK_THEME,
  type HostLocation,
  launchHash,
  type PostedEvent,
  type TelegramUser,
  telegramInitData,
  telegramWebviewScript,
} from './telegramHost.js';

/**
 * Driving the built Mini App in Chromium inside the Telegram environment the tests set up
 * (telegramHost.ts): opening it as a Telegram user, Telegram's main and back buttons, the
 * phone-width check and screenshots. Shared by the Mini App's e2e tests.
 */

export const PHONE = { width: 360, height: 740 };
export const WAIT_MS = 20_000;

/**
 * Where a test file's screenshots go: with UPDATE_SCREENSHOTS=1 docs/screenshots (the README's),
 * otherwise a fresh temporary folder, so a test run leaves the work tree clean.
 */
export function screenshotsDir(tmpPrefix = 'handoff-screenshots-'): string {
  const dir = process.env.UPDATE_SCREENSHOTS
    ? fileURLToPath(new URL('../../docs/screenshots/', import.meta.url))
    : mkdtempSync(path.join(os.tmpdir(), tmpPrefix));
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * Serves `t` on a free local port for the browser. With `publicUrl` the service's own links
 * (TON Connect's manifest) and stored files' URLs point at that port too.
 */
export async function serveLocally(t: TestApp, options: { publicUrl: boolean }) {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  if (options.publicUrl) {
    t.config.publicUrl = origin;
    Object.assign(t.ctx, { publicUrl: origin }); // stored files' URLs
  }
  return { origin, port };
}

/** The server and browser a test file drives, and what the pages did that they should not. */
export interface MiniAppHost {
  t: TestApp;
  origin: string;
  browser: Browser;
  /** Requests the page tried to send anywhere but the service (aborted). */
  external: { url: string; type: string }[];
  /** Uncaught errors and console errors in the page (shown when a step fails). */
  pageErrors: string[];
}

export interface OpenOptions {
  theme: Record<string, string>;
  user: TelegramUser;
  startParam?: string;
  /** Where Telegram's location manager says the phone is (none: the client has no location). */
  location?: HostLocation;
  /** Runs before the page loads (init scripts, exposed functions). */
  prepare?: (page: Page) => Promise<void>;
  /** The phone's time zone (IANA), e.g. 'Europe/Moscow'; the machine's when not given. */
  timezoneId?: string;
  /** The phone's locale (navigator.language), e.g. 'ru-RU'; Chromium's default when not given. */
  locale?: string;
}

/** A fresh phone-sized context with the app opened as `user`; only the service is reachable. */
export async function openMiniApp(host: MiniAppHost, options: OpenOptions) {
  const { origin, browser } = host;
  const context: BrowserContext = await browser.newContext({
    viewport: PHONE,
    deviceScaleFactor: 1,
    colorScheme: options.theme === DARK_THEME ? 'dark' : 'light',
    ...(options.timezoneId ? { timezoneId: options.timezoneId } : {}),
    ...(options.locale ? { locale: options.locale } : {}),
  });
  await context.route('**/*', (route) => {
    const request = route.request();
    if (request.url().startsWith(origin)) return route.continue();
    host.external.push({ url: request.url(), type: request.resourceType() });
    return route.abort();
  });
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT_MS);
  page.on('pageerror', (error) => host.pageErrors.push(error.stack ?? error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') host.pageErrors.push(message.text());
  });
  await page.addInitScript(telegramWebviewScript(options.theme, options.location));
  await options.prepare?.(page);
  await goToApp(host, page, options);
  return { context, page };
}

let loads = 0;

/**
 * Loads the app afresh in `page` (a new query string each time: a change of hash alone would
 * not reload it), as Telegram opens it from a notification's link.
 */
export async function goToApp(host: MiniAppHost, page: Page, options: OpenOptions) {
  const initData = telegramInitData(options.user, host.t.config.telegramBotToken, host.t.clock.now());
  loads += 1;
  await page.goto(
    `${host.origin}/app/?load=${loads}${launchHash({ initData, theme: options.theme, startParam: options.startParam })}`,
  );
}

// Page-side code is passed as strings: the tests are type-checked without the DOM library.
export const events = (page: Page) => page.evaluate('window.__tgEvents') as Promise<PostedEvent[]>;
export const receive = (page: Page, type: string) =>
  page.evaluate(`window.Telegram.WebView.receiveEvent(${JSON.stringify(type)})`);
export const bodyBackground = (page: Page) =>
  page.evaluate('getComputedStyle(document.body).backgroundColor');

export async function lastEvent(page: Page, type: string) {
  return (await events(page)).filter((e) => e.type === type).at(-1)?.data ?? null;
}

/** Presses Telegram's main button once it shows `text` (the client sends main_button_pressed). */
export async function pressMainButton(page: Page, text: string) {
  await expectMainButton(page, text);
  await receive(page, 'main_button_pressed');
}

/** Telegram's main button shows `text`, visible and enabled. */
export async function expectMainButton(page: Page, text: string) {
  await expect
    .poll(() => lastEvent(page, 'web_app_setup_main_button'), { timeout: WAIT_MS })
    .toMatchObject({ text, is_visible: true, is_active: true });
}

export async function pressBackButton(page: Page) {
  await expect
    .poll(() => lastEvent(page, 'web_app_setup_back_button'), { timeout: WAIT_MS })
    .toMatchObject({ is_visible: true });
  await receive(page, 'back_button_pressed');
}

/** A failed step's error with what the page showed and the errors it logged. */
export async function explained(host: MiniAppHost, error: unknown, page: Page): Promise<Error> {
  const text = await page.evaluate('document.body.innerText').catch(() => '(page gone)');
  await page.screenshot({ path: path.join(os.tmpdir(), 'handoff-e2e-failure.png') }).catch(() => undefined);
  const failure = error instanceof Error ? error : new Error(String(error));
  failure.message += `\n--- page text ---\n${String(text).slice(0, 2000)}\n--- page errors ---\n${host.pageErrors.join('\n')}\n--- refused ---\n${host.external.map((r) => `${r.type} ${r.url}`).join('\n')}`;
  return failure;
}

/** Nothing on the screen is wider than the phone: no sideways scroll, nothing cut off. */
export async function expectFitsPhone(page: Page, screen: string) {
  const { innerWidth, scrollWidth, wider } = await pageOverflow(page);
  const fit = { innerWidth, scrollWidth, wider };
  expect(fit, `${screen} is wider than the phone: ${JSON.stringify(fit)}`).toEqual({
    innerWidth: PHONE.width,
    scrollWidth: PHONE.width,
    wider: [],
  });
}

/** Every image on the page has loaded (the previews of uploaded photos), so a screenshot shows them. */
export async function imagesLoaded(page: Page) {
  await expect
    .poll(
      () => page.evaluate('Array.from(document.images).every((img) => img.complete && img.naturalWidth > 0)'),
      { timeout: WAIT_MS },
    )
    .toBe(true);
}

/** A main screen: checked to fit the phone's width, then saved (the viewport's width, full height). */
export async function shot(page: Page, dir: string, name: string, theme: 'light' | 'dark') {
  await expectFitsPhone(page, `${name}-${theme}`);
  // Every main screen passes axe-core: no serious or critical finding (issue 27).
  expect(await seriousViolations(page), `axe on ${name}-${theme}`).toEqual([]);
  const png = await page.screenshot({ path: path.join(dir, `${name}-${theme}.png`), fullPage: true });
  // A full-page capture is as wide as the page scrolls: the phone's width, as the check above says.
  expect(png.readUInt32BE(16), `${name}-${theme}.png width`).toBe(PHONE.width);
}

/** What the Mini App's TON Connect client sends the injected wallet (injectedWalletScript). */
export interface WalletConnectRequest {
  manifestUrl: string;
  items: { name: string; payload?: string }[];
}

/**
 * The injected wallet's answer to a TON Connect connect request: ton_addr and a real ton_proof,
 * signed for the host of the manifest's url at the server's time.
 */
export async function walletConnectAnswer(
  wallet: TestTonWallet,
  clock: { now(): Date },
  message: WalletConnectRequest,
) {
  const manifest = (await (await fetch(message.manifestUrl)).json()) as { url: string };
  const payload = message.items.find((i) => i.name === 'ton_proof')?.payload;
  const reply = signTonProof(wallet, {
    payload: payload ?? '',
    domain: new URL(manifest.url).host,
    timestamp: unixSeconds(clock.now()),
    network: '-3',
  });
  return [
    {
      name: 'ton_addr',
      address: reply.address,
      network: reply.network,
      publicKey: reply.public_key,
      walletStateInit: stateInitBoc(wallet.init),
    },
    {
      name: 'ton_proof',
      proof: {
        timestamp: reply.proof.timestamp,
        domain: reply.proof.domain,
        signature: reply.proof.signature,
        payload: reply.proof.payload,
      },
    },
  ];
}
