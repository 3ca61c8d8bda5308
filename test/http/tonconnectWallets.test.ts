import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import vm from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WalletsCatalog } from '../../src/tonconnect/walletsCatalog.js';
import { refreshWallets } from '../../src/tonconnect/walletsRefresh.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

/**
 * The TON Connect wallets list and icons the service serves to its web apps, and the job that
 * refreshes them: against a real local HTTP server standing in for config.ton.org and the
 * wallets' image hosts.
 */
const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.alloc(64, 1),
]);

/** What the fake internet answers, by path: [status, content type, body]. */
const routes = new Map<string, [number, string, Buffer | string]>();
let server: Server;
let host: string;
let t: TestApp;
const catalog = new WalletsCatalog();

beforeAll(async () => {
  server = createServer((req, res) => {
    const [status, type, body] = routes.get(req.url ?? '') ?? [404, 'text/plain', 'not found'];
    res.writeHead(status, { 'content-type': type }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  host = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t = await createTestApp({ wallets: catalog });
});
afterAll(async () => {
  await t.close();
  await new Promise((resolve) => server.close(resolve));
});

const get = (url: string) => t.app.inject({ method: 'GET', url });

const wallet = (appName: string, image: string, bridge: string) => ({
  app_name: appName,
  name: `Wallet ${appName}`,
  image,
  about_url: 'https://example.com/about',
  universal_url: `https://example.com/${appName}`,
  bridge: [{ type: 'sse', url: bridge }],
  platforms: ['ios', 'android'],
  features: [{ name: 'SendTransaction', maxMessages: 4 }],
});

describe('the wallets list and icons the web apps load', () => {
  it('serves the snapshot shipped in the repository: the TON Connect SDK’s own fallback list, icons on our origin', async () => {
    // The snapshot is the SDK's FALLBACK_WALLETS_LIST as installed, entry for entry.
    const source = readFileSync(
      path.resolve(import.meta.dirname, '../../node_modules/@tonconnect/sdk/lib/esm/index.mjs'),
      'utf8',
    );
    const start = source.indexOf('[', source.indexOf('const FALLBACK_WALLETS_LIST = ['));
    const fallback = vm.runInNewContext(`(${source.slice(start, source.indexOf('\n];\n', start) + 2)})`, {});
    const res = await get('/tonconnect/wallets.json');
    expect(res.statusCode).toBe(200);
    const list = res.json() as { app_name: string; image: string }[];
    expect(list.length).toBeGreaterThan(20);
    expect(list.map(({ image: _, ...w }) => w)).toEqual(
      (fallback as { image: string }[]).map(({ image: _, ...w }) => w),
    );
    for (const w of list) expect(w.image).toBe(`/tonconnect/wallet-icons/${encodeURIComponent(w.app_name)}`);

    // Not fetched yet: a neutral placeholder, never a redirect to the wallet's own host.
    const icon = await get('/tonconnect/wallet-icons/tonkeeper');
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['content-type']).toBe('image/svg+xml');
    expect(icon.headers['content-security-policy']).toContain("default-src 'none'");
    expect(icon.body).toContain('<svg');
    const ui = await get('/tonconnect/ui-icons/tg.png');
    expect(ui.statusCode).toBe(200);
    expect(ui.headers['content-type']).toBe('image/svg+xml');

    for (const url of ['/tonconnect/wallet-icons/nope', '/tonconnect/ui-icons/other.png']) {
      const missing = await get(url);
      expect(missing.statusCode, url).toBe(404);
      expect(missing.json().error, url).toEqual(expect.any(String));
    }
  });

  it('refreshes the list and fetches its icons, keeping only images that are what they say, within bounds', async () => {
    routes.set('/wallets-v2.json', [
      200,
      'application/json',
      JSON.stringify([
        wallet('good', `${host}/good.png`, 'https://bridge.good.example/bridge'),
        wallet('liar', `${host}/liar.png`, 'https://bridge.liar.example/bridge'),
        wallet('svg', `${host}/icon.svg`, 'https://bridge.good.example/bridge'),
        wallet('huge', `${host}/huge.png`, 'https://bridge.huge.example/bridge'),
        wallet('gone', `${host}/gone.png`, 'https://bridge.gone.example/bridge'),
        // Not usable by TON Connect (no bridge) or by us (an http image): dropped.
        { ...wallet('nobridge', `${host}/good.png`, 'https://x.example'), bridge: [] },
        wallet('../../etc', `${host}/good.png`, 'https://bridge.evil.example/bridge'),
      ]),
    ]);
    routes.set('/good.png', [200, 'image/png', PNG]);
    routes.set('/liar.png', [200, 'image/png', '<html>not an image</html>']);
    routes.set('/icon.svg', [200, 'image/svg+xml', '<svg xmlns="http://www.w3.org/2000/svg"/>']);
    routes.set('/huge.png', [200, 'image/png', Buffer.concat([PNG, Buffer.alloc(300 * 1024)])]);
    for (const name of ['ton-icon-48.png', 'tg.png', 'walletconnect-icon-288.png']) {
      routes.set(`/ui/${name}`, [200, 'image/png', PNG]);
    }

    const result = await refreshWallets(catalog, `${host}/wallets-v2.json`, t.clock.now(), {
      allowPrivate: true,
      uiIconsOrigin: `${host}/ui/`,
    });
    expect(result).toEqual({ wallets: 5, iconsFetched: 4, iconsFailed: 4 });

    const list = (await get('/tonconnect/wallets.json')).json() as { app_name: string; image: string }[];
    expect(list.map((w) => w.app_name)).toEqual(['good', 'liar', 'svg', 'huge', 'gone']);
    const good = await get('/tonconnect/wallet-icons/good');
    expect(good.headers['content-type']).toBe('image/png');
    expect(good.rawPayload.equals(PNG)).toBe(true);
    for (const name of ['liar', 'svg', 'huge', 'gone']) {
      expect((await get(`/tonconnect/wallet-icons/${name}`)).headers['content-type'], name).toBe(
        'image/svg+xml',
      );
    }
    expect((await get('/tonconnect/ui-icons/tg.png')).headers['content-type']).toBe('image/png');
    // A wallet no longer listed is not served.
    expect((await get('/tonconnect/wallet-icons/tonkeeper')).statusCode).toBe(404);

    // The pages' policy lets them reach the new list's bridges (after a choice), and no others.
    const csp = (await get('/console/')).headers['content-security-policy'] as string;
    const connect = csp.split('; ').find((d) => d.startsWith('connect-src '));
    expect(connect).toBe(
      "connect-src 'self' https://bridge.gone.example https://bridge.good.example https://bridge.huge.example https://bridge.liar.example",
    );
  });

  it('keeps what it has when the source fails, is too big, is not a list, or is not a public https address', async () => {
    const before = (await get('/tonconnect/wallets.json')).body;
    routes.set('/big.json', [200, 'application/json', `[${' '.repeat(1_100_000)}]`]);
    routes.set('/object.json', [200, 'application/json', '{"wallets": []}']);
    routes.set('/empty.json', [200, 'application/json', '[]']);
    routes.set('/html', [200, 'text/html', '<html></html>']);
    const refresh = (url: string, allowPrivate = true) =>
      refreshWallets(catalog, url, t.clock.now(), { allowPrivate });
    await expect(refresh(`${host}/big.json`)).rejects.toThrow(/bytes/);
    await expect(refresh(`${host}/object.json`)).rejects.toThrow(/no usable wallet/);
    await expect(refresh(`${host}/empty.json`)).rejects.toThrow(/no usable wallet/);
    await expect(refresh(`${host}/html`)).rejects.toThrow(/content type/);
    await expect(refresh(`${host}/missing.json`)).rejects.toThrow(/404/);
    // The service's own settings: https only, and never a private address (the webhooks' guard).
    await expect(refresh(`${host}/wallets-v2.json`, false)).rejects.toThrow(/not https/);
    await expect(refresh('https://127.0.0.1:9/wallets-v2.json', false)).rejects.toThrow(
      /not a public address/,
    );
    await expect(refresh('https://localhost/wallets-v2.json', false)).rejects.toThrow(/localhost/);
    expect((await get('/tonconnect/wallets.json')).body).toBe(before);
  });
});
