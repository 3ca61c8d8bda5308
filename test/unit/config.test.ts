import { readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Address } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { CONFIG_SECRETS as SECRETS, tempDirs } from '../helpers/configEnv.js';

const tempDataDir = tempDirs('handoff-config-');

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const dataDir = tempDataDir();
    const { config } = loadConfig({ DATA_DIR: dataDir, ...SECRETS });
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      dataDir: path.resolve(dataDir),
      databaseUrl: null,
      publicUrl: 'http://localhost:3000',
      adminToken: 'admin-token-from-env-0123456789abcdef',
      telegramBotToken: '123:bot-token-from-env',
      rateLimitStandard: 100,
      rateLimitChat: 30,
      rateLimitUpload: 10,
      tonNetwork: 'sandbox',
      production: false,
    });
    expect(config.secretKey).toEqual(Buffer.from(SECRETS.SECRET_KEY, 'hex'));
  });

  it('reads every setting from the environment', () => {
    const { config } = loadConfig({
      DATA_DIR: tempDataDir(),
      ...SECRETS,
      PORT: '8080',
      HOST: '127.0.0.1',
      PUBLIC_URL: 'https://handoff.example/',
      DATABASE_URL: 'postgres://user@db:5432/handoff',
      RATE_LIMIT_STANDARD: '500',
      RATE_LIMIT_CHAT: '60',
      RATE_LIMIT_UPLOAD: '5',
      TON_NETWORK: 'sandbox',
    });
    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      publicUrl: 'https://handoff.example',
      databaseUrl: 'postgres://user@db:5432/handoff',
      rateLimitStandard: 500,
      rateLimitChat: 60,
      rateLimitUpload: 5,
    });
    expect(loadConfig({ DATA_DIR: tempDataDir(), ...SECRETS, PORT: '8081' }).config.publicUrl).toBe(
      'http://localhost:8081',
    );
  });

  it('generates missing secrets once into DATA_DIR/secrets, says so, and reuses them', () => {
    const dataDir = tempDataDir();
    const first = loadConfig({ DATA_DIR: dataDir });
    expect(first.notices.map((n) => n.message)).toEqual([
      expect.stringMatching(/ADMIN_TOKEN was not set: generated/),
      expect.stringMatching(/SECRET_KEY was not set: generated/),
      expect.stringMatching(/TELEGRAM_BOT_TOKEN was not set: generated/),
    ]);
    const secretsDir = path.join(dataDir, 'secrets');
    for (const name of ['ADMIN_TOKEN', 'SECRET_KEY', 'TELEGRAM_BOT_TOKEN']) {
      const file = path.join(secretsDir, name);
      expect(statSync(file).mode & 0o777, name).toBe(0o600);
    }
    expect(statSync(secretsDir).mode & 0o077).toBe(0);
    expect(readFileSync(path.join(secretsDir, 'ADMIN_TOKEN'), 'utf8').trim()).toBe(first.config.adminToken);
    expect(first.config.adminToken).toMatch(/^[0-9a-f]{64}$/);
    expect(first.config.secretKey).toHaveLength(32);
    expect(first.config.telegramBotToken).toMatch(/^\d+:[0-9a-f]+$/);

    const second = loadConfig({ DATA_DIR: dataDir });
    expect(second.config.adminToken).toBe(first.config.adminToken);
    expect(second.config.secretKey.equals(first.config.secretKey)).toBe(true);
    expect(second.config.telegramBotToken).toBe(first.config.telegramBotToken);
    expect(second.notices.map((n) => n.message)).toEqual([
      expect.stringMatching(/ADMIN_TOKEN was not set: using the generated/),
      expect.stringMatching(/SECRET_KEY was not set: using the generated/),
      expect.stringMatching(/TELEGRAM_BOT_TOKEN was not set: using the generated/),
    ]);

    // Another data directory gets other secrets.
    const other = loadConfig({ DATA_DIR: tempDataDir() });
    expect(other.config.adminToken).not.toBe(first.config.adminToken);
  });

  it('secrets given by the environment win and nothing is generated', () => {
    const dataDir = tempDataDir();
    const { notices } = loadConfig({ DATA_DIR: dataDir, ...SECRETS });
    expect(notices).toEqual([]);
    expect(() => statSync(path.join(dataDir, 'secrets'))).toThrow();
  });

  it('NODE_ENV=production without secrets throws; with them it starts', () => {
    for (const missing of Object.keys(SECRETS)) {
      const env: Record<string, string> = { DATA_DIR: tempDataDir(), NODE_ENV: 'production', ...SECRETS };
      delete env[missing];
      expect(() => loadConfig(env), missing).toThrow(new RegExp(missing));
    }
    const { config } = loadConfig({ DATA_DIR: tempDataDir(), NODE_ENV: 'production', ...SECRETS });
    expect(config.production).toBe(true);
  });

  it('ADMIN_TOKEN must be at least 32 characters, given or generated, in production or not', () => {
    for (const NODE_ENV of ['production', 'development']) {
      const env = { DATA_DIR: tempDataDir(), NODE_ENV, ...SECRETS, ADMIN_TOKEN: 'a'.repeat(31) };
      expect(() => loadConfig(env), NODE_ENV).toThrow(/ADMIN_TOKEN must be at least 32 characters/);
      expect(loadConfig({ ...env, ADMIN_TOKEN: 'a'.repeat(32) }).config.adminToken).toBe('a'.repeat(32));
    }
    const generated = loadConfig({ DATA_DIR: tempDataDir() }).config.adminToken;
    expect(generated.length).toBeGreaterThanOrEqual(32);
  });

  it('DATABASE_URL must be a postgres:// URL', () => {
    for (const url of ['postgres://localhost/db', 'postgresql://u:p@h:5432/db']) {
      expect(loadConfig({ DATA_DIR: tempDataDir(), ...SECRETS, DATABASE_URL: url }).config.databaseUrl).toBe(
        url,
      );
    }
    for (const url of ['mysql://localhost/db', 'sqlite:///tmp/x.db', 'localhost:5432', 'http://pg']) {
      expect(() => loadConfig({ DATA_DIR: tempDataDir(), ...SECRETS, DATABASE_URL: url }), url).toThrow(
        /DATABASE_URL/,
      );
    }
  });

  it.each(['abc', '-1', '65536', '3.5', '1e3x'])('an invalid PORT %j throws', (port) => {
    expect(() => loadConfig({ DATA_DIR: tempDataDir(), ...SECRETS, PORT: port })).toThrow(/PORT/);
  });

  it.each([
    ['RATE_LIMIT_STANDARD', '0'],
    ['RATE_LIMIT_CHAT', 'many'],
    ['RATE_LIMIT_UPLOAD', '-5'],
    ['RATE_LIMIT_STANDARD', '1000000001'],
  ])('an invalid %s=%j throws', (name, value) => {
    expect(() => loadConfig({ DATA_DIR: tempDataDir(), ...SECRETS, [name]: value })).toThrow(
      new RegExp(name),
    );
  });

  it('a rate limit may be as high as a billion a minute, which no instance reaches', () => {
    const { config } = loadConfig({ DATA_DIR: tempDataDir(), ...SECRETS, RATE_LIMIT_STANDARD: '1000000000' });
    expect(config.rateLimitStandard).toBe(1_000_000_000);
  });

  it('TON_NETWORK must be sandbox, testnet or mainnet', () => {
    expect(() => loadConfig({ DATA_DIR: tempDataDir(), ...SECRETS, TON_NETWORK: 'foo' })).toThrow(
      /TON_NETWORK/,
    );
    // testnet and mainnet need the hot wallet's words: refused with a message that names the setting.
    for (const network of ['testnet', 'mainnet']) {
      expect(() => loadConfig({ DATA_DIR: tempDataDir(), ...SECRETS, TON_NETWORK: network })).toThrow(
        /TON_WALLET_MNEMONIC/,
      );
    }
  });

  it('TON_PROOF_DOMAINS: a comma-separated host list, by default the host of PUBLIC_URL', () => {
    const load = (env: Record<string, string>) =>
      loadConfig({ DATA_DIR: tempDataDir(), ...SECRETS, ...env }).config.tonProofDomains;
    expect(load({})).toEqual(['localhost:3000']);
    expect(load({ PUBLIC_URL: 'https://handoff.example/' })).toEqual(['handoff.example']);
    expect(load({ TON_PROOF_DOMAINS: 'App.example.com, mini.example.com:8443' })).toEqual([
      'app.example.com',
      'mini.example.com:8443',
    ]);
    expect(() => load({ TON_PROOF_DOMAINS: 'https://app.example.com' })).toThrow(/TON_PROOF_DOMAINS/);
  });

  it('TRUST_PROXY: false by default; true (with a warning), or addresses, CIDRs and named ranges; never a hop count', () => {
    const load = (env: Record<string, string>) => loadConfig({ DATA_DIR: tempDataDir(), ...SECRETS, ...env });
    expect(load({}).config.trustProxy).toBe(false);
    expect(load({ TRUST_PROXY: 'false' }).config.trustProxy).toBe(false);
    const trustAll = load({ TRUST_PROXY: 'true' });
    expect(trustAll.config.trustProxy).toBe(true);
    expect(trustAll.notices.map((n) => n.message)).toContainEqual(
      expect.stringMatching(/^TRUST_PROXY=true trusts/),
    );
    expect(load({ TRUST_PROXY: '10.0.0.5, 172.16.0.0/12,::1, fd00::/8,loopback' }).config.trustProxy).toEqual(
      ['10.0.0.5', '172.16.0.0/12', '::1', 'fd00::/8', 'loopback'],
    );
    expect(() => load({ TRUST_PROXY: '1' })).toThrow(/hop count/);
    for (const bad of ['yes', '10.0.0.0/33', '10.0.0.300', 'proxy.example.com', '10.0.0.0/8,', '::1/129']) {
      expect(() => load({ TRUST_PROXY: bad }), bad).toThrow(/^TRUST_PROXY must be/);
    }
  });

  it('WEBHOOK_ALLOW_PRIVATE: true by default only on the sandbox outside production; false on testnet and mainnet', () => {
    const live = {
      TON_WALLET_MNEMONIC: Array(24).fill('abandon').join(' '),
      TON_FEE_ADDRESS: new Address(0, Buffer.alloc(32, 7)).toString(),
    };
    const allows = (env: Record<string, string>) =>
      loadConfig({ DATA_DIR: tempDataDir(), ...SECRETS, ...env }).config.webhookAllowPrivate;
    expect(allows({})).toBe(true);
    expect(allows({ TON_NETWORK: 'sandbox' })).toBe(true);
    expect(allows({ TON_NETWORK: 'sandbox', NODE_ENV: 'production' })).toBe(false);
    expect(allows({ TON_NETWORK: 'testnet', ...live })).toBe(false);
    expect(allows({ TON_NETWORK: 'mainnet', ...live })).toBe(false);
    expect(allows({ TON_NETWORK: 'testnet', NODE_ENV: 'development', ...live })).toBe(false);
    // Said explicitly, the setting wins either way.
    expect(allows({ TON_NETWORK: 'testnet', WEBHOOK_ALLOW_PRIVATE: 'true', ...live })).toBe(true);
    expect(allows({ TON_NETWORK: 'sandbox', WEBHOOK_ALLOW_PRIVATE: 'false' })).toBe(false);
  });

  it('SECRET_KEY: 64 hex characters are the key; 32+ other characters are hashed; shorter throws', () => {
    const long = 'a passphrase that is long enough!!';
    const hashed = loadConfig({ DATA_DIR: tempDataDir(), ...SECRETS, SECRET_KEY: long }).config.secretKey;
    expect(hashed).toHaveLength(32);
    expect(hashed.equals(Buffer.from(long.slice(0, 32)))).toBe(false);
    expect(() => loadConfig({ DATA_DIR: tempDataDir(), ...SECRETS, SECRET_KEY: 'short' })).toThrow(
      /SECRET_KEY/,
    );
  });
});

describe('loadConfig: instance, metrics and tracing', () => {
  it('names the instance hostname:pid unless INSTANCE_ID says, and leaves metrics token and tracing unset', () => {
    const { config } = loadConfig({ DATA_DIR: tempDataDir(), ...SECRETS });
    expect(config.instanceId).toBe(`${os.hostname()}:${process.pid}`);
    expect(config.metricsToken).toBeUndefined();
    expect(config.otel).toBeUndefined();
    expect(loadConfig({ DATA_DIR: tempDataDir(), ...SECRETS, INSTANCE_ID: 'api-2' }).config.instanceId).toBe(
      'api-2',
    );
  });

  it('takes METRICS_TOKEN of 32+ characters and an OTLP endpoint URL, and refuses others with the fix', () => {
    const token = 'm'.repeat(32);
    const { config } = loadConfig({
      DATA_DIR: tempDataDir(),
      ...SECRETS,
      METRICS_TOKEN: token,
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318/',
    });
    expect(config.metricsToken).toBe(token);
    expect(config.otel).toEqual({ endpoint: 'http://otel-collector:4318', serviceName: 'handoff' });
    expect(() => loadConfig({ DATA_DIR: tempDataDir(), ...SECRETS, METRICS_TOKEN: 'short' })).toThrow(
      /METRICS_TOKEN must be at least 32 characters/,
    );
    expect(() =>
      loadConfig({ DATA_DIR: tempDataDir(), ...SECRETS, OTEL_EXPORTER_OTLP_ENDPOINT: 'otel:4318' }),
    ).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT must be an http\(s\) URL/);
    const named = loadConfig({
      DATA_DIR: tempDataDir(),
      ...SECRETS,
      OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector.example',
      OTEL_SERVICE_NAME: 'handoff-eu',
    });
    expect(named.config.otel?.serviceName).toBe('handoff-eu');
  });
});
