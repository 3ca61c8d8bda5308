import { randomBytes } from 'node:crypto';
import { Address, beginCell, comment as textComment, toNano } from '@ton/core';
import { mnemonicNew } from '@ton/crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChainGateway } from '../../src/chain/gateway.js';
import { type HighloadMessage, readBatchSeq } from '../../src/chain/highloadWallet.js';
import { computeJettonWalletAddress } from '../../src/chain/jetton/contracts.js';
import type { JettonGateway } from '../../src/chain/jetton/gateway.js';
import { JETTON_OP, readExcesses } from '../../src/chain/jetton/messages.js';
import { jettonPayoutMessage, jettonQueryId } from '../../src/chain/jetton/payout.js';
import { USDT_METADATA_URI } from '../../src/chain/jetton/sandboxMaster.js';
import type { LiveChain } from '../../src/chain/liveChain.js';
import { createNetworkGateway } from '../../src/chain/networkGateway.js';
import { type FakeToncenter, startFakeToncenter } from '../helpers/fakeToncenter.js';

const USDT = 1_000_000n;
const HOT_USDT = 1_000n * USDT;

/**
 * Network mode against the toncenter-v2 fake: the jetton get methods over HTTP, jetton payouts in
 * Highload batches (sent twice, paid once), their confirmation from the jetton wallets'
 * transactions, and deposits read from the hot wallet with look-alikes flagged.
 */
describe('USDT in network mode against the toncenter fake', () => {
  let fake: FakeToncenter;
  let chain: ChainGateway;
  let live: LiveChain;
  let usdt: JettonGateway;
  let master: Address;
  let lookAlike: Address;
  let hot: Address;
  let seq = 0;

  beforeAll(async () => {
    fake = await startFakeToncenter({ blockMs: 20 });
    master = await fake.deployJetton(USDT_METADATA_URI, 'usdt-admin');
    lookAlike = await fake.deployJetton(USDT_METADATA_URI, 'look-alike-admin');
    chain = await createNetworkGateway({
      network: 'testnet',
      apiUrl: fake.url,
      mnemonic: await mnemonicNew(),
      feeAddress: new Address(0, randomBytes(32)).toString(),
      usdtMaster: master.toString(),
      requestsPerSecond: 1_000,
      walletTimeoutSec: 120,
      pollMs: 50,
      nowSeconds: fake.nowSeconds,
    });
    live = chain.live!;
    usdt = chain.jetton!;
    hot = live.wallet.address;
    await fake.sendFromFaucet(hot, toNano(20));
    await fake.mintJetton(master, hot, HOT_USDT);
  }, 120_000);
  afterAll(async () => {
    await chain?.close();
    await fake?.close();
  });

  /** Signs one Highload batch, sends it `times` times (each resend is the same signed message), and waits for the chain. */
  async function sendBatch(messages: HighloadMessage[], times = 1): Promise<{ sentLt: bigint; boc: string }> {
    seq += 1;
    const batch = live.wallet.signBatch({
      seq,
      createdAt: fake.nowSeconds() - 5,
      transfers: messages,
      withInit: seq === 1,
    });
    for (let i = 0; i < times; i++) {
      await live.client.sendBoc(batch.boc);
      await fake.settle();
    }
    // The hot wallet's internal_transfer transaction sent the batch's messages.
    const tx = fake.history(hot).find((t) => t.inMessage && readBatchSeq(t.inMessage.body) === seq);
    if (!tx) throw new Error(`batch ${seq} did not land`);
    return { sentLt: tx.lt, boc: batch.boc };
  }

  const payout = async (transferId: string, to: Address, amount: bigint) =>
    jettonPayoutMessage({
      transferId,
      hotJettonWallet: Address.parse(await usdt.walletAddress(hot.toString())),
      hotWallet: hot,
      toOwner: to,
      amount,
      comment: `payout ${transferId}`,
    });

  it('reads the master and jetton wallets through runGetMethod (slice arguments, cell results)', async () => {
    expect(usdt.masterAddress).toBe(chain.jetton!.masterAddress);
    const data = await usdt.jettonData();
    expect(data).toMatchObject({ totalSupply: HOT_USDT, mintable: true, decimals: 6 });
    expect(data.walletCodeHash).toBe('8f452d7a4dfd74066b682365177259ed05734435be76b5fd4bd5d8af2b7c3d68');
    const derived = Address.parse(await usdt.walletAddress(hot.toString()));
    expect(derived.equals(computeJettonWalletAddress(hot, master))).toBe(true);
    // Cached: a second lookup asks the provider nothing.
    const before = fake.requests.get('runGetMethod') ?? 0;
    await usdt.walletAddress(hot.toString());
    expect(fake.requests.get('runGetMethod') ?? 0).toBe(before);
    expect(await usdt.balance(hot.toString())).toBe(HOT_USDT);
    expect(await usdt.balance(new Address(0, randomBytes(32)).toString())).toBe(0n);
  });

  it('pays a batch of jetton transfers exactly once, however often the batch is sent, and confirms each', async () => {
    const workers = [1, 2, 3].map(() => new Address(0, randomBytes(32)));
    const amounts = [10n * USDT, 2_500_000n, 7n];
    const ids = workers.map((_, i) => `txn_batch_${i}`);
    const hotUsdtBefore = await usdt.balance(hot.toString());
    const pending = await usdt.confirmTransfer({ transferId: ids[0]!, sentLt: 0n });
    expect(pending.status).toBe('pending');

    const messages = await Promise.all(workers.map((w, i) => payout(ids[i]!, w, amounts[i]!)));
    const { sentLt, boc } = await sendBatch(messages, 3);
    // And once more after it landed: the wallet refuses a processed query id.
    await live.client.sendBoc(boc);
    await fake.settle();

    for (const [i, w] of workers.entries()) expect(await usdt.balance(w.toString())).toBe(amounts[i]);
    const paid = amounts.reduce((a, b) => a + b, 0n);
    expect(await usdt.balance(hot.toString())).toBe(hotUsdtBefore - paid);
    for (const [i, id] of ids.entries()) {
      const outcome = await usdt.confirmTransfer({ transferId: id, sentLt });
      expect(outcome).toMatchObject({ status: 'succeeded', amount: amounts[i] });
      if (outcome.status === 'succeeded') {
        expect(outcome.recipientJettonWallet.equals(computeJettonWalletAddress(workers[i]!, master))).toBe(
          true,
        );
      }
    }
    // Each payout's unused TON came back to the hot wallet once, named by its query id (not a deposit).
    const refunds = fake
      .history(hot)
      .flatMap((t) => (t.inMessage ? (readExcesses(t.inMessage.body)?.queryId ?? []) : []));
    for (const id of ids) expect(refunds.filter((q) => q === jettonQueryId(id))).toHaveLength(1);
    // The workers were notified with the comment (forward_ton_amount > 0).
    const notice = fake.history(workers[0]!)[0]?.inMessage?.body.beginParse();
    expect(notice?.loadUint(32)).toBe(JETTON_OP.transferNotification);
  });

  it('reports a transfer the hot jetton wallet cannot cover as failed, next to one that succeeds', async () => {
    const [rich, poor] = [new Address(0, randomBytes(32)), new Address(0, randomBytes(32))];
    const hotUsdtBefore = await usdt.balance(hot.toString());
    const hotTonBefore = await fake.balance(hot);
    const { sentLt } = await sendBatch([
      await payout('txn_ok', rich, USDT),
      await payout('txn_too_much', poor, hotUsdtBefore + 1n),
    ]);
    expect(await usdt.confirmTransfer({ transferId: 'txn_ok', sentLt })).toMatchObject({
      status: 'succeeded',
    });
    const failed = await usdt.confirmTransfer({ transferId: 'txn_too_much', sentLt });
    expect(failed).toMatchObject({ status: 'failed' });
    expect(failed.status === 'failed' && failed.reason).toMatch(
      /insufficient jetton balance \(exit code 47\)/,
    );
    expect(await usdt.balance(poor.toString())).toBe(0n);
    expect(await usdt.balance(hot.toString())).toBe(hotUsdtBefore - USDT);
    // The refused transfer's TON bounced back: the batch cost far less than the 2 x 0.05 TON attached.
    expect(hotTonBefore - (await fake.balance(hot))).toBeLessThan(toNano('0.05'));
  });

  it('lists jetton deposits with their memo and flags every sender but our own jetton wallet as foreign', async () => {
    await fake.sendJettonFromFaucet(master, hot, 5n * USDT, 'agt_real');
    await fake.sendJettonFromFaucet(lookAlike, hot, 500n * USDT, 'agt_real');
    // A plain wallet sending the notification itself, with our own jetton wallet named as the sender.
    const forged = beginCell()
      .storeUint(JETTON_OP.transferNotification, 32)
      .storeUint(0, 64)
      .storeCoins(1_000n * USDT)
      .storeAddress(fake.faucet.address)
      .storeBit(false)
      .storeSlice(textComment('agt_real').beginParse())
      .endCell();
    await fake.deliver({ from: fake.faucet.address, to: hot, amountNano: toNano('0.01'), body: forged });

    const deposits = await usdt.listDeposits({ limit: 10 });
    const view = deposits.map((d) => ({ amount: d.amount, memo: d.memo, foreign: d.foreign }));
    expect(view).toEqual([
      { amount: 1_000n * USDT, memo: 'agt_real', foreign: true },
      { amount: 500n * USDT, memo: 'agt_real', foreign: true },
      { amount: 5n * USDT, memo: 'agt_real', foreign: false },
    ]);
    const own = Address.parse(await usdt.walletAddress(hot.toString()));
    expect(deposits[2]!.senderJettonWallet.equals(own)).toBe(true);
    expect(deposits[1]!.senderJettonWallet.equals(computeJettonWalletAddress(hot, lookAlike))).toBe(true);
    expect(deposits[2]!.fromOwner?.equals(fake.faucet.address)).toBe(true);
    expect(deposits.every((d) => /^[0-9a-f]{64}$/.test(d.txHash) && d.lt > 0n)).toBe(true);
  });

  it('refuses sandbox-only operations', async () => {
    await expect(usdt.mint(hot.toString(), 1n)).rejects.toThrow(/admin/);
    await expect(usdt.sendTestDeposit('m', 1n)).rejects.toThrow(/deposit address/);
    await expect(
      usdt.transfer({ transferId: 'x', toAddress: hot.toString(), amount: 1n, comment: '' }),
    ).rejects.toThrow(/batches/);
  });
});
