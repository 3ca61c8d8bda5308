import path from 'node:path';
import type { ChainGateway } from './chain/gateway.js';
import type { NetworkGatewayOptions } from './chain/networkGateway.js';
import type { Config } from './config.js';
import { acquireDataDirLock, type DataDirLock } from './dataDirLock.js';
import { type Db, openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { thisProcess } from './domain/chain/lease.js';
import { type Clock, systemClock } from './domain/clock.js';
import type { RedisLink } from './redis/link.js';
import { GuardedSandbox, holdSandbox, type SandboxGuard } from './sandboxGuard.js';
import { type FileStorage, LocalDiskStorage } from './storage/fileStorage.js';

export interface Services {
  db: Db;
  chain: ChainGateway;
  storage: FileStorage;
  /** Connected when REDIS_URL is set: what several instances share (src/redis). */
  redis: RedisLink | null;
  /** The sandbox's hold on its database and DATA_DIR (sandbox only): see sandboxGuard.ts. */
  sandboxGuard?: SandboxGuard;
}

/** Opens the database (migrated to the latest schema) and the chain the config selects. */
export async function openServices(
  config: Config,
  options: {
    clock?: Clock;
    pgSchema?: string;
    pgPoolSize?: number;
    log?: (msg: string) => void;
    /** Called with `database` once migrated and `chain` once the chain is open (start-up timing). */
    onSpan?: (name: 'database' | 'chain') => void;
    /** Tests: the chain's clock and faster resends for network mode. */
    chainOverrides?: Partial<
      Pick<NetworkGatewayOptions, 'nowSeconds' | 'resendMs' | 'createdAtLagSec' | 'requestTimeoutMs'>
    >;
  } = {},
): Promise<Services> {
  const sandbox = config.tonNetwork === 'sandbox' || !config.tonLive;
  const me = thisProcess(config.instanceId);
  const leaseSettings = { ttlMs: config.leaseTtlMs, skewMs: config.leaseSkewMs };
  // The sandbox's DATA_DIR is one process's: refused before anything is opened.
  const lock: DataDirLock | null = sandbox
    ? await acquireDataDirLock(config.dataDir, me, options.clock ?? systemClock, leaseSettings)
    : null;
  let guard: SandboxGuard | undefined;
  let db: Db;
  try {
    db = openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      pgSchema: options.pgSchema,
      pgPoolSize: options.pgPoolSize,
    });
  } catch (error) {
    await lock?.release();
    throw error;
  }
  let redis: RedisLink | null = null;
  try {
    // Before anything heavy: Redis down at start is a clear error, not a half-shared instance.
    if (config.redisUrl) {
      // Loaded only when configured: ioredis costs a start without Redis a few hundred ms of CPU.
      const { RedisLink } = await import('./redis/link.js');
      redis = new RedisLink(config.redisUrl, config.redisPrefix);
      await redis.connect();
    }
    await migrateToLatest(db.db);
    options.onSpan?.('database');
    const clock = options.clock;
    // Before the chain opens: a second sandbox instance on this database must not load a chain.
    if (lock) {
      guard = await holdSandbox({
        db: db.db,
        lock,
        clock: clock ?? systemClock,
        me,
        settings: leaseSettings,
      });
    }
    const live = config.tonLive;
    // Each gateway's module is loaded only when it is the one configured: the sandbox's emulator
    // (@ton/sandbox, a WebAssembly TON VM) is the heaviest import of the app and testnet or
    // mainnet never needs it.
    const chain =
      config.tonNetwork !== 'sandbox' && live
        ? await (await import('./chain/networkGateway.js')).createNetworkGateway({
            network: config.tonNetwork,
            apiUrl: live.apiUrl,
            apiKey: live.apiKey,
            mnemonic: live.walletMnemonic,
            feeAddress: live.feeAddress,
            // The USDT master the gateway opens as its jetton; none: USDT is off (usdtOnChain).
            ...(config.usdt?.master ? { usdtMaster: config.usdt.master } : {}),
            requestsPerSecond: live.requestsPerSecond,
            walletTimeoutSec: live.walletTimeoutSec,
            pollMs: live.pollMs,
            log: options.log,
            ...options.chainOverrides,
          })
        : await (await import('./chain/sandboxGateway.js')).createSandboxGateway({
            stateDir: path.join(config.dataDir, 'chain'),
            log: options.log,
            ...(clock ? { nowSeconds: () => Math.floor(clock.now().getTime() / 1000) } : {}),
          });
    options.onSpan?.('chain');
    const storage = await openStorage(config).catch(async (error: unknown) => {
      await chain.close();
      throw error;
    });
    if (!guard) return { db, chain, storage, redis };
    return { db, chain: new GuardedSandbox(chain, guard), sandboxGuard: guard, storage, redis };
  } catch (error) {
    redis?.close();
    await guard?.stop();
    await lock?.release();
    await db.close();
    throw error;
  }
}

/**
 * Local disk, or the S3 bucket once it answers (a wrong name or key fails the start, not the first
 * upload). The AWS SDK is loaded only when S3_BUCKET is set.
 */
async function openStorage(config: Config): Promise<FileStorage> {
  if (!config.s3) return new LocalDiskStorage(path.join(config.dataDir, 'uploads'));
  const { S3Storage } = await import('./storage/s3Storage.js');
  const storage = new S3Storage(config.s3);
  try {
    await storage.check();
  } catch (error) {
    storage.close();
    throw error;
  }
  return storage;
}

export async function closeServices(services: Services): Promise<void> {
  services.storage.close?.();
  await services.chain.close();
  services.redis?.close();
  // After the chain saved its state: the next instance on this DATA_DIR loads the final one.
  await services.sandboxGuard?.stop();
  await services.db.close();
}
