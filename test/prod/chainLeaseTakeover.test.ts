import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { keyPairFromSeed, mnemonicNew } from '@ton/crypto';
import { WalletContractV4 } from '@ton/ton';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeToncenter } from '../helpers/fakeToncenter.js';
import {
  eventually,
  type ServiceProcess,
  serviceDatabase,
  serviceEnv,
  startService,
} from '../helpers/serviceProcess.js';

/**
 * Network mode as real processes on one database, with the default lease settings: the chain
 * lease's holder is killed with SIGKILL (no release, no clean-up) and the other instance takes
 * the sender and follower over within 30 s.
 */
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function started(env: Record<string, string>): Promise<ServiceProcess> {
  const service = await startService(env);
  cleanups.push(async () => {
    if (service.child.exitCode === null && service.child.signalCode === null) service.child.kill('SIGKILL');
    await service.exited;
  });
  return service;
}

interface ChainStatus {
  instance: string;
  lease: { holder: string | null; heldByThisInstance: boolean; token: number } | null;
  providerRequests: number;
}

describe('network mode: the chain lease moves to another instance when its holder dies', () => {
  it('kill -9 of the holder: the other instance holds the lease and polls the provider within 30 s', async () => {
    const fake = await startFakeToncenter({ blockMs: 10 });
    cleanups.push(() => fake.close());
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'handoff-lease-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const database = await serviceDatabase('lease');
    cleanups.push(() => database.drop());
    const feeAddress = WalletContractV4.create({
      workchain: 0,
      publicKey: keyPairFromSeed(randomBytes(32)).publicKey,
    }).address;
    // One service, two instances: the same settings and secrets, each with its own id.
    const env = serviceEnv(dataDir, database, {
      TON_NETWORK: 'testnet',
      TON_API_URL: fake.url,
      TON_WALLET_MNEMONIC: (await mnemonicNew()).join(' '),
      TON_FEE_ADDRESS: feeAddress.toString(),
      TON_API_RPS: '50',
      TON_POLL_MS: '200',
    });
    const status = async (service: ServiceProcess): Promise<ChainStatus> =>
      (await fetch(`${service.url}/admin/chain`, {
        headers: { authorization: `Bearer ${env.ADMIN_TOKEN}` },
      }).then((r) => r.json())) as ChainStatus;

    const a = await started({ ...env, INSTANCE_ID: 'net-a' });
    await eventually(
      async () => (await status(a)).lease?.heldByThisInstance === true,
      'net-a holds the lease',
    );
    const b = await started({ ...env, INSTANCE_ID: 'net-b' });
    const seenByB = await status(b);
    expect(seenByB).toMatchObject({
      instance: 'net-b',
      lease: { holder: 'net-a', heldByThisInstance: false },
    });
    // b's own provider client is idle apart from the balance this status read asks for.
    const idle = (await status(b)).providerRequests;
    await new Promise((r) => setTimeout(r, 1_000));
    expect((await status(b)).providerRequests - idle).toBe(1);

    a.child.kill('SIGKILL');
    expect(await a.exited).toBe('SIGKILL');
    const killedAt = Date.now();
    await eventually(
      async () => (await status(b)).lease?.heldByThisInstance === true,
      'net-b takes over',
      350,
    );
    const tookMs = Date.now() - killedAt;
    expect(tookMs).toBeLessThan(30_000);
    expect((await status(b)).lease).toMatchObject({ holder: 'net-b', token: 2 });
    // b now runs the follower: its provider requests grow by more than its status reads.
    const before = (await status(b)).providerRequests;
    await new Promise((r) => setTimeout(r, 1_500));
    expect((await status(b)).providerRequests - before).toBeGreaterThan(2);
  }, 240_000);
});
