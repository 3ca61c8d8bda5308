import path from 'node:path';
import type { ChainGateway } from './chain/gateway.js';
import type { NetworkGatewayOptions } from './chain/networkGateway.js';
import type { Config } from './config.js';
import { type Db, openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import type { Clock } from './domain/clock.js';
import type { RedisLink } from './redis/link.js';

export interface Services {
  db: Db;
  chain: ChainGateway;
  /** Connected when REDIS_URL is set: what several instances share (src/redis). */
  redis: RedisLink | null;
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
  const db = openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    pgSchema: options.pgSchema,
    pgPoolSize: options.pgPoolSize,
  });
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
    return { db, chain, redis };
  } catch (error) {
    redis?.close();
    await db.close();
    throw error;
  }
}

export async function closeServices(services: Services): Promise<void> {
  await services.chain.close();
  services.redis?.close();
  await services.db.close();
}
