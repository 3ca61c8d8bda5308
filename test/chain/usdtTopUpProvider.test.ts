import { randomBytes } from 'node:crypto';
import { Address, beginCell, Dictionary, toNano } from '@ton/core';
import { Blockchain } from '@ton/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JETTON_MINTER_CODE, JETTON_WALLET_CODE } from '../../src/chain/jetton/code.js';
import {
  computeJettonWalletAddress,
  JETTON_WALLET_LIBRARY,
  jettonMasterAddress,
  jettonWalletDeriver,
} from '../../src/chain/jetton/contracts.js';
import { readWalletAddress, walletAddressArgs } from '../../src/chain/jetton/getMethods.js';
import { jettonTopUpBody } from '../../src/chain/jetton/messages.js';
import { mintJettons } from '../../src/chain/jetton/sandboxMaster.js';
import { consoleCall, consoleOk, signInOwner } from '../helpers/consoleApi.js';
import { createLiveTestApp, type LiveTestApp } from '../helpers/liveChain.js';

/**
 * Issue 35, finding 3: the console's USDT top-up asked the provider (get_wallet_address) for every
 * new `from`, on the budget the deposit watcher and the payout sender share, so anyone with a
 * console account could delay deposits and payouts by repeating it. The sender's jetton wallet is
 * now derived locally, and the derivation is what the master answers: for the sandbox's master
 * (plain wallet code) and for one that stores the code as a library cell, as mainnet USDT does.
 */
const randomOwner = () => new Address(0, randomBytes(32));

async function chainWalletOf(blockchain: Blockchain, master: Address, owner: Address): Promise<Address> {
  const r = await blockchain.runGetMethod(master, 'get_wallet_address', walletAddressArgs(owner));
  return readWalletAddress(r.stack);
}

describe('USDT top-up without the provider', () => {
  let l: LiveTestApp;
  beforeAll(async () => {
    l = await createLiveTestApp({ usdt: true });
  }, 180_000);
  afterAll(() => l.close());

  it('builds top-ups for many different senders with no provider request, to the wallets the master names', async () => {
    const owner = await signInOwner(l.t);
    const { agent } = await consoleOk(l.t, owner, 'POST', '/agents', { name: 'Scout' }, 201);
    const topUp = (from: string) =>
      consoleCall(l.t, owner, 'POST', `/agents/${agent.id}/usdt-top-up`, { amount: '5', from });
    // The first one may learn the deposit address's jetton wallet (the watcher needs it anyway).
    const first = await topUp(owner.wallet.address.toString());
    expect(first.statusCode, first.body).toBe(200);

    const before = l.fake.totalRequests();
    const senders = Array.from({ length: 40 }, randomOwner);
    for (const sender of senders) {
      const res = await topUp(sender.toString());
      expect(res.statusCode, res.body).toBe(200);
      const expected = await chainWalletOf(l.fake.blockchain, l.usdtMaster!, sender);
      expect(Address.parse(res.json().message.address).equals(expected)).toBe(true);
    }
    expect(l.fake.totalRequests() - before).toBe(0);
  }, 120_000);
});

describe('the jetton wallet derivation against the emulated master', () => {
  it('matches get_wallet_address for a master holding the wallet code as a library cell, as mainnet USDT does', async () => {
    const blockchain = await Blockchain.create();
    // The network resolves a library cell from the masterchain's libraries; so does the emulator here.
    const libs = Dictionary.empty(Dictionary.Keys.Buffer(32), Dictionary.Values.Cell());
    libs.set(JETTON_WALLET_CODE.hash(), JETTON_WALLET_CODE);
    blockchain.libs = beginCell().storeDictDirect(libs).endCell();
    const admin = await blockchain.treasury('usdt-like-admin');
    // The stablecoin master's data, with the library cell where the sandbox's holds the plain code.
    const data = beginCell()
      .storeCoins(0)
      .storeAddress(admin.address)
      .storeAddress(null)
      .storeRef(JETTON_WALLET_LIBRARY)
      .storeRef(beginCell().storeStringTail('https://example.invalid/usdt.json').endCell())
      .endCell();
    const init = { code: JETTON_MINTER_CODE, data };
    const master = jettonMasterAddress(init);
    await admin.send({ to: master, value: toNano(10), init, body: jettonTopUpBody() });

    const deposit = randomOwner();
    const derive = jettonWalletDeriver(master, {
      owner: deposit,
      wallet: await chainWalletOf(blockchain, master, deposit),
    });
    expect(derive).not.toBeNull();
    for (const owner of [randomOwner(), randomOwner(), new Address(-1, randomBytes(32))]) {
      expect(derive!(owner).equals(await chainWalletOf(blockchain, master, owner))).toBe(true);
      // Not the address the plain code would give: the library cell is what the state init hashes.
      expect(computeJettonWalletAddress(owner, master).equals(derive!(owner))).toBe(false);
    }
    // A mint deploys the wallet at that address, running the code the library names.
    const holder = randomOwner();
    await mintJettons(admin, master, holder, 1_000_000n);
    const wallet = await blockchain.getContract(derive!(holder));
    expect(wallet.accountState?.type).toBe('active');
  });

  it('refuses to derive for a master whose answer fits neither code', () => {
    const master = randomOwner();
    expect(jettonWalletDeriver(master, { owner: randomOwner(), wallet: randomOwner() })).toBeNull();
  });
});
