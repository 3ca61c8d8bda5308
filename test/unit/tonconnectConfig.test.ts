import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'handoff-config-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const load = (value?: string) =>
  loadConfig({
    DATA_DIR: dataDir,
    ...(value === undefined ? {} : { TONCONNECT_WALLETS_URL: value }),
  }).config.tonConnectWalletsUrl;

describe('TONCONNECT_WALLETS_URL', () => {
  it('refreshes from the official list by default, from another https URL if given, never with off', () => {
    expect(load()).toBe('https://config.ton.org/wallets-v2.json');
    expect(load('')).toBe('https://config.ton.org/wallets-v2.json');
    expect(load('https://mirror.example/wallets-v2.json')).toBe('https://mirror.example/wallets-v2.json');
    expect(load('off')).toBeUndefined();
  });

  it('refuses anything but an https URL or off', () => {
    for (const bad of ['http://config.ton.org/wallets-v2.json', 'config.ton.org', 'no']) {
      expect(() => load(bad), bad).toThrow(/TONCONNECT_WALLETS_URL must be an https URL or off/);
    }
  });
});
