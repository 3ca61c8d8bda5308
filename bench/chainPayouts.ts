/**
 * Chain benchmark: 1,000 payouts due at once on TON_NETWORK=testnet, against the toncenter-v2
 * fake (test/helpers/fakeToncenter.ts) over the sandbox, with the shared request budget at 10
 * requests/s (toncenter with a free key). Reports the time until all are confirmed on chain and
 * the provider requests per payout. Run: npx tsx bench/chainPayouts.ts [payouts] [requestsPerSecond]
 */

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { toNano } from '@ton/core';
import { keyPairFromSeed, mnemonicNew } from '@ton/crypto';
import { WalletContractV4 } from '@ton/ton';
import { loadConfig } from '../src/config.js';
import { insertLedgerRow } from '../src/db/repositories/ledger.js';
import { insertTransfer } from '../src/db/repositories/transfers.js';
import { createAgent } from '../src/domain/agents/agents.js';
import { ApiKeyCache } from '../src/domain/agents/apiKeyCache.js';
import { followWallet } from '../src/domain/chain/chainFollower.js';
import { runChainSender } from '../src/domain/chain/chainSender.js';
import { systemClock } from '../src/domain/clock.js';
import type { DomainContext } from '../src/domain/context.js';
import { newId } from '../src/domain/ids.js';
import { InProcessFanout } from '../src/events/fanout.js';
import { closeServices, openServices } from '../src/services.js';
import { usdtOnChain } from '../src/usdtConfig.js';
import { startFakeToncenter } from '../test/helpers/fakeToncenter.js';

const PAYOUTS = Number(process.argv[2] ?? 1000);
const RPS = Number(process.argv[3] ?? 10);
const REWARD_NANO = toNano('0.5');

async function main() {
  const fake = await startFakeToncenter({ blockMs: 1000 });
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'handoff-bench-chain-'));
  const mnemonic = await mnemonicNew();
  const fee = WalletContractV4.create({
    workchain: 0,
    publicKey: keyPairFromSeed(randomBytes(32)).publicKey,
  });
  const { config } = loadConfig({
    DATA_DIR: dataDir,
    ADMIN_TOKEN: 'x'.repeat(32),
    SECRET_KEY: randomBytes(32).toString('hex'),
    TELEGRAM_BOT_TOKEN: `100000:${'a'.repeat(32)}`,
    TON_NETWORK: 'testnet',
    TON_API_URL: fake.url,
    TON_WALLET_MNEMONIC: mnemonic.join(' '),
    TON_FEE_ADDRESS: fee.address.toString(),
    TON_API_RPS: String(RPS),
  });
  const services = await openServices(config);
  const live = services.chain.live!;
  const ctx: DomainContext = {
    db: services.db.db,
    clock: systemClock,
    chain: services.chain,
    secretKey: config.secretKey,
    fanout: new InProcessFanout(),
    publicUrl: config.publicUrl,
    webhooks: { allowPrivateTargets: true, timeoutMs: 1000 },
    apiKeys: new ApiKeyCache(config.apiKeyCacheTtlMs),
    usdt: usdtOnChain(config.usdt, services.chain),
  };
  await fake.sendFromFaucet(live.wallet.address, REWARD_NANO * BigInt(PAYOUTS) + toNano(100), 'funding');
  const { agent } = await createAgent(ctx, { name: 'bench' });
  const now = new Date().toISOString();
  for (let i = 0; i < PAYOUTS; i++) {
    const to = WalletContractV4.create({
      workchain: 0,
      publicKey: keyPairFromSeed(randomBytes(32)).publicKey,
    });
    const id = newId('transaction');
    const address = to.address.toString({ bounceable: false, testOnly: true });
    await insertLedgerRow(ctx.db, {
      id,
      agent_id: agent.id,
      task_id: null,
      type: 'PAYOUT',
      currency: 'TON',
      amount_nano: REWARD_NANO,
      from_address: services.chain.hotWalletAddress,
      to_address: address,
      tx_hash: null,
      status: 'pending',
      created_at: now,
      updated_at: now,
    });
    await insertTransfer(ctx.db, {
      txn_id: id,
      to_address: address,
      currency: 'TON',
      amount_nano: REWARD_NANO,
      comment: `Handoff payout ${i}`,
      status: 'pending',
      attempts: 0,
      next_attempt_at: now,
      last_error: null,
      created_at: now,
      updated_at: now,
    });
  }
  const before = fake.totalRequests();
  const clientBefore = live.client.budget.requests;
  const started = performance.now();

  // The two loops as the background jobs run them, each on its own timer.
  const confirmed = async () =>
    Number(
      (
        await ctx.db
          .selectFrom('chain_transfers')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('status', '=', 'sent')
          .executeTakeFirstOrThrow()
      ).n,
    );
  let done = false;
  const loop = async (work: () => Promise<unknown>) => {
    while (!done) {
      await work().catch((e) => console.error(e));
      await new Promise((r) => setTimeout(r, config.tonLive!.pollMs));
    }
  };
  const loops = [loop(() => runChainSender(ctx, live)), loop(() => followWallet(ctx, live))];
  while ((await confirmed()) < PAYOUTS) {
    await new Promise((r) => setTimeout(r, 250));
    if (performance.now() - started > 600_000) throw new Error('not all payouts confirmed within 10 minutes');
  }
  const seconds = (performance.now() - started) / 1000;
  done = true;
  await Promise.all(loops);
  const requests = fake.totalRequests() - before;
  const batches = await ctx.db.selectFrom('chain_batches').select(['status']).execute();
  console.log(
    JSON.stringify(
      {
        payouts: PAYOUTS,
        requestBudgetPerSec: RPS,
        secondsUntilAllConfirmed: Number(seconds.toFixed(1)),
        providerRequests: requests,
        // Attempts through the budget, including those that never reached the provider.
        budgetedAttempts: live.client.budget.requests - clientBefore,
        requestsPerPayout: Number((requests / PAYOUTS).toFixed(3)),
        requestsPerSecond: Number((requests / seconds).toFixed(2)),
        byMethod: Object.fromEntries(fake.requests),
        batches: batches.length,
        expiredBatches: batches.filter((b) => b.status === 'expired').length,
        pollMs: config.tonLive!.pollMs,
        fakeBlockMs: 1000,
      },
      null,
      2,
    ),
  );
  await closeServices(services);
  await fake.close();
  rmSync(dataDir, { recursive: true, force: true });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
