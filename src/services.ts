import path from 'node:path';
import type { ChainGateway } from './chain/gateway.js';
import type { NetworkGatewayOptions } from './chain/networkGateway.js';
import type { Config } from './config.js';
import { acquireDataDirLock, type DataDirLock } from './dataDirLock.js';
import { type Db, openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { type Clock, systemClock } from './domain/clock.js';
import { thisProcess } from './domain/lease.js';
import { GuardedSandbox, holdSandbox, type SandboxGuard } from './sandboxGuard.js';

export interface Services {
  db: Db;
  chain: ChainGateway;
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
  try {
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
    if (!guard) return { db, chain };
    return { db, chain: new GuardedSandbox(chain, guard), sandboxGuard: guard };
  } catch (error) {
    await guard?.stop();
    await lock?.release();
    await db.close();
    throw error;
  }
}

export async function closeServices(services: Services): Promise<void> {
  await services.chain.close();
  // After the chain saved its state: the next instance on this DATA_DIR loads the final one.
  await services.sandboxGuard?.stop();
  await services.db.close();
}
