import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

const dirs: string[] = [];
function dataDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'handoff-tgconfig-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const SECRETS = { ADMIN_TOKEN: 'a'.repeat(32), SECRET_KEY: 'ab'.repeat(32) };

describe('Telegram settings', () => {
  it('a generated bot token means no bot; a given one turns it on', () => {
    expect(loadConfig({ DATA_DIR: dataDir(), ...SECRETS }).config.telegramBotEnabled).toBe(false);
    const { config } = loadConfig({ DATA_DIR: dataDir(), ...SECRETS, TELEGRAM_BOT_TOKEN: '123:abc' });
    expect(config.telegramBotEnabled).toBe(true);
  });

  it('defaults: the public Bot API, the Mini App under PUBLIC_URL, a secret derived from the token', () => {
    const env = {
      DATA_DIR: dataDir(),
      ...SECRETS,
      TELEGRAM_BOT_TOKEN: '123:abc',
      PUBLIC_URL: 'https://h.example/',
    };
    const { config, notices } = loadConfig(env);
    expect(config.telegramApiRoot).toBe('https://api.telegram.org');
    expect(config.miniAppUrl).toBe('https://h.example/app');
    expect(config.telegramWebhookSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(notices).toEqual([]);
    // Every instance with the same token derives the same secret; another token, another secret.
    expect(loadConfig({ ...env, DATA_DIR: dataDir() }).config.telegramWebhookSecret).toBe(
      config.telegramWebhookSecret,
    );
    expect(
      loadConfig({ ...env, DATA_DIR: dataDir(), TELEGRAM_BOT_TOKEN: '123:xyz' }).config.telegramWebhookSecret,
    ).not.toBe(config.telegramWebhookSecret);
  });

  it('reads TELEGRAM_API_ROOT, TELEGRAM_WEBHOOK_SECRET and MINI_APP_URL', () => {
    const { config } = loadConfig({
      DATA_DIR: dataDir(),
      ...SECRETS,
      TELEGRAM_API_ROOT: 'http://127.0.0.1:8081/',
      TELEGRAM_WEBHOOK_SECRET: 'my_Secret-1',
      MINI_APP_URL: 'https://t.me/handoff_bot/app',
    });
    expect(config).toMatchObject({
      telegramApiRoot: 'http://127.0.0.1:8081',
      telegramWebhookSecret: 'my_Secret-1',
      miniAppUrl: 'https://t.me/handoff_bot/app',
    });
  });

  it('refuses a secret Telegram would not accept and URLs that are not http(s)', () => {
    const base = { DATA_DIR: dataDir(), ...SECRETS };
    expect(() => loadConfig({ ...base, TELEGRAM_WEBHOOK_SECRET: 'has space' })).toThrow(
      /TELEGRAM_WEBHOOK_SECRET/,
    );
    expect(() => loadConfig({ ...base, TELEGRAM_WEBHOOK_SECRET: 'x'.repeat(257) })).toThrow(
      /TELEGRAM_WEBHOOK_SECRET/,
    );
    expect(() => loadConfig({ ...base, TELEGRAM_API_ROOT: 'ftp://x' })).toThrow(/TELEGRAM_API_ROOT/);
    expect(() => loadConfig({ ...base, MINI_APP_URL: 'app' })).toThrow(/MINI_APP_URL/);
  });
});
