import { createHash, createHmac, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Address } from '@ton/core';
import type { TonNetwork } from './chain/gateway.js';
import { DEFAULT_RULES_FILE, type ScreeningSettings } from './domain/trust/screening.js';
import type { WebhookSettings } from './events/dispatcher.js';
import { OFFICIAL_WALLETS_URL } from './tonconnect/walletsRefresh.js';
import { type UsdtConfig, usdtSettings } from './usdtConfig.js';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** A postgres:// URL selects PostgreSQL; null means the embedded SQLite file in dataDir. */
  databaseUrl: string | null;
  /**
   * A redis:// (or rediss://) URL: limits, stream caps and chat fan-out are shared by every
   * instance through it. null: they stay inside this process (one instance).
   */
  redisUrl: string | null;
  /** Prepended to every Redis key and channel, so several deployments can share one Redis. */
  redisPrefix: string;
  publicUrl: string;
  adminToken: string;
  /** Encrypts stored API keys (AES-256-GCM); 32 bytes. */
  secretKey: Buffer;
  /** Validates Telegram Mini App init data; with a real token the bot also sends notifications. */
  telegramBotToken: string;
  /** False when TELEGRAM_BOT_TOKEN was generated: there is no bot, notifications are only recorded. */
  telegramBotEnabled: boolean;
  /** The Bot API server (a local fake in tests, or a self-hosted Bot API server). */
  telegramApiRoot: string;
  /** Telegram sends it in X-Telegram-Bot-Api-Secret-Token with every webhook update. */
  telegramWebhookSecret: string;
  /** What the bot's "Open" buttons open. */
  miniAppUrl: string;
  rateLimitStandard: number;
  rateLimitChat: number;
  rateLimitUpload: number;
  tonNetwork: TonNetwork;
  /** Present exactly when tonNetwork is testnet or mainnet. */
  tonLive?: TonLiveConfig;
  /**
   * The USDT master the network gateway opens and the USDT limits (usdtConfig.ts); absent: the
   * default limits, and no master for the networks. Whether USDT is on follows the chain gateway.
   */
  usdt?: UsdtConfig;
  production: boolean;
  /** Webhooks may target loopback/private addresses (development); refused otherwise (SSRF). */
  webhookAllowPrivate: boolean;
  /** How long a webhook receiver has to answer. */
  webhookTimeoutMs: number;
  /** Failed authentications from one client address within 15 minutes before it gets 429. */
  authFailureLimit: number;
  /**
   * Fastify's `trustProxy`: which peers may say, in X-Forwarded-For, whom they forward for, and so
   * set the client address the auth throttle and the console sign-in limit count by. false: none.
   */
  trustProxy: boolean | string[];
  /** How long an authenticated API key is trusted without asking the database (0: always ask). */
  apiKeyCacheTtlMs: number;
  /** Open chat streams allowed per API key (or worker). */
  sseMaxStreamsPerKey: number;
  /** Domains (host[:port]) a worker's TON Connect wallet proof may be signed for. */
  tonProofDomains: string[];
  /**
   * Where the background job refreshes the TON Connect wallets list the web apps are served
   * (src/tonconnect/walletsRefresh.ts); absent: never, the shipped snapshot is served.
   */
  tonConnectWalletsUrl?: string;
  /** After SIGTERM, how long requests are still served (GET /ready says 503) before the close. */
  shutdownDelayMs: number;
  /** Deadlines and connection caps of the HTTP server (docs/decisions/request-bodies-deadlines-connections.md). */
  httpLimits: HttpLimits;
  /** Names this instance in logs, traces and on GET /admin/chain: INSTANCE_ID, or hostname:pid. */
  instanceId: string;
  /** METRICS_TOKEN: a Bearer token that may read GET /metrics (the admin token always may). */
  metricsToken?: string;
  /** OTEL_EXPORTER_OTLP_ENDPOINT and OTEL_SERVICE_NAME: traces go there over OTLP/HTTP; absent, none. */
  otel?: { endpoint: string; serviceName: string };
  /**
   * Leases of work one instance does at a time (the chain sender and follower, the sandbox): how
   * long one lasts without renewal, and the margin left for clocks that differ between hosts.
   */
  leaseTtlMs: number;
  leaseSkewMs: number;
  /** Uploads in an S3-compatible bucket (S3_BUCKET); absent: on local disk in DATA_DIR/uploads. */
  s3?: S3Settings;
  /** Screening at task creation (docs/decisions/screening.md); absent: the shipped rules, defaults. */
  screening?: ScreeningSettings;
  /** APPROVAL_TTL_HOURS: how long a task waits for its owner's approval (docs/decisions/approvals.md); absent: 24. */
  approvalTtlHours?: number;
}

/** S3_BUCKET and its companions (docs/configuration.md). */
export interface S3Settings {
  bucket: string;
  /** MinIO, R2 or any S3-compatible store; absent: AWS S3 in `region`. */
  endpoint?: string;
  region: string;
  /** Bucket in the path (http://host/bucket/key) rather than the host name: most self-hosted stores. */
  forcePathStyle: boolean;
  /** Tests only; otherwise the AWS SDK's default chain (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY...). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

export interface HttpLimits {
  /** From a connection's request start to the end of its headers (Node's headersTimeout). */
  headersTimeoutMs: number;
  /** From a request's headers to the end of its body, on every route but the upload routes. */
  bodyTimeoutMs: number;
  /** The same for a file's bytes (PUT /uploads/:id, multipart uploads): 20 MiB on a slow link. */
  uploadTimeoutMs: number;
  /** Open connections (requests, through a trusted proxy) per client address or IPv6 /64. */
  maxConnectionsPerClient: number;
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  headersTimeoutMs: 30_000,
  bodyTimeoutMs: 30_000,
  uploadTimeoutMs: 600_000,
  maxConnectionsPerClient: 256,
};

/** Settings of network mode (TON_NETWORK=testnet|mainnet). */
export interface TonLiveConfig {
  /** toncenter HTTP API v2 base (any v2-compatible provider). */
  apiUrl: string;
  apiKey: string | undefined;
  /** The hot wallet's 24 words; validated again (checksum) when the chain opens. */
  walletMnemonic: string[];
  feeAddress: string;
  /** The shared request budget for every provider call. */
  requestsPerSecond: number;
  /** How often the sender and the follower poll the provider. */
  pollMs: number;
  /** Highload Wallet v3 timeout (seconds); part of the wallet's address, so never change it for a live wallet. */
  walletTimeoutSec: number;
}

/** What start-up tells the operator about secrets it generated, so nothing happens silently. */
export interface ConfigNotice {
  message: string;
}

type Env = Record<string, string | undefined>;

/**
 * Reads configuration from the environment. Secrets the embedded default needs but the
 * environment does not give are generated once into DATA_DIR/secrets and reused on later starts;
 * in production (NODE_ENV=production) they must be given, because generated secrets would differ
 * between instances.
 */
export function loadConfig(env: Env = process.env): { config: Config; notices: ConfigNotice[] } {
  const notices: ConfigNotice[] = [];
  const production = env.NODE_ENV === 'production';
  const dataDir = path.resolve(env.DATA_DIR || './data');
  mkdirSync(dataDir, { recursive: true });
  const port = intSetting(env, 'PORT', 3000, 0, 65535);
  const databaseUrl = parseDatabaseUrl(env.DATABASE_URL);
  const secret = (name: string, bytes: number) => {
    const given = env[name];
    if (given) return given;
    if (production) throw new Error(`${name} must be set when NODE_ENV=production`);
    const { value, created } = generatedSecret(dataDir, name, bytes);
    notices.push({
      message: created
        ? `${name} was not set: generated one in ${secretsDir(dataDir)}/${name}`
        : `${name} was not set: using the generated one in ${secretsDir(dataDir)}/${name}`,
    });
    return value;
  };
  const config: Config = {
    port,
    // Loopback unless HOST says otherwise, in every environment: the admin API listens on the
    // same port, and a laptop on a café network should not serve it to its neighbours.
    host: env.HOST || '127.0.0.1',
    dataDir,
    databaseUrl,
    redisUrl: parseRedisUrl(env.REDIS_URL),
    redisPrefix: parseRedisPrefix(env.REDIS_PREFIX),
    publicUrl: (env.PUBLIC_URL || `http://localhost:${port}`).replace(/\/+$/, ''),
    adminToken: adminToken(secret('ADMIN_TOKEN', 32)),
    secretKey: parseSecretKey(secret('SECRET_KEY', 32)),
    telegramBotToken: secret('TELEGRAM_BOT_TOKEN', 32),
    telegramBotEnabled: Boolean(env.TELEGRAM_BOT_TOKEN),
    telegramApiRoot: urlSetting(env, 'TELEGRAM_API_ROOT', 'https://api.telegram.org'),
    telegramWebhookSecret: '',
    miniAppUrl: '',
    rateLimitStandard: intSetting(env, 'RATE_LIMIT_STANDARD', 100, 1, RATE_LIMIT_MAX),
    rateLimitChat: intSetting(env, 'RATE_LIMIT_CHAT', 30, 1, RATE_LIMIT_MAX),
    rateLimitUpload: intSetting(env, 'RATE_LIMIT_UPLOAD', 10, 1, RATE_LIMIT_MAX),
    tonNetwork: parseNetwork(env.TON_NETWORK),
    production,
    // Private targets only where nothing is real: the sandbox outside production. On testnet and
    // mainnet a webhook URL must not reach the operator's own network unless they say so.
    webhookAllowPrivate: boolSetting(
      env,
      'WEBHOOK_ALLOW_PRIVATE',
      !production && parseNetwork(env.TON_NETWORK) === 'sandbox',
    ),
    webhookTimeoutMs: intSetting(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000),
    authFailureLimit: intSetting(env, 'AUTH_FAILURE_LIMIT', 30, 1, 1_000_000),
    trustProxy: parseTrustProxy(env.TRUST_PROXY, notices),
    apiKeyCacheTtlMs: intSetting(env, 'API_KEY_CACHE_TTL_MS', 10_000, 0, 60_000),
    sseMaxStreamsPerKey: intSetting(env, 'SSE_MAX_STREAMS_PER_KEY', 10, 1, 100_000),
    tonProofDomains: [],
    ...walletsUrlSetting(env),
    shutdownDelayMs: intSetting(env, 'SHUTDOWN_DELAY_MS', 0, 0, 60_000),
    httpLimits: httpLimits(env),
    instanceId: instanceIdSetting(env),
    ...leaseSettings(env),
    ...observabilitySettings(env),
    screening: screeningSettings(env),
    approvalTtlHours: intSetting(env, 'APPROVAL_TTL_HOURS', 24, 1, 720),
  };
  if (config.tonNetwork !== 'sandbox') config.tonLive = tonLiveSettings(env, config.tonNetwork);
  config.usdt = usdtSettings(env, config.tonNetwork);
  const s3 = s3Settings(env);
  if (s3) config.s3 = s3;
  else if (databaseUrl) {
    notices.push({
      message: `Uploads are stored on this instance's disk (${path.join(dataDir, 'uploads')}): several instances need S3_BUCKET (an S3-compatible bucket they share)`,
    });
  }
  config.tonProofDomains = parseDomains(env.TON_PROOF_DOMAINS, config.publicUrl);
  config.telegramWebhookSecret = webhookSecret(env, config.telegramBotToken);
  config.miniAppUrl = urlSetting(env, 'MINI_APP_URL', `${config.publicUrl}/app`);
  if (config.databaseUrl && !config.redisUrl) notices.push({ message: SINGLE_INSTANCE_NOTICE });
  return { config, notices };
}

/**
 * TELEGRAM_WEBHOOK_SECRET, or one derived from the bot token: every instance with the same token
 * gets the same value without another secret to generate and share, and it cannot be guessed
 * without the token. Telegram allows 1-256 characters of A-Z, a-z, 0-9, _ and -.
 */
function webhookSecret(env: Env, botToken: string): string {
  const given = env.TELEGRAM_WEBHOOK_SECRET;
  if (!given) return createHmac('sha256', botToken).update('handoff telegram webhook').digest('hex');
  if (!/^[A-Za-z0-9_-]{1,256}$/.test(given)) {
    throw new Error('TELEGRAM_WEBHOOK_SECRET must be 1-256 characters of A-Z, a-z, 0-9, _ and -');
  }
  return given;
}

/** METRICS_TOKEN and OpenTelemetry's variables; each absent unless set. */
function observabilitySettings(env: Env): Pick<Config, 'metricsToken' | 'otel'> {
  const settings: Pick<Config, 'metricsToken' | 'otel'> = {};
  const token = env.METRICS_TOKEN;
  if (token) {
    if (token.length < MIN_ADMIN_TOKEN_LENGTH || /\s/.test(token)) {
      throw new Error(
        `METRICS_TOKEN must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters without spaces (e.g. openssl rand -hex 32)`,
      );
    }
    settings.metricsToken = token;
  }
  if (env.OTEL_EXPORTER_OTLP_ENDPOINT) {
    settings.otel = {
      endpoint: urlSetting(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', ''),
      serviceName: env.OTEL_SERVICE_NAME || 'handoff',
    };
  }
  return settings;
}

/** INSTANCE_ID: printable, no spaces, at most 200 characters; hostname:pid by default. */
function instanceIdSetting(env: Env): string {
  const given = env.INSTANCE_ID;
  if (given === undefined || given === '') return `${os.hostname()}:${process.pid}`;
  if (!/^[\x21-\x7e]{1,200}$/.test(given)) {
    throw new Error('INSTANCE_ID must be 1-200 printable ASCII characters without spaces, e.g. web-1');
  }
  return given;
}

/**
 * LEASE_TTL_MS and LEASE_SKEW_MS. A holder renews every third of the TTL and counts itself the
 * holder until TTL - skew after a renewal, so the skew must leave it at least one renewal's time:
 * at most a third of the TTL. A dead holder is replaced within TTL + skew + TTL/3 (25 s by default).
 */
/** SCREENING_* (README, "Configuration"): the rules file and the freeze threshold. */
function screeningSettings(env: Env): ScreeningSettings {
  return {
    rulesFile: env.SCREENING_RULES_FILE ? path.resolve(env.SCREENING_RULES_FILE) : DEFAULT_RULES_FILE,
    freezeAfter: intSetting(env, 'SCREENING_FREEZE_AFTER', 5, 1, 10_000),
    reportsToHold: intSetting(env, 'REPORTS_TO_HOLD', 3, 1, 1000),
  };
}

function leaseSettings(env: Env): { leaseTtlMs: number; leaseSkewMs: number } {
  const leaseTtlMs = intSetting(env, 'LEASE_TTL_MS', 15_000, 1_000, 120_000);
  const leaseSkewMs = intSetting(env, 'LEASE_SKEW_MS', 5_000, 0, 40_000);
  if (leaseSkewMs * 3 > leaseTtlMs) {
    throw new Error(
      `LEASE_SKEW_MS (${leaseSkewMs}) must be at most a third of LEASE_TTL_MS (${leaseTtlMs}): a holder must be able to renew before it stops counting itself the holder`,
    );
  }
  return { leaseTtlMs, leaseSkewMs };
}

function httpLimits(env: Env): HttpLimits {
  const d = DEFAULT_HTTP_LIMITS;
  return {
    headersTimeoutMs: intSetting(env, 'HTTP_HEADERS_TIMEOUT_MS', d.headersTimeoutMs, 100, 600_000),
    bodyTimeoutMs: intSetting(env, 'HTTP_BODY_TIMEOUT_MS', d.bodyTimeoutMs, 100, 600_000),
    uploadTimeoutMs: intSetting(env, 'HTTP_UPLOAD_TIMEOUT_MS', d.uploadTimeoutMs, 100, 3_600_000),
    maxConnectionsPerClient: intSetting(
      env,
      'HTTP_MAX_CONNECTIONS_PER_CLIENT',
      d.maxConnectionsPerClient,
      1,
      1_000_000,
    ),
  };
}

/** Shorter operator tokens can be guessed (failed attempts are throttled, not stopped). */
export const MIN_ADMIN_TOKEN_LENGTH = 32;

/**
 * The highest per-minute limit a RATE_LIMIT_* setting takes: far above what one instance serves
 * in a minute (the benchmark drives one key at about 40,000 requests a second, 2.4 million a
 * minute), so "effectively unlimited" is a value the setting accepts.
 */
export const RATE_LIMIT_MAX = 1_000_000_000;

function adminToken(value: string): string {
  if (value.length < MIN_ADMIN_TOKEN_LENGTH) {
    throw new Error(
      `ADMIN_TOKEN must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters (e.g. openssl rand -hex 32)`,
    );
  }
  return value;
}

/** TONCONNECT_WALLETS_URL: the official list by default, `off` for none (an https URL otherwise). */
function walletsUrlSetting(env: Env): { tonConnectWalletsUrl?: string } {
  const raw = env.TONCONNECT_WALLETS_URL;
  if (raw === 'off') return {};
  const value = raw || OFFICIAL_WALLETS_URL;
  if (!/^https:\/\/[^/]/.test(value)) {
    throw new Error(`TONCONNECT_WALLETS_URL must be an https URL or off, got "${value}"`);
  }
  return { tonConnectWalletsUrl: value };
}

function urlSetting(env: Env, name: string, fallback: string): string {
  const value = (env[name] || fallback).replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]/.test(value)) throw new Error(`${name} must be an http(s) URL, got "${value}"`);
  return value;
}

function s3Settings(env: Env): S3Settings | undefined {
  const bucket = env.S3_BUCKET;
  if (!bucket) {
    for (const name of ['S3_ENDPOINT', 'S3_REGION', 'S3_FORCE_PATH_STYLE']) {
      if (env[name])
        throw new Error(`${name} is set but S3_BUCKET is not: set S3_BUCKET to store uploads in S3`);
    }
    return undefined;
  }
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    throw new Error(`S3_BUCKET must be a bucket name (3-63 of a-z, 0-9, dots and hyphens), got "${bucket}"`);
  }
  const endpoint = env.S3_ENDPOINT ? urlSetting(env, 'S3_ENDPOINT', '') : undefined;
  const region = env.S3_REGION || env.AWS_REGION || 'us-east-1';
  if (!/^[a-z0-9-]{1,50}$/.test(region))
    throw new Error(`S3_REGION must be a region name such as us-east-1, got "${region}"`);
  // Self-hosted stores (MinIO and the like) rarely have a DNS name per bucket.
  const forcePathStyle = boolSetting(env, 'S3_FORCE_PATH_STYLE', endpoint !== undefined);
  return { bucket, ...(endpoint ? { endpoint } : {}), region, forcePathStyle };
}

function intSetting(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function boolSetting(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new Error(`${name} must be true or false, got "${raw}"`);
}

export function webhookSettings(config: Config): WebhookSettings {
  return { allowPrivateTargets: config.webhookAllowPrivate, timeoutMs: config.webhookTimeoutMs };
}

/** The one line a PostgreSQL start without REDIS_URL logs: right for one instance, not for several. */
export const SINGLE_INSTANCE_NOTICE =
  'REDIS_URL is not set: rate limits, the failed-authentication throttle, the stream cap and live chat stay inside this process, which is right for one instance; several instances on this database need REDIS_URL';

function parseRedisUrl(raw: string | undefined): string | null {
  if (!raw) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    url = new URL('invalid:');
  }
  if ((url.protocol !== 'redis:' && url.protocol !== 'rediss:') || !url.hostname) {
    throw new Error(
      'REDIS_URL must be a redis:// or rediss:// URL such as redis://127.0.0.1:6379/0; leave it unset for one instance',
    );
  }
  return raw;
}

/** REDIS_PREFIX: 1-64 visible ASCII characters, `handoff:` by default. */
function parseRedisPrefix(raw: string | undefined): string {
  if (raw === undefined || raw === '') return 'handoff:';
  if (!/^[\x21-\x7e]{1,64}$/.test(raw)) {
    throw new Error(`REDIS_PREFIX must be 1-64 visible ASCII characters (no spaces), got "${raw}"`);
  }
  return raw;
}

function parseDatabaseUrl(raw: string | undefined): string | null {
  if (!raw) return null;
  if (!/^postgres(ql)?:\/\//.test(raw)) {
    throw new Error('DATABASE_URL must be a postgres:// URL; leave it unset for the embedded SQLite file');
  }
  return raw;
}

/** TON_PROOF_DOMAINS is a comma-separated list of hosts; by default the host of PUBLIC_URL. */
function parseDomains(raw: string | undefined, publicUrl: string): string[] {
  if (!raw || raw.trim() === '') return [new URL(publicUrl).host];
  const domains = raw.split(',').map((d) => d.trim().toLowerCase());
  for (const domain of domains) {
    if (!/^[a-z0-9.-]+(:\d{1,5})?$/.test(domain)) {
      throw new Error(
        `TON_PROOF_DOMAINS must be comma-separated hosts such as app.example.com, got "${domain}"`,
      );
    }
  }
  return domains;
}

/** Besides addresses and CIDRs, Fastify's proxy-addr knows these named ranges. */
const NAMED_PROXY_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * TRUST_PROXY: unset or false, true, or comma-separated addresses, CIDRs and named ranges. A hop
 * count is refused: Fastify (5.12) ignores one (it cannot tell the proxy from a client that sends the
 * header itself), so accepting it would silently leave every client at the proxy's address.
 */
function parseTrustProxy(raw: string | undefined, notices: ConfigNotice[]): boolean | string[] {
  const value = raw?.trim() ?? '';
  if (value === '' || value === 'false') return false;
  if (value === 'true') {
    notices.push({
      message:
        'TRUST_PROXY=true trusts every X-Forwarded-For entry: unless the proxy replaces the header, a ' +
        'client picks its own address and escapes the failed-authentication throttle; prefer the proxy’s addresses',
    });
    return true;
  }
  if (/^\d+$/.test(value)) {
    throw new Error(
      'TRUST_PROXY does not take a hop count (Fastify ignores one); give the proxy’s addresses or CIDRs, e.g. TRUST_PROXY=10.0.0.0/8',
    );
  }
  const entries = value.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    if (!isProxyAddress(entry)) {
      throw new Error(
        `TRUST_PROXY must be true, false, or comma-separated addresses or CIDRs (or loopback, linklocal, uniquelocal), got "${entry}"`,
      );
    }
  }
  return entries;
}

function isProxyAddress(entry: string): boolean {
  if (NAMED_PROXY_RANGES.has(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
}

function parseNetwork(raw: string | undefined): TonNetwork {
  const value = raw || 'sandbox';
  if (value === 'sandbox' || value === 'testnet' || value === 'mainnet') return value;
  throw new Error(`TON_NETWORK must be sandbox, testnet or mainnet, got "${value}"`);
}

const DEFAULT_API_URL = {
  testnet: 'https://testnet.toncenter.com/api/v2',
  mainnet: 'https://toncenter.com/api/v2',
} as const;

/** Network-mode settings; each missing or invalid one stops start-up with how to fix it. */
function tonLiveSettings(env: Env, network: 'testnet' | 'mainnet'): TonLiveConfig {
  const apiUrl = urlSetting(env, 'TON_API_URL', DEFAULT_API_URL[network]).replace(/\/jsonRPC$/, '');
  const apiKey = env.TON_API_KEY || undefined;
  const words = (env.TON_WALLET_MNEMONIC ?? '').trim().split(/\s+/).filter(Boolean);
  if (words.length !== 24 || !words.every((w) => /^[a-z]+$/.test(w))) {
    throw new Error(
      `TON_WALLET_MNEMONIC must be the 24 lowercase words of the hot wallet separated by spaces (got ${words.length} words) when TON_NETWORK=${network}; see docs/going-live.md`,
    );
  }
  const feeAddress = env.TON_FEE_ADDRESS?.trim() ?? '';
  if (!feeAddress) {
    throw new Error(
      `TON_FEE_ADDRESS must be set when TON_NETWORK=${network}: the wallet address that receives the platform's fees`,
    );
  }
  try {
    Address.parse(feeAddress);
  } catch {
    throw new Error(`TON_FEE_ADDRESS is not a valid TON address: "${feeAddress}"`);
  }
  return {
    apiUrl,
    apiKey,
    walletMnemonic: words,
    feeAddress,
    // toncenter allows about 1 request/s without a key and 10 with a free key.
    requestsPerSecond: intSetting(env, 'TON_API_RPS', apiKey ? 8 : 1, 1, 1000),
    pollMs: intSetting(env, 'TON_POLL_MS', 3_000, 10, 600_000),
    walletTimeoutSec: intSetting(env, 'TON_WALLET_TIMEOUT_SEC', 3_600, 10, 86_400),
  };
}

/** SECRET_KEY is 64 hex characters, or any string of 32+ characters (then hashed to 32 bytes). */
function parseSecretKey(value: string): Buffer {
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, 'hex');
  if (value.length < 32) throw new Error('SECRET_KEY must be 64 hex characters (32 random bytes)');
  return createHash('sha256').update(value).digest();
}

function secretsDir(dataDir: string): string {
  return path.join(dataDir, 'secrets');
}

function generatedSecret(dataDir: string, name: string, bytes: number): { value: string; created: boolean } {
  const dir = secretsDir(dataDir);
  const file = path.join(dir, name);
  if (existsSync(file)) return { value: readFileSync(file, 'utf8').trim(), created: false };
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // A bot-token-shaped value keeps the Telegram validation code path identical in development.
  const random = randomBytes(bytes).toString('hex');
  const value = name === 'TELEGRAM_BOT_TOKEN' ? `100000:${random}` : random;
  writeFileSync(file, `${value}\n`, { mode: 0o600, flag: 'wx' });
  return { value, created: true };
}
