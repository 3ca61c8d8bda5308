import { readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEB_BUILD_DIR } from '../../src/http/routes/webApps.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const get = (url: string) => t.app.inject({ method: 'GET', url });

describe('the Mini App at /app (built by the test run’s global setup)', () => {
  it('serves index.html at /app/ and for the app’s own paths, revalidated on every load', async () => {
    for (const url of ['/app/', '/app/tasks/tsk_123', '/app/profile']) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.body).toContain('<div id="root"></div>');
    }
    const bare = await get('/app');
    expect(bare.statusCode).toBe(302);
    expect(bare.headers.location).toBe('/app/');
  });

  it('serves hashed assets with a year-long immutable cache, and answers 404 for missing files', async () => {
    const assets = readdirSync(path.join(WEB_BUILD_DIR, 'miniapp', 'assets'));
    const script = assets.find((name) => name.endsWith('.js'));
    expect(script).toBeDefined();
    const res = await get(`/app/assets/${script}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect((await get('/app/assets/index-missing.js')).statusCode).toBe(404);
    expect((await get('/app/nothing-here.png')).statusCode).toBe(404);
  });

  it('never serves a file outside the build', async () => {
    for (const url of [
      '/app/../package.json',
      '/app/%2e%2e/%2e%2e/package.json',
      '/app/..%2f..%2fpackage.json',
    ]) {
      const res = await get(url);
      expect(res.body, url).not.toContain('"name": "handoff"');
      expect([200, 404], url).toContain(res.statusCode);
      if (res.statusCode === 200) expect(res.body).toContain('<div id="root"></div>');
    }
  });

  it('serves the TON Connect manifest and the wallets list (the service’s, for both apps)', async () => {
    const manifest = await get('/tonconnect-manifest.json');
    expect(manifest.statusCode).toBe(200);
    expect(manifest.json()).toEqual({
      url: t.config.publicUrl,
      name: 'Handoff',
      iconUrl: `${t.config.publicUrl}/app/icon.png`,
    });
    const icon = await get('/app/icon.png');
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['content-type']).toBe('image/png');
    const wallets = await get('/tonconnect/wallets.json');
    expect(wallets.statusCode).toBe(200);
    expect((wallets.json() as { app_name: string }[]).map((w) => w.app_name)).toContain('tonkeeper');
  });
});
