import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { inject } from 'vitest';
import { type AppDeps, buildApp } from '../../src/app.js';
import type { ChainGateway } from '../../src/chain/gateway.js';
import { createSandboxGateway } from '../../src/chain/sandboxGateway.js';
import { type Config, DEFAULT_HTTP_LIMITS, type HttpLimits, type S3Settings } from '../../src/config.js';
import { ManualClock } from '../../src/domain/clock.js';
import type { DomainContext } from '../../src/domain/context.js';
import { RedisLink } from '../../src/redis/link.js';
import { closeServices, openServices, type Services } from '../../src/services.js';
import { signInitData } from '../../src/telegram/initData.js';
import { copyDbTemplate, type DbTemplate } from './dbTemplate.js';

/**
 * One app per test (or per file): its own SQLite file, or its own PostgreSQL schema when
 * TEST_DATABASE_URL is set, and its own sandbox chain, so tests never share state.
 */
export interface TestApp {
  app: FastifyInstance;
  clock: ManualClock;
  config: Config;
  services: Services;
  ctx: DomainContext;
  admin: { authorization: string };
  /** The PostgreSQL schema of this app, when on PostgreSQL. */
  pgSchema: string | undefined;
  /** Closes the app; `keepData` leaves its database and chain for a `reopen`. */
  close(options?: { keepData?: boolean }): Promise<void>;
}

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || null;
export const DIALECT = TEST_DATABASE_URL ? 'postgres' : 'sqlite';
/** Chain time starts here; the manual clock moves it. */
const START = new Date('2030-01-01T00:00:00.000Z');

let chainTemplate: Promise<string> | undefined;

/** A funded, deployed sandbox chain made once per test process and copied for each app. */
function chainTemplateDir(): Promise<string> {
  chainTemplate ??= (async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'handoff-chain-template-'));
    const gateway = await createSandboxGateway({
      stateDir: dir,
      nowSeconds: () => Math.floor(START.getTime() / 1000),
    });
    await gateway.close();
    return dir;
  })();
  return chainTemplate;
}

export interface TestAppOptions {
  pgPoolSize?: number;
  /** Wraps the chain gateway, to inject faults (the only place tests replace a real part). */
  wrapChain?: (chain: ChainGateway) => ChainGateway;
  /** Reopens the data of an app closed with `close({ keepData: true })`: a restart. */
  reopen?: TestApp;
  /** Starts the manual clock here (a reopened app continues from its predecessor's clock). */
  start?: Date;
  /** The HTTP server's deadlines and connection cap (tests of slow clients keep them short). */
  httpLimits?: Partial<HttpLimits>;
  /** TRUST_PROXY as parsed (tests of proxied clients). */
  trustProxy?: Config['trustProxy'];
  /** How long webhook receivers get (tests of time-outs keep it short). */
  webhookTimeoutMs?: number;
  /** Enables the Telegram bot against this Bot API server (a local fake); without it there is no bot. */
  telegram?: { apiRoot: string };
  /** The app's logger, as main.ts gives it (tests of what is logged); none by default. */
  logger?: AppDeps['logger'];
  /** The TON Connect wallets catalog the web apps are served (the shipped snapshot by default). */
  wallets?: AppDeps['wallets'];
  /** Uploads in this bucket (a local s3rver, test/helpers/s3.ts) instead of on disk. */
  s3?: S3Settings;
  /** REDIS_URL and REDIS_PREFIX (tests give a prefix of their own: the Redis is shared). */
  redis?: { url: string; prefix: string };
  /** With `config.otel`, spans go to this exporter (an in-memory one) instead of over OTLP. */
  spanExporter?: AppDeps['spanExporter'];
  /** Runs the background jobs, as main.ts does (off by default: tests drive the work themselves). */
  jobs?: boolean;
  /**
   * Another instance on the same database as `sharedWith` (its SQLite file or PostgreSQL schema),
   * with its own data directory otherwise; closing it leaves the shared database alone.
   */
  sharedWith?: TestApp;
  /** Overrides of the app's config (an instance id, the lease settings, METRICS_TOKEN, OpenTelemetry). */
  config?: Partial<Config>;
  /** TON_NETWORK=testnet against a toncenter-v2 fake (test/helpers/fakeToncenter.ts). */
  live?: {
    apiUrl: string;
    mnemonic: string[];
    feeAddress: string;
    nowSeconds: () => number;
    walletTimeoutSec?: number;
  };
}

/** The run's migrated database (test/helpers/dbTemplateSetup.ts), if there is one. */
function dbTemplate(): DbTemplate | null {
  try {
    return inject('dbTemplate') ?? null;
  } catch {
    return null;
  }
}

export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const previous = options.reopen;
  const shared = options.sharedWith;
  // SQLite: the shared database is the file in the other instance's data directory.
  const dataDir =
    previous?.config.dataDir ??
    (shared && !shared.pgSchema
      ? shared.config.dataDir
      : mkdtempSync(path.join(os.tmpdir(), 'handoff-test-')));
  if (!previous && !shared)
    cpSync(await chainTemplateDir(), path.join(dataDir, 'chain'), { recursive: true });
  const pgSchema = previous
    ? previous.pgSchema
    : shared
      ? shared.pgSchema
      : TEST_DATABASE_URL
        ? `t_${randomBytes(6).toString('hex')}`
        : undefined;
  if (!previous && !shared) {
    const template = dbTemplate();
    if (template) await copyDbTemplate(template, { dataDir, databaseUrl: TEST_DATABASE_URL, pgSchema });
    else if (TEST_DATABASE_URL && pgSchema) await adminQuery(`create schema ${pgSchema}`);
  }
  const config: Config = previous
    ? previous.config
    : {
        port: 0,
        host: '127.0.0.1',
        dataDir,
        databaseUrl: TEST_DATABASE_URL,
        redisUrl: options.redis?.url ?? null,
        redisPrefix: options.redis?.prefix ?? 'handoff:',
        publicUrl: 'http://localhost:3000',
        adminToken: randomBytes(16).toString('hex'),
        secretKey: randomBytes(32),
        telegramBotToken: `100000:${randomBytes(16).toString('hex')}`,
        telegramBotEnabled: options.telegram !== undefined,
        telegramApiRoot: options.telegram?.apiRoot ?? 'https://api.telegram.org',
        telegramWebhookSecret: randomBytes(16).toString('hex'),
        miniAppUrl: 'http://localhost:3000/app',
        rateLimitStandard: 100,
        rateLimitChat: 30,
        rateLimitUpload: 10,
        apiKeyCacheTtlMs: 10_000,
        tonNetwork: options.live ? 'testnet' : 'sandbox',
        ...(options.live
          ? {
              tonLive: {
                apiUrl: options.live.apiUrl,
                apiKey: undefined,
                walletMnemonic: options.live.mnemonic,
                feeAddress: options.live.feeAddress,
                requestsPerSecond: 1000,
                pollMs: 50,
                walletTimeoutSec: options.live.walletTimeoutSec ?? 60,
              },
            }
          : {}),
        production: false,
        webhookAllowPrivate: true,
        webhookTimeoutMs: options.webhookTimeoutMs ?? 2_000,
        sseMaxStreamsPerKey: 10,
        tonProofDomains: ['handoff.test'],
        shutdownDelayMs: 0,
        authFailureLimit: 30,
        trustProxy: options.trustProxy ?? false,
        httpLimits: { ...DEFAULT_HTTP_LIMITS, ...options.httpLimits },
        instanceId: `test-${randomBytes(3).toString('hex')}`,
        leaseTtlMs: 15_000,
        leaseSkewMs: 5_000,
        ...(options.s3 ? { s3: options.s3 } : {}),
        ...options.config,
      };
  const clock = new ManualClock(options.start ?? previous?.clock.now() ?? START);
  const live = options.live;
  const chainOverrides = live
    ? { nowSeconds: live.nowSeconds, resendMs: 0, createdAtLagSec: 1, requestTimeoutMs: 3_000 }
    : undefined;
  const opened = await openServices(config, {
    clock,
    pgSchema,
    pgPoolSize: options.pgPoolSize,
    chainOverrides,
  });
  const services = { ...opened, chain: options.wrapChain ? options.wrapChain(opened.chain) : opened.chain };
  const app = await buildApp({
    config,
    ...services,
    clock,
    logger: options.logger,
    jobs: options.jobs,
    ...(options.wallets ? { wallets: options.wallets } : {}),
    ...(options.spanExporter ? { spanExporter: options.spanExporter } : {}),
  });
  const ctx: DomainContext = app.ctx;
  return {
    app,
    clock,
    config,
    services,
    ctx,
    pgSchema,
    admin: { authorization: `Bearer ${config.adminToken}` },
    async close(closeOptions: { keepData?: boolean } = {}) {
      await app.close();
      await closeServices(opened);
      if (closeOptions.keepData) return;
      if (shared) {
        if (dataDir !== shared.config.dataDir) rmSync(dataDir, { recursive: true, force: true });
        return;
      }
      if (pgSchema) await adminQuery(`drop schema ${pgSchema} cascade`);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Runs one statement as the PostgreSQL admin (schemas of their own for tests). */
export async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL! });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** `Authorization: tma ...` for a Telegram user, signed with the app's bot token at the app's time. */
export function workerAuth(
  t: TestApp,
  telegramId: number,
  firstName = `Worker${telegramId}`,
  username?: string,
  languageCode?: string,
) {
  const initData = signInitData(
    { id: telegramId, first_name: firstName, username, language_code: languageCode },
    t.config.telegramBotToken,
    t.clock.now(),
  );
  return { authorization: `tma ${initData}` };
}

/** Another instance of `t`'s service: the same database, chain and settings, its own process state. */
export interface PeerApp {
  app: FastifyInstance;
  clock: ManualClock;
  redis: RedisLink | null;
  close(): Promise<void>;
}

/**
 * A second (third...) instance beside `t`, as behind a load balancer: it shares `t`'s database,
 * chain and secrets, and has its own fan-out, limits, stream counts and (with Redis) its own
 * Redis connections; `clock` lets its clock differ from `t`'s, as hosts' clocks do.
 */
export async function createPeerApp(
  t: TestApp,
  options: { clock?: ManualClock; redisUrl?: string; logger?: AppDeps['logger'] } = {},
): Promise<PeerApp> {
  const clock = options.clock ?? t.clock;
  let redis: RedisLink | null = null;
  const redisUrl = options.redisUrl ?? t.config.redisUrl;
  if (redisUrl) {
    redis = new RedisLink(redisUrl, t.config.redisPrefix);
    await redis.connect();
  }
  const app = await buildApp({
    config: t.config,
    db: t.services.db,
    chain: t.services.chain,
    clock,
    redis,
    logger: options.logger,
  });
  return {
    app,
    clock,
    redis,
    async close() {
      await app.close();
      redis?.close();
    },
  };
}
