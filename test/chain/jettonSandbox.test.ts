import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Address } from '@ton/core';
import { afterEach, describe, expect, it } from 'vitest';
import { formatAddress } from '../../src/chain/address.js';
import type { ChainGateway } from '../../src/chain/gateway.js';
import { computeJettonWalletAddress } from '../../src/chain/jetton/contracts.js';
import type { JettonGateway } from '../../src/chain/jetton/gateway.js';
import { HOT_WALLET_USDT } from '../../src/chain/jetton/sandboxJetton.js';
import { createSandboxGateway } from '../../src/chain/sandboxGateway.js';
import { GuardedSandbox } from '../../src/sandboxGuard.js';

/** A pinned chain clock (see sandboxGateway.test.ts): storage fees per second would make TON balances drift. */
const NOW_SEC = Math.floor(Date.now() / 1000);
const USDT = 1_000_000n;

const openGateways: ChainGateway[] = [];
const tempDirs: string[] = [];

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'handoff-jetton-'));
  tempDirs.push(dir);
  return dir;
}

async function open(stateDir = tempDir()): Promise<{ chain: ChainGateway; usdt: JettonGateway }> {
  const chain = await createSandboxGateway({ stateDir, nowSeconds: () => NOW_SEC });
  openGateways.push(chain);
  if (!chain.jetton) throw new Error('the sandbox has no jetton');
  return { chain, usdt: chain.jetton };
}

function freshAddress(): string {
  return formatAddress(new Address(0, randomBytes(32)), 'sandbox');
}

afterEach(async () => {
  await Promise.all(openGateways.splice(0).map((g) => g.close()));
  for (const dir of tempDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('sandbox USDT', () => {
  it('deploys "USDT (sandbox)" with 6 decimals and gives the hot wallet its first million', async () => {
    const { chain, usdt } = await open();
    expect(usdt.decimals).toBe(6);
    const data = await usdt.jettonData();
    expect(data.decimals).toBe(6);
    expect(data.totalSupply).toBe(HOT_WALLET_USDT);
    expect(data.walletCodeHash).toBe('8f452d7a4dfd74066b682365177259ed05734435be76b5fd4bd5d8af2b7c3d68');
    expect(await usdt.balance(chain.hotWalletAddress)).toBe(HOT_WALLET_USDT);
    expect(await usdt.balance(freshAddress())).toBe(0n);
  });

  it("derives a holder's jetton wallet with get_wallet_address, equal to the address computed from the code", async () => {
    const { chain, usdt } = await open();
    const master = Address.parse(usdt.masterAddress);
    for (const owner of [chain.hotWalletAddress, chain.depositAddress, freshAddress()]) {
      const computed = computeJettonWalletAddress(Address.parse(owner), master);
      expect(Address.parse(await usdt.walletAddress(owner)).equals(computed)).toBe(true);
    }
  });

  it('mints to any address', async () => {
    const { usdt } = await open();
    const to = freshAddress();
    await usdt.mint(to, 25n * USDT);
    await usdt.mint(to, 5n * USDT);
    expect(await usdt.balance(to)).toBe(30n * USDT);
    expect((await usdt.jettonData()).totalSupply).toBe(HOT_WALLET_USDT + 30n * USDT);
  });

  it('pays a transfer id once, also after a restart, and the excess TON comes back', async () => {
    const stateDir = tempDir();
    const { chain, usdt } = await open(stateDir);
    const to = freshAddress();
    const tonBefore = await chain.getBalance(chain.hotWalletAddress);
    const req = { transferId: 'txn_usdt_1', toAddress: to, amount: 12_345_678n, comment: 'task 1 reward' };
    const paid = await usdt.transfer(req);
    expect(paid.amount).toBe(req.amount);
    expect(paid.txHash).toMatch(/^[0-9a-f]{64}$/);
    expect(await usdt.transfer(req)).toEqual(paid);
    expect(await usdt.balance(to)).toBe(req.amount);
    expect(await usdt.balance(chain.hotWalletAddress)).toBe(HOT_WALLET_USDT - req.amount);
    // 0.05 TON attached; what the chain did not use came back: well under 0.03 TON spent.
    const tonSpent = tonBefore - (await chain.getBalance(chain.hotWalletAddress));
    expect(tonSpent).toBeGreaterThan(0n);
    expect(tonSpent).toBeLessThan(30_000_000n);
    await chain.close();

    const again = await open(stateDir);
    expect(again.usdt.masterAddress).toBe(usdt.masterAddress);
    expect(await again.usdt.findTransfer('txn_usdt_1')).toEqual(paid);
    expect(await again.usdt.transfer(req)).toEqual(paid);
    expect(await again.usdt.balance(to)).toBe(req.amount);
    expect((await again.usdt.jettonData()).totalSupply).toBe(HOT_WALLET_USDT); // not minted again
    const next = await again.usdt.transfer({ ...req, transferId: 'txn_usdt_2' });
    expect(next.txHash).not.toBe(paid.txHash);
    expect(await again.usdt.balance(to)).toBe(2n * req.amount);
  });

  it('tops the hot jetton wallet up for a payout past what it holds, as the sandbox operator would', async () => {
    // Agents' USDT lands on the deposit address, so without this the sandbox could pay out only
    // its first million. (A refused transfer is reported as failed: test/chain/jettonNetwork.test.ts.)
    const { chain, usdt } = await open();
    const to = freshAddress();
    const req = { transferId: 'txn_big', toAddress: to, amount: HOT_WALLET_USDT + 1n, comment: 'big' };
    await usdt.transfer(req);
    expect(await usdt.balance(to)).toBe(req.amount);
    expect(await usdt.balance(chain.hotWalletAddress)).toBe(HOT_WALLET_USDT);
    await usdt.transfer(req); // idempotent: nothing minted or paid twice
    expect(await usdt.balance(to)).toBe(req.amount);
    expect((await usdt.jettonData()).totalSupply).toBe(2n * HOT_WALLET_USDT + 1n);
  });

  it('sends a test deposit with its memo from our own jetton wallet, not foreign', async () => {
    const { chain, usdt } = await open();
    const deposit = await usdt.sendTestDeposit('agt_memo_1', 7n * USDT);
    expect(deposit).toMatchObject({ amount: 7n * USDT, memo: 'agt_memo_1', foreign: false });
    expect(
      deposit.senderJettonWallet.equals(Address.parse(await usdt.walletAddress(chain.depositAddress))),
    ).toBe(true);
    expect(await usdt.balance(chain.depositAddress)).toBe(7n * USDT);
    const listed = await usdt.listDeposits();
    expect(listed.map((d) => [d.memo, d.amount, d.txHash])).toEqual([
      ['agt_memo_1', 7n * USDT, deposit.txHash],
    ]);
  });

  it('sends nothing while the instance does not hold its sandbox lease', async () => {
    const { chain } = await open();
    let held = false;
    const guarded = new GuardedSandbox(chain, { holds: async () => held }).jetton!;
    const to = freshAddress();
    const req = { transferId: 'txn_guarded', toAddress: to, amount: USDT, comment: 'guarded' };
    await expect(guarded.transfer(req)).rejects.toThrow(/does not hold its lease: jetton transfer not sent/);
    await expect(guarded.mint(to, USDT)).rejects.toThrow(/does not hold its lease/);
    await expect(guarded.sendTestDeposit('agt', USDT)).rejects.toThrow(/does not hold its lease/);
    expect(await guarded.balance(to)).toBe(0n);
    held = true;
    await guarded.transfer(req);
    expect(await guarded.balance(to)).toBe(USDT);
  });
});
