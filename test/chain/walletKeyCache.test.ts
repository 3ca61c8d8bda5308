import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type KeyPair, mnemonicNew, mnemonicToPrivateKey } from '@ton/crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadOrDeriveKeyPairs as load, type WalletMnemonics } from '../../src/chain/sandboxState.js';

// Counts derivations (PBKDF2, ~100 ms of CPU each) and can make one fail: the fault to inject.
const derive = { calls: 0, fail: false };
const countedDerive = (words: string[]): Promise<KeyPair> => {
  derive.calls++;
  if (derive.fail) throw new Error('derived again');
  return mnemonicToPrivateKey(words);
};
const loadOrDeriveKeyPairs = (dir: string, mnemonics: WalletMnemonics) => load(dir, mnemonics, countedDerive);

let dir: string;
let mnemonics: WalletMnemonics;
beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'handoff-keys-'));
  const [hot, deposit, fee] = await Promise.all([mnemonicNew(), mnemonicNew(), mnemonicNew()]);
  mnemonics = { hot, deposit, fee };
  derive.calls = 0;
  derive.fail = false;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const publicKeys = (pairs: Awaited<ReturnType<typeof loadOrDeriveKeyPairs>>) =>
  [pairs.hot, pairs.deposit, pairs.fee].map((pair) => pair.publicKey.toString('hex'));

describe("the sandbox wallets' derived keys", () => {
  it('are derived on the first start and read back, the same, on a restart', async () => {
    const first = await loadOrDeriveKeyPairs(dir, mnemonics);
    expect(derive.calls).toBe(3);
    const file = path.join(dir, 'wallet-keys.derived.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    derive.fail = true;
    const again = await loadOrDeriveKeyPairs(dir, mnemonics);
    expect(publicKeys(again)).toEqual(publicKeys(first));
    expect(again.hot.secretKey.equals(first.hot.secretKey)).toBe(true);
  });

  it('are derived again for a mnemonic that changed, and from a damaged file', async () => {
    await loadOrDeriveKeyPairs(dir, mnemonics);
    const otherHot = await mnemonicNew();
    const changed = { ...mnemonics, hot: otherHot };
    const expected = (await mnemonicToPrivateKey(otherHot)).publicKey.toString('hex');
    expect((await loadOrDeriveKeyPairs(dir, changed)).hot.publicKey.toString('hex')).toBe(expected);

    const file = path.join(dir, 'wallet-keys.derived.json');
    writeFileSync(file, readFileSync(file, 'utf8').slice(0, 40));
    derive.calls = 0;
    expect((await loadOrDeriveKeyPairs(dir, changed)).hot.publicKey.toString('hex')).toBe(expected);
    expect(derive.calls).toBe(3);
  });
});
