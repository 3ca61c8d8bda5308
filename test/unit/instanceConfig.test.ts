import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'handoff-instance-config-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const base = {
  DATA_DIR: dataDir,
  ADMIN_TOKEN: 'admin-token-from-env-0123456789abcdef',
  SECRET_KEY: 'ab'.repeat(32),
  TELEGRAM_BOT_TOKEN: '123:bot-token-from-env',
};

describe('INSTANCE_ID and the lease settings', () => {
  it('default to hostname:pid and a 15 s lease with a 5 s skew margin', () => {
    expect(loadConfig(base).config).toMatchObject({
      instanceId: `${os.hostname()}:${process.pid}`,
      leaseTtlMs: 15_000,
      leaseSkewMs: 5_000,
    });
  });

  it('take what is given', () => {
    const { config } = loadConfig({
      ...base,
      INSTANCE_ID: 'web-1',
      LEASE_TTL_MS: '6000',
      LEASE_SKEW_MS: '2000',
    });
    expect(config).toMatchObject({ instanceId: 'web-1', leaseTtlMs: 6_000, leaseSkewMs: 2_000 });
  });

  it('refuse an instance id with spaces or past 200 characters, and a skew over a third of the lease', () => {
    expect(() => loadConfig({ ...base, INSTANCE_ID: 'web 1' })).toThrow(
      /INSTANCE_ID must be 1-200 printable/,
    );
    expect(() => loadConfig({ ...base, INSTANCE_ID: 'x'.repeat(201) })).toThrow(/INSTANCE_ID/);
    expect(() => loadConfig({ ...base, LEASE_TTL_MS: '9000', LEASE_SKEW_MS: '3001' })).toThrow(
      /LEASE_SKEW_MS \(3001\) must be at most a third of LEASE_TTL_MS \(9000\)/,
    );
    expect(() => loadConfig({ ...base, LEASE_TTL_MS: '500' })).toThrow(
      /LEASE_TTL_MS must be an integer from 1000/,
    );
  });
});
