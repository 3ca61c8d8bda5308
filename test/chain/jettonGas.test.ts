import { randomBytes } from 'node:crypto';
import { Address, Cell, fromNano, type Transaction, toNano } from '@ton/core';
import { keyPairFromSeed } from '@ton/crypto';
import { Blockchain, type SandboxContract, type TreasuryContract } from '@ton/sandbox';
import { beforeAll, describe, expect, it } from 'vitest';
import { HighloadWallet } from '../../src/chain/highloadWallet.js';
import { computeJettonWalletAddress } from '../../src/chain/jetton/contracts.js';
import { JETTON_OP, readTransferRequest } from '../../src/chain/jetton/messages.js';
import {
  JETTON_FORWARD_TON_NANO,
  JETTON_TRANSFER_TON_NANO,
  jettonPayoutMessage,
} from '../../src/chain/jetton/payout.js';
import { deployJettonMaster, mintJettons } from '../../src/chain/jetton/sandboxMaster.js';

/**
 * What a jetton payout costs in TON, measured on the emulator with the stablecoin contracts and
 * the Highload Wallet v3 (the numbers in src/chain/jetton/README.md come from this test's output).
 * The chain's fees are those of the emulator's default (mainnet) config; they change only by a
 * config vote, which is why the attached amount keeps a margin.
 */
describe('TON per jetton payout (measured)', () => {
  let chain: Blockchain;
  let wallet: HighloadWallet;
  let master: Address;
  let hotJettonWallet: Address;
  let seq = 0;
  const NOW = 1_760_000_000;

  beforeAll(async () => {
    chain = await Blockchain.create();
    chain.now = NOW;
    const keys = keyPairFromSeed(randomBytes(32));
    wallet = new HighloadWallet({ ...keys, timeoutSec: 3600 });
    const faucet: SandboxContract<TreasuryContract> = await chain.treasury('faucet');
    await faucet.send({ to: wallet.address, value: toNano(100), bounce: false });
    const admin = await chain.treasury('admin');
    master = (await deployJettonMaster(chain, admin, 'usdt')).address;
    await mintJettons(admin, master, wallet.address, 1_000_000_000_000n);
    hotJettonWallet = computeJettonWalletAddress(wallet.address, master);
    // Deploys the wallet (and pays for it) outside the measured batches.
    await batch([new Address(0, randomBytes(32))]);
  });

  async function batch(recipients: Address[], attachedNano = JETTON_TRANSFER_TON_NANO) {
    seq += 1;
    const signed = wallet.signBatch({
      seq,
      createdAt: NOW - 5,
      withInit: seq === 1,
      transfers: recipients.map((to, i) => ({
        ...jettonPayoutMessage({
          transferId: `t${seq}_${i}`,
          hotJettonWallet,
          hotWallet: wallet.address,
          toOwner: to,
          amount: 1_000_000n,
          comment: `task payout ${i}`,
        }),
        valueNano: attachedNano,
      })),
    });
    const before = (await chain.getContract(wallet.address)).balance;
    const result = await chain.sendMessage(Cell.fromBase64(signed.boc));
    const after = (await chain.getContract(wallet.address)).balance;
    return { txs: result.transactions, spent: before - after };
  }

  const at = (txs: Transaction[], a: Address) =>
    txs.filter((t) => t.address === BigInt(`0x${a.hash.toString('hex')}`));
  const fees = (t: Transaction) => t.totalFees.coins;
  const fwdFees = (t: Transaction) =>
    [...t.outMessages.values()].reduce(
      (s, m) => s + (m.info.type === 'internal' ? m.info.forwardFee : 0n),
      0n,
    );

  const balances = (addresses: Address[]) =>
    Promise.all(addresses.map(async (a) => (await chain.getContract(a)).balance));

  async function measure(label: string, recipients: Address[]) {
    const recipientWallets = recipients.map((r) => computeJettonWalletAddress(r, master));
    const walletsBefore = await balances(recipientWallets);
    const { txs, spent } = await batch(recipients);
    const hotTxs = at(txs, wallet.address);
    const [external, internalTransfer] = hotTxs;
    const excesses = hotTxs.filter((t) => t.inMessage?.body.beginParse().loadUint(32) === JETTON_OP.excesses);
    const bounced = hotTxs.filter((t) => t.inMessage?.info.type === 'internal' && t.inMessage.info.bounced);
    expect(bounced).toHaveLength(0);
    expect(excesses).toHaveLength(recipients.length);
    const senderTxs = at(txs, hotJettonWallet).filter((t) => readTransferRequest(t.inMessage!.body));
    const recipientTxs = recipientWallets.flatMap((w) => at(txs, w));
    const walletsAfter = await balances(recipientWallets);
    const storageKept = walletsAfter.reduce((s, b, i) => s + b - walletsBefore[i]!, 0n);
    const returned = excesses.reduce(
      (s, t) => s + (t.inMessage!.info as { value: { coins: bigint } }).value.coins,
      0n,
    );
    const n = BigInt(recipients.length);
    const row = {
      label,
      transfers: recipients.length,
      attachedPerTransfer: fromNano(JETTON_TRANSFER_TON_NANO),
      forwardTon: fromNano(JETTON_FORWARD_TON_NANO),
      hotWalletBatchFees: fromNano(fees(external!) + fwdFees(external!) + fees(internalTransfer!)),
      hotWalletForwardFeesPerTransfer: fromNano(fwdFees(internalTransfer!) / n),
      senderJettonWalletFeesPerTransfer: fromNano(
        senderTxs.reduce((s, t) => s + fees(t) + fwdFees(t), 0n) / n,
      ),
      recipientJettonWalletFeesPerTransfer: fromNano(
        recipientTxs.reduce((s, t) => s + fees(t) + fwdFees(t), 0n) / n,
      ),
      storageKeptByNewWalletPerTransfer: fromNano(storageKept / n),
      excessReturnedPerTransfer: fromNano(returned / n),
      consumedPerTransfer: fromNano(JETTON_TRANSFER_TON_NANO - returned / n),
      hotWalletSpentPerTransfer: fromNano(spent / n),
    };
    console.log(JSON.stringify(row));
    return { spentPerTransfer: spent / n, consumed: JETTON_TRANSFER_TON_NANO - returned / n };
  }

  it('to recipients whose jetton wallet does not exist yet, and to existing ones, in batches of 1 and 10', async () => {
    const fresh1 = await measure('new recipient, batch of 1', [new Address(0, randomBytes(32))]);
    const fresh10 = await measure(
      'new recipients, batch of 10',
      Array.from({ length: 10 }, () => new Address(0, randomBytes(32))),
    );
    const known = Array.from({ length: 10 }, () => new Address(0, randomBytes(32)));
    await batch(known);
    const existing1 = await measure('existing recipient, batch of 1', [known[0]!]);
    const existing10 = await measure('existing recipients, batch of 10', known);
    // The attached TON keeps at least a 2x margin over the most a payout consumed.
    for (const m of [fresh1, fresh10, existing1, existing10]) {
      expect(m.consumed * 2n).toBeLessThan(JETTON_TRANSFER_TON_NANO);
      expect(m.consumed).toBeGreaterThan(0n);
    }
    // A new jetton wallet costs more (its deployment and storage reserve) than an existing one.
    expect(fresh10.consumed).toBeGreaterThan(existing10.consumed);
  });

  it('finds the least TON the jetton wallet accepts (its own worst-case check, exit code 48 below it)', async () => {
    const accepted = async (attachedNano: bigint) => {
      const { txs } = await batch([new Address(0, randomBytes(32))], attachedNano);
      const sender = at(txs, hotJettonWallet).find((t) => readTransferRequest(t.inMessage!.body))!;
      const d = sender.description;
      return d.type === 'generic' && d.computePhase.type === 'vm' && d.computePhase.success;
    };
    let [low, high] = [0n, JETTON_TRANSFER_TON_NANO]; // refused at low, accepted at high
    expect(await accepted(high)).toBe(true);
    while (high - low > 100_000n) {
      const mid = (low + high) / 2n;
      if (await accepted(mid)) high = mid;
      else low = mid;
    }
    console.log(JSON.stringify({ leastAcceptedAttachedTon: fromNano(high), refusedAt: fromNano(low) }));
    expect(high * 2n).toBeLessThan(JETTON_TRANSFER_TON_NANO);
  });
});
