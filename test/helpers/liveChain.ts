import { randomBytes } from 'node:crypto';
import { type Address, toNano } from '@ton/core';
import { keyPairFromSeed, mnemonicNew } from '@ton/crypto';
import { WalletContractV4 } from '@ton/ton';
import { expect } from 'vitest';
import { USDT_METADATA_URI } from '../../src/chain/jetton/sandboxMaster.js';
import type { LiveChain } from '../../src/chain/liveChain.js';
import { creditChainDeposit } from '../../src/domain/agents/agents.js';
import { followWallet } from '../../src/domain/chain/chainFollower.js';
import { runChainSender } from '../../src/domain/chain/chainSender.js';
import { USDT_DEFAULTS } from '../../src/usdtConfig.js';
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
  /** The USDT master when created with `usdt`. */
  usdtMaster?: Address;
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
    /**
     * USDT on: the fake deploys "USDT (sandbox)" as the configured master (or `sharedWith`'s),
     * the books take USDT and the network gateway gets the master's jetton layer.
     */
    usdt?: boolean;
  } = {},
): Promise<LiveTestApp> {
  const shared = opts.sharedWith;
  const fake = shared?.fake ?? (await startFakeToncenter({ blockMs: 10 }));
  const usdtMaster = opts.usdt
    ? (shared?.usdtMaster ?? (await fake.deployJetton(USDT_METADATA_URI, 'usdt-admin')))
    : undefined;
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
    config: usdtMaster
      ? // The network gateway opens the configured master, which turns USDT on (the one switch).
        { usdt: { ...USDT_DEFAULTS, master: usdtMaster.toString() }, ...opts.config }
      : opts.config,
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
    ...(usdtMaster ? { usdtMaster } : {}),
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

/**
 * An agent's USDT, as network mode would hold it once deposited: the USDT is minted to the hot
 * wallet on chain (where a deposit lands) and credited in the books with the watcher's recording
 * function. (Network USDT deposits by memo are tested on their own; this keeps payout tests short.)
 */
export async function creditUsdt(l: LiveTestApp, agentId: string, micro: bigint): Promise<void> {
  if (!l.usdtMaster) throw new Error('creditUsdt: create the live test app with usdt: true');
  await l.fake.mintJetton(l.usdtMaster, l.live.wallet.address, micro);
  await creditChainDeposit(l.t.ctx, agentId, {
    currency: 'USDT',
    txHash: randomBytes(32).toString('hex'),
    fromAddress: l.t.services.chain.hotWalletAddress,
    toAddress: l.t.services.chain.depositAddress,
    amountNano: micro,
  });
}

/** The USDT (micro) the chain shows at `owner`'s jetton wallet. */
export function usdtBalance(l: LiveTestApp, owner: Address | string): Promise<bigint> {
  return l.t.services.chain.jetton!.balance(owner.toString());
}
