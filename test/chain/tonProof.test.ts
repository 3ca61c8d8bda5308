import { randomBytes } from 'node:crypto';
import { beginCell, Cell, contractAddress } from '@ton/core';
import { keyPairFromSeed } from '@ton/crypto';
import { WalletContractV3R2, WalletContractV5R1 } from '@ton/ton';
import { describe, expect, it } from 'vitest';
import { formatAddress } from '../../src/chain/address.js';
import { type TonProofOptions, type TonProofReply, verifyTonProof } from '../../src/chain/tonProof.js';
import { DomainError } from '../../src/domain/errors.js';
import {
  newTonWallet,
  signTonProof,
  stateInitBoc,
  type TestTonWallet,
  unixSeconds,
} from '../helpers/tonConnect.js';

const NOW = new Date('2030-01-01T12:00:00.000Z');
const OPTIONS: TonProofOptions = {
  allowedDomains: ['handoff.test', 'app.handoff.test:8443'],
  now: NOW,
  maxAgeMs: 15 * 60_000,
  network: 'sandbox',
};
const payload = () => randomBytes(32).toString('hex');
const proofOf = (wallet: TestTonWallet, fields: Partial<Parameters<typeof signTonProof>[1]> = {}) =>
  signTonProof(wallet, { payload: payload(), timestamp: unixSeconds(NOW) - 30, ...fields });

/** The field and reason of a refusal; fails the test when the proof is accepted. */
function refusal(
  reply: TonProofReply,
  options: TonProofOptions = OPTIONS,
): { path: string; message: string } {
  try {
    verifyTonProof(reply, options);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).kind).toBe('validation');
    const details = (error as DomainError).extra.details as { path: string; message: string }[];
    expect(details).toHaveLength(1);
    return details[0]!;
  }
  throw new Error('the proof was accepted');
}

describe('verifyTonProof accepts real TON Connect proofs', () => {
  for (const version of ['v4r2', 'v5r1'] as const) {
    it(`of a ${version} wallet, returning its canonical address and key`, () => {
      const wallet = newTonWallet(version);
      const verified = verifyTonProof(proofOf(wallet), OPTIONS);
      expect(verified).toEqual({
        address: formatAddress(wallet.address, 'sandbox'),
        publicKey: wallet.keys.publicKey.toString('hex'),
        version,
      });
      expect(verified.address).toMatch(/^0Q/);
    });
  }

  it('but not of a masterchain wallet (workchain -1): a valid proof, and still no wallet to pay (issue 35, finding 2)', () => {
    const wallet = newTonWallet('v4r2', -1);
    const refused = refusal(proofOf(wallet));
    expect(refused.path).toBe('address');
    expect(refused.message).toMatch(/workchain 0/);
  });

  it('for any allowed domain, compared case-insensitively, with a port', () => {
    const wallet = newTonWallet('v5r1');
    expect(() => verifyTonProof(proofOf(wallet, { domain: 'app.handoff.test:8443' }), OPTIONS)).not.toThrow();
    expect(() => verifyTonProof(proofOf(wallet, { domain: 'Handoff.TEST' }), OPTIONS)).not.toThrow();
  });

  it('signed up to 15 minutes ago, or a little ahead of our clock', () => {
    const wallet = newTonWallet();
    const now = unixSeconds(NOW);
    for (const timestamp of [now - 15 * 60, now, now + 60, now + 5 * 60]) {
      expect(() => verifyTonProof(proofOf(wallet, { timestamp }), OPTIONS), String(timestamp)).not.toThrow();
    }
  });

  it('with the timestamp as a decimal string (the TON Connect wire format) or a number', () => {
    const reply = proofOf(newTonWallet());
    const asString = { ...reply, proof: { ...reply.proof, timestamp: String(reply.proof.timestamp) } };
    expect(() => verifyTonProof(asString, OPTIONS)).not.toThrow();
    for (const timestamp of ['17e8', '-5', ' 1', '', 1.5, -1]) {
      expect(refusal({ ...reply, proof: { ...reply.proof, timestamp } }).path, String(timestamp)).toBe(
        'proof/timestamp',
      );
    }
  });

  it('whose code is a library cell naming the standard wallet code', () => {
    const base = newTonWallet('v5r1');
    const libraryCode = new Cell({
      exotic: true,
      bits: beginCell().storeUint(2, 8).storeBuffer(base.init.code!.hash()).endCell().bits,
    });
    const init = { code: libraryCode, data: base.init.data };
    const wallet = { keys: base.keys, init, address: contractAddress(0, init) };
    expect(wallet.address.equals(base.address)).toBe(false);
    expect(verifyTonProof(proofOf(wallet), OPTIONS).version).toBe('v5r1');
  });

  it('on mainnet with chain -239, in the mainnet address form; each network wants its chain', () => {
    const wallet = newTonWallet();
    const mainnet = { ...OPTIONS, network: 'mainnet' as const };
    expect(verifyTonProof(proofOf(wallet, { network: '-239' }), mainnet).address).toBe(
      formatAddress(wallet.address, 'mainnet'),
    );
    expect(refusal(proofOf(wallet, { network: '-3' }), mainnet)).toEqual({
      path: 'network',
      message: expect.stringContaining('-239'),
    });
    const testnet = { ...OPTIONS, network: 'testnet' as const };
    expect(refusal(proofOf(wallet, { network: '-239' }), testnet).path).toBe('network');
    expect(() => verifyTonProof(proofOf(wallet, { network: '-3' }), testnet)).not.toThrow();
  });
});

describe('verifyTonProof refuses', () => {
  it('a proof for another domain', () => {
    const problem = refusal(proofOf(newTonWallet(), { domain: 'evil.example' }));
    expect(problem).toEqual({ path: 'proof/domain/value', message: expect.stringContaining('handoff.test') });
  });

  it('a domain whose lengthBytes is not its byte length', () => {
    const reply = proofOf(newTonWallet());
    reply.proof.domain.lengthBytes += 1;
    expect(refusal(reply).path).toBe('proof/domain/lengthBytes');
  });

  it('a stale timestamp (over 15 minutes old)', () => {
    const problem = refusal(proofOf(newTonWallet(), { timestamp: unixSeconds(NOW) - 15 * 60 - 1 }));
    expect(problem).toEqual({ path: 'proof/timestamp', message: expect.stringMatching(/too old/) });
  });

  it('a timestamp in the future beyond clock skew', () => {
    const problem = refusal(proofOf(newTonWallet(), { timestamp: unixSeconds(NOW) + 5 * 60 + 1 }));
    expect(problem).toEqual({ path: 'proof/timestamp', message: expect.stringMatching(/future/) });
  });

  it('a state init that does not match the address (another key, or another wallet version)', () => {
    const wallet = newTonWallet('v4r2');
    const otherKey = newTonWallet('v4r2');
    const reply = proofOf(wallet);
    reply.proof.state_init = stateInitBoc(otherKey.init);
    reply.public_key = otherKey.keys.publicKey.toString('hex');
    expect(refusal(reply)).toEqual({ path: 'proof/state_init', message: expect.stringMatching(/address/) });

    // The same key in a V5R1 contract is another address.
    const v5 = WalletContractV5R1.create({ workchain: 0, publicKey: wallet.keys.publicKey });
    const mixed = proofOf({ ...wallet, init: v5.init });
    expect(refusal(mixed).path).toBe('proof/state_init');
  });

  it('a public key that is not the one in the state init', () => {
    const reply = proofOf(newTonWallet('v5r1'));
    reply.public_key = keyPairFromSeed(randomBytes(32)).publicKey.toString('hex');
    expect(refusal(reply)).toEqual({ path: 'public_key', message: expect.stringMatching(/state init/) });
    reply.public_key = 'zz';
    expect(refusal(reply).path).toBe('public_key');
  });

  it('a signature by another key', () => {
    const wallet = newTonWallet('v4r2');
    const forged = proofOf(wallet, { signer: keyPairFromSeed(randomBytes(32)) });
    expect(refusal(forged)).toEqual({ path: 'proof/signature', message: expect.stringMatching(/signature/) });
  });

  it('a tampered payload, timestamp, domain or address', () => {
    const wallet = newTonWallet('v5r1');
    const signed = proofOf(wallet, { domain: 'handoff.test' });
    const tamper = (edit: (r: TonProofReply) => void) => {
      const copy: TonProofReply = structuredClone(signed);
      edit(copy);
      return refusal(copy).path;
    };
    expect(tamper((r) => (r.proof.payload = payload()))).toBe('proof/signature');
    expect(tamper((r) => (r.proof.timestamp = Number(r.proof.timestamp) - 1))).toBe('proof/signature');
    expect(tamper((r) => (r.proof.domain = { lengthBytes: 21, value: 'app.handoff.test:8443' }))).toBe(
      'proof/signature',
    );
    // The proof of one wallet with the address of another fails on the state init first.
    expect(tamper((r) => (r.address = newTonWallet('v5r1').address.toRawString()))).toBe('proof/state_init');
  });

  it('a signature that is not 64 bytes of base64', () => {
    const reply = proofOf(newTonWallet());
    for (const signature of ['', 'not base64!', Buffer.alloc(63).toString('base64')]) {
      expect(refusal({ ...reply, proof: { ...reply.proof, signature } }).path).toBe('proof/signature');
    }
  });

  it('a wallet contract it does not know (v3r2), and a state init that is not one', () => {
    const keys = keyPairFromSeed(randomBytes(32));
    const v3 = WalletContractV3R2.create({ workchain: 0, publicKey: keys.publicKey });
    const reply = proofOf({ keys, address: v3.address, init: v3.init });
    expect(refusal(reply)).toEqual({
      path: 'proof/state_init',
      message: expect.stringMatching(/v4r2, v5r1/),
    });
    for (const state_init of ['', 'AAAA', beginCell().storeUint(7, 3).endCell().toBoc().toString('base64')]) {
      expect(refusal({ ...reply, proof: { ...reply.proof, state_init } }).path).toBe('proof/state_init');
    }
  });

  it('an address that is not one', () => {
    const reply = proofOf(newTonWallet());
    expect(refusal({ ...reply, address: '0:1234' }).path).toBe('address');
  });
});
