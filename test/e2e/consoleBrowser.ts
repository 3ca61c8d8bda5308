import type { Browser, Page } from 'playwright-core';
import {
  signTonProof,
  signWalletTransfer,
  stateInitBoc,
  type TestTonWallet,
  type TransactionRequest,
  unixSeconds,
} from '../helpers/tonConnect.js';
import { launchChromium as launchQuietChromium } from './browser.js';

/** The shared Chromium launcher (browser.ts), with the close the console test expects. */
export async function launchChromium(): Promise<{ browser: Browser; close: () => Promise<void> }> {
  const browser = await launchQuietChromium();
  return { browser, close: () => browser.close() };
}

/**
 * What the test wallet was asked to send through TON Connect's sendTransaction, and the signed
 * external message it answered with (base64 BOC), which a test may broadcast to a chain.
 */
export interface SentTransaction extends TransactionRequest {
  boc: string;
}

export const TEST_WALLET_KEY = 'handoffTestWallet';

/**
 * Injects a TON Connect wallet into the page the way a browser-extension wallet does: an object at
 * `window[jsBridgeKey].tonconnect` speaking the JS bridge protocol (connect, restoreConnection,
 * send, listen) with `walletInfo`, so TON Connect UI lists it and the app's real code path runs.
 * It answers connect requests with a real ton_proof signed here, in Node, by the test wallet's key
 * for the page's host at `nowSeconds()`. A sendTransaction request is approved as a wallet app
 * does: the wallet signs the transfer (with its seqno on the chain, from `seqno`) and answers with
 * the message's BOC; the request and the BOC are recorded. Broadcasting is left to the test.
 */
export async function injectTonConnectWallet(
  page: Page,
  wallet: TestTonWallet,
  nowSeconds: () => number,
  seqno: () => Promise<number> = async () => 0,
): Promise<SentTransaction[]> {
  const sent: SentTransaction[] = [];
  const account = {
    address: wallet.address.toRawString(),
    network: '-3',
    publicKey: wallet.keys.publicKey.toString('hex'),
    walletStateInit: stateInitBoc(wallet.init),
  };
  await page.exposeFunction('handoffWalletAccount', () => account);
  await page.exposeFunction('handoffWalletSignProof', (payload: string, domain: string) => {
    const { proof } = signTonProof(wallet, { payload, domain, timestamp: nowSeconds() });
    const { state_init: _stateInit, ...rest } = proof;
    return rest;
  });
  await page.exposeFunction('handoffWalletSend', async (json: string) => {
    const request = JSON.parse(json) as TransactionRequest;
    const boc = signWalletTransfer(wallet, request, await seqno())
      .toBoc()
      .toString('base64');
    sent.push({ ...request, boc });
    return boc;
  });
  await page.addInitScript(
    ({ key }) => {
      type Item = { name: string; payload?: string };
      // Runs in the page (globalThis is window there); the test's tsconfig has no DOM types.
      const w = globalThis as unknown as Record<string, unknown> & {
        location: { host: string };
        handoffWalletAccount: () => Promise<Record<string, string>>;
        handoffWalletSignProof: (payload: string, domain: string) => Promise<unknown>;
        handoffWalletSend: (request: string) => Promise<string>;
      };
      const deviceInfo = {
        platform: 'browser',
        appName: 'handoff-test-wallet',
        appVersion: '1.0.0',
        maxProtocolVersion: 2,
        features: ['SendTransaction', { name: 'SendTransaction', maxMessages: 4 }],
      };
      const addressItem = async () => ({ name: 'ton_addr', ...(await w.handoffWalletAccount()) });
      let nextEventId = 1;
      const image = 'data:image/svg+xml,%3Csvg xmlns="http://www.w3.org/2000/svg" width="8" height="8"/%3E';
      // The console lists it through walletsListConfiguration.includeWallets.
      w.handoffConsoleWallets = [
        {
          appName: 'handoff-test-wallet',
          name: 'Handoff Test Wallet',
          imageUrl: image,
          aboutUrl: 'https://handoff.example/test-wallet',
          jsBridgeKey: key,
          platforms: ['chrome', 'firefox', 'safari', 'linux', 'macos', 'windows'],
        },
      ];
      w[key] = {
        tonconnect: {
          deviceInfo,
          walletInfo: {
            name: 'Handoff Test Wallet',
            app_name: 'handoff-test-wallet',
            image,
            about_url: 'https://handoff.example/test-wallet',
            platforms: ['chrome', 'firefox', 'safari', 'linux', 'macos', 'windows'],
          },
          protocolVersion: 2,
          isWalletBrowser: false,
          async connect(_version: number, message: { items: Item[] }) {
            const items: unknown[] = [await addressItem()];
            const proofRequest = message.items.find((i) => i.name === 'ton_proof');
            if (proofRequest?.payload) {
              items.push({
                name: 'ton_proof',
                proof: await w.handoffWalletSignProof(proofRequest.payload, w.location.host),
              });
            }
            return { event: 'connect', id: nextEventId++, payload: { items, device: deviceInfo } };
          },
          async restoreConnection() {
            return {
              event: 'connect',
              id: nextEventId++,
              payload: { items: [await addressItem()], device: deviceInfo },
            };
          },
          async send(request: { method: string; params: string[]; id: string }) {
            if (request.method === 'sendTransaction') {
              return { result: await w.handoffWalletSend(request.params[0]!), id: request.id };
            }
            if (request.method === 'disconnect') return { result: {}, id: request.id };
            return { error: { code: 400, message: 'not supported' }, id: request.id };
          },
          listen() {
            return () => undefined;
          },
        },
      };
    },
    { key: TEST_WALLET_KEY },
  );
  return sent;
}

export { unixSeconds };
