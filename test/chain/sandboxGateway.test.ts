import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Address, toNano } from '@ton/core';
import { afterEach, describe, expect, it } from 'vitest';
import { formatAddress } from '../../src/chain/address.js';
import type { ChainGateway } from '../../src/chain/gateway.js';
import { createSandboxGateway } from '../../src/chain/sandboxGateway.js';

const HEX_HASH = /^[0-9a-f]{64}$/;
/** Generous upper bound on what one wallet send costs in fees. */
const MAX_FEE_NANO = toNano('0.1');

/**
 * A pinned chain clock: the chain charges a storage fee per elapsed second (1 nanoton here and
 * there), which would make exact balance checks flaky.
 */
const NOW_SEC = Math.floor(Date.now() / 1000);

const openGateways: ChainGateway[] = [];
const tempDirs: string[] = [];

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'handoff-chain-'));
  tempDirs.push(dir);
  return dir;
}

async function open(stateDir = tempDir()): Promise<ChainGateway> {
  const gateway = await createSandboxGateway({ stateDir, nowSeconds: () => NOW_SEC });
  openGateways.push(gateway);
  return gateway;
}

/** An address no one has ever deployed, like a new worker's wallet. */
function freshAddress(): string {
  return formatAddress(new Address(0, randomBytes(32)), 'sandbox');
}

afterEach(async () => {
  await Promise.all(openGateways.splice(0).map((g) => g.close()));
  for (const dir of tempDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('sandbox gateway', () => {
  it('transfers value from the hot wallet to a never-deployed address', async () => {
    const chain = await open();
    const to = freshAddress();
    const amountNano = toNano('12.5');
    const hotBefore = await chain.getBalance(chain.hotWalletAddress);
    expect(hotBefore).toBeGreaterThan(toNano(999_000));
    expect(await chain.getBalance(to)).toBe(0n);

    const sent = await chain.transfer({ transferId: 'txn_1', toAddress: to, amountNano, comment: 'task 1' });

    expect(sent.txHash).toMatch(HEX_HASH);
    expect(sent.fromAddress).toBe(chain.hotWalletAddress);
    expect(sent.toAddress).toBe(to);
    expect(await chain.getBalance(to)).toBe(amountNano);
    const spentNano = hotBefore - (await chain.getBalance(chain.hotWalletAddress));
    expect(spentNano).toBeGreaterThan(amountNano);
    expect(spentNano).toBeLessThan(amountNano + MAX_FEE_NANO);
    expect(await chain.findTransfer('txn_1')).toEqual(sent);
  });

  it('sends a transfer id only once', async () => {
    const chain = await open();
    const to = freshAddress();
    const req = { transferId: 'txn_once', toAddress: to, amountNano: toNano(3), comment: 'once' };
    const first = await chain.transfer(req);
    const second = await chain.transfer(req);
    expect(second).toEqual(first);
    expect(await chain.getBalance(to)).toBe(toNano(3));
  });

  it('continues the same chain after a restart', async () => {
    const stateDir = tempDir();
    const to = freshAddress();
    const chain1 = await open(stateDir);
    const first = await chain1.transfer({
      transferId: 'txn_a',
      toAddress: to,
      amountNano: toNano(2),
      comment: 'a',
    });
    const addresses = [chain1.hotWalletAddress, chain1.depositAddress, chain1.feeAddress];
    const hotBalance = await chain1.getBalance(chain1.hotWalletAddress);
    await chain1.close();
    const keysMode = fs.statSync(path.join(stateDir, 'wallet-keys.json')).mode & 0o777;
    expect(keysMode).toBe(0o600);

    const chain2 = await open(stateDir);
    expect([chain2.hotWalletAddress, chain2.depositAddress, chain2.feeAddress]).toEqual(addresses);
    expect(await chain2.getBalance(chain2.hotWalletAddress)).toBe(hotBalance);
    expect(await chain2.getBalance(to)).toBe(toNano(2));
    expect(await chain2.findTransfer('txn_a')).toEqual(first);
    const again = await chain2.transfer({
      transferId: 'txn_a',
      toAddress: to,
      amountNano: toNano(2),
      comment: 'a',
    });
    expect(again).toEqual(first);
    expect(await chain2.getBalance(to)).toBe(toNano(2));

    // A new send only succeeds if the hot wallet's seqno survived the restart.
    const next = await chain2.transfer({
      transferId: 'txn_b',
      toAddress: to,
      amountNano: toNano(1),
      comment: 'b',
    });
    expect(next.txHash).not.toBe(first.txHash);
    expect(await chain2.getBalance(to)).toBe(toNano(3));
    // The faucet (a sandbox treasury) must still work on the restored chain.
    const deposit = await chain2.sendTestDeposit('after-restart', toNano(1));
    expect(deposit.amountNano).toBe(toNano(1));
  });

  it('delivers a test deposit with its memo to the deposit wallet', async () => {
    const chain = await open();
    const before = await chain.getBalance(chain.depositAddress);
    const deposit = await chain.sendTestDeposit('agt_memo_42', toNano(7));

    expect(deposit.txHash).toMatch(HEX_HASH);
    expect(deposit.memo).toBe('agt_memo_42');
    expect(deposit.amountNano).toBe(toNano(7));
    expect(deposit.toAddress).toBe(chain.depositAddress);
    expect(deposit.fromAddress).not.toBe(chain.depositAddress);
    const grownNano = (await chain.getBalance(chain.depositAddress)) - before;
    // The deposit wallet pays a little gas to receive, so it grows by slightly less than sent.
    expect(grownNano).toBeLessThanOrEqual(toNano(7));
    expect(grownNano).toBeGreaterThan(toNano(7) - MAX_FEE_NANO);
  });

  it('throws on a transfer the hot wallet cannot pay and does not record it', async () => {
    const chain = await open();
    const to = freshAddress();
    const hotBalance = await chain.getBalance(chain.hotWalletAddress);
    const req = {
      transferId: 'txn_big',
      toAddress: to,
      amountNano: hotBalance + toNano(1),
      comment: 'too much',
    };

    await expect(chain.transfer(req)).rejects.toThrow(/not sent/);
    expect(await chain.findTransfer('txn_big')).toBeNull();
    expect(await chain.getBalance(to)).toBe(0n);

    const retried = await chain.transfer({ ...req, amountNano: toNano(1) });
    expect(retried.txHash).toMatch(HEX_HASH);
    expect(await chain.getBalance(to)).toBe(toNano(1));
  });

  it('sends concurrent transfers one after another', async () => {
    const chain = await open();
    const to = freshAddress();
    const amounts = Array.from({ length: 10 }, (_, i) => toNano(i + 1));
    const results = await Promise.all(
      amounts.map((amountNano, i) =>
        chain.transfer({ transferId: `txn_c${i}`, toAddress: to, amountNano, comment: `c${i}` }),
      ),
    );
    expect(new Set(results.map((r) => r.txHash)).size).toBe(10);
    expect(await chain.getBalance(to)).toBe(toNano(55));
  });

  it('rejects bad input with errors before touching the chain', async () => {
    const chain = await open();
    const hotBefore = await chain.getBalance(chain.hotWalletAddress);
    const to = freshAddress();
    const base = { transferId: 'txn_bad', toAddress: to, amountNano: toNano(1), comment: '' };
    await expect(chain.transfer({ ...base, amountNano: 0n })).rejects.toThrow(/amountNano/);
    await expect(chain.transfer({ ...base, amountNano: -5n })).rejects.toThrow(/amountNano/);
    await expect(chain.transfer({ ...base, toAddress: 'not-an-address' })).rejects.toThrow(/toAddress/);
    await expect(chain.transfer({ ...base, comment: 'x'.repeat(5000) })).rejects.toThrow(/comment/);
    await expect(chain.sendTestDeposit('memo', 0n)).rejects.toThrow(/amountNano/);
    await expect(chain.getBalance('0:xyz')).rejects.toThrow(/address/);
    expect(await chain.getBalance(chain.hotWalletAddress)).toBe(hotBefore);
    expect(await chain.findTransfer('txn_bad')).toBeNull();
  });

  it('reads balances for any address form, 0 for unknown ones', async () => {
    const chain = await open();
    const raw = Address.parse(chain.hotWalletAddress).toRawString();
    expect(await chain.getBalance(raw)).toBe(await chain.getBalance(chain.hotWalletAddress));
    expect(await chain.getBalance(freshAddress())).toBe(0n);
  });
});
