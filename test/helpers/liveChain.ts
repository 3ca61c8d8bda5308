import { randomBytes } from 'node:crypto';
import { type Address, toNano } from '@ton/core';
import { keyPairFromSeed, mnemonicNew } from '@ton/crypto';
import { WalletContractV4 } from '@ton/ton';
import { expect } from 'vitest';
import type { LiveChain } from '../../src/chain/liveChain.js';
import { followWallet } from '../../src/domain/chainFollower.js';
import { runChainSender } from '../../src/domain/chainSender.js';
import { createTestApp, type TestApp, type TestAppOptions } from './app.js';
import { type FakeToncenter, startFakeToncenter } from './fakeToncenter.js';
import { createWorker, type TestWorker } from './fixtures.js';
import { newTonWallet, signTonProof, unixSeconds } from './tonConnect.js';

/** One batch as stored (its status, query id, attempts), read by id. */
export function storedBatch(t: TestApp, id: string) {
  return t.ctx.db.selectFrom('chain_batches').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/** A test app on TON_NETWORK=testnet whose provider is a fresh fake toncenter over the sandbox. */
export interface LiveTestApp {
  t: TestApp;
  fake: FakeToncenter;
  live: LiveChain;
  mnemonic: string[];
  feeAddress: Address;
  close(): Promise<void>;
}

export async function createLiveTestApp(
  opts: {
    fund?: bigint;
    walletTimeoutSec?: number;
    /** Another instance of `sharedWith`'s service: same fake, wallet and database. */
    sharedWith?: LiveTestApp;
    jobs?: boolean;
    config?: TestAppOptions['config'];
  } = {},
): Promise<LiveTestApp> {
  const shared = opts.sharedWith;
  const fake = shared?.fake ?? (await startFakeToncenter({ blockMs: 10 }));
  const mnemonic = shared?.mnemonic ?? (await mnemonicNew());
  const feeAddress =
    shared?.feeAddress ??
    WalletContractV4.create({
      workchain: 0,
      publicKey: keyPairFromSeed(randomBytes(32)).publicKey,
    }).address;
  const t = await createTestApp({
    sharedWith: shared?.t,
    jobs: opts.jobs,
    config: opts.config,
    live: {
      apiUrl: fake.url,
      mnemonic,
      feeAddress: feeAddress.toString(),
      nowSeconds: fake.nowSeconds,
      walletTimeoutSec: opts.walletTimeoutSec,
    },
  });
  const live = t.services.chain.live!;
  // The operator funds the hot wallet (not yet deployed: the first batch deploys it).
  if (opts.fund !== 0n && !shared)
    await fake.sendFromFaucet(live.wallet.address, opts.fund ?? toNano(1000), 'funding');
  return {
    t,
    fake,
    live,
    mnemonic,
    feeAddress,
    async close() {
      await t.close();
      if (!shared) await fake.close();
    },
  };
}

/** One round of the network loops as the background jobs run them, then the next block. */
export async function chainRound(l: { t: TestApp; fake: FakeToncenter; live: LiveChain }): Promise<void> {
  await runChainSender(l.t.ctx, l.live).catch(() => undefined); // the loop logs and retries it
  await l.fake.settle();
  await followWallet(l.t.ctx, l.live).catch(() => undefined); // the loop logs and retries it
}

/** Runs rounds until `done` holds (bounded, so a bug fails the test instead of hanging it). */
export async function roundsUntil(
  l: { t: TestApp; fake: FakeToncenter; live: LiveChain },
  done: () => Promise<boolean>,
  maxRounds = 40,
): Promise<void> {
  for (let i = 0; i < maxRounds; i++) {
    if (await done()) return;
    await chainRound(l);
  }
  if (!(await done()) && process.env.DEBUG_LIVE) {
    console.log(
      await l.t.ctx.db
        .selectFrom('chain_batches')
        .select(['seq', 'status', 'attempts', 'last_error', 'chain_expires_at'])
        .execute(),
    );
    console.log(
      await l.t.ctx.db
        .selectFrom('chain_transfers')
        .select(['txn_id', 'status', 'batch_id', 'amount_nano'])
        .execute(),
    );
    console.log(l.live.client.lastError, l.live.nowSeconds());
  }
  expect(await done(), `condition not reached within ${maxRounds} rounds`).toBe(true);
}

/** A worker whose wallet is connected with a TON Connect proof (required off the sandbox). */
export async function createLiveWorker(t: TestApp): Promise<TestWorker & { wallet: string }> {
  const worker = await createWorker(t, { wallet: false });
  const challenge = await t.app.inject({
    method: 'POST',
    url: '/worker/me/wallet/challenge',
    headers: worker.headers,
  });
  expect(challenge.statusCode, challenge.body).toBe(201);
  const wallet = newTonWallet();
  const proof = signTonProof(wallet, {
    payload: challenge.json().payload,
    timestamp: unixSeconds(t.clock.now()),
  });
  const res = await t.app.inject({
    method: 'PUT',
    url: '/worker/me/wallet',
    headers: worker.headers,
    payload: proof,
  });
  expect(res.statusCode, res.body).toBe(200);
  return { ...worker, wallet: wallet.address.toString() };
}
