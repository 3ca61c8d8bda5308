import { createHash, randomBytes } from 'node:crypto';
import { type Address, beginCell, type StateInit, storeStateInit } from '@ton/core';
import { type KeyPair, keyPairFromSeed, sign } from '@ton/crypto';
import { WalletContractV4, WalletContractV5R1 } from '@ton/ton';
import type { TonProofReply } from '../../src/chain/tonProof.js';

/** A wallet as a TON Connect wallet app holds it: a real key pair and a standard contract. */
export interface TestTonWallet {
  keys: KeyPair;
  address: Address;
  init: StateInit;
}

export function newTonWallet(version: 'v4r2' | 'v5r1' = 'v4r2', workchain = 0): TestTonWallet {
  const keys = keyPairFromSeed(randomBytes(32));
  const contract =
    version === 'v4r2'
      ? WalletContractV4.create({ workchain, publicKey: keys.publicKey })
      : WalletContractV5R1.create({ workchain, publicKey: keys.publicKey });
  return { keys, address: contract.address, init: contract.init };
}

export function stateInitBoc(init: StateInit): string {
  return beginCell().store(storeStateInit(init)).endCell().toBoc().toString('base64');
}

export interface ProofFields {
  payload: string;
  domain?: string;
  /** Unix seconds. */
  timestamp: number;
  network?: '-239' | '-3';
  /** Signs with these keys instead of the wallet's (a forged proof). */
  signer?: KeyPair;
}

/**
 * Signs a ton_proof exactly as the TON Connect spec tells wallets to, written here from the spec
 * rather than with the service's code:
 *   message = "ton-proof-item-v2/" ++ workchain (int32 BE) ++ hash (32 bytes)
 *             ++ domain length (uint32 LE) ++ domain ++ timestamp (uint64 LE) ++ payload
 *   signature = Ed25519.sign(sha256(0xffff ++ "ton-connect" ++ sha256(message)), privateKey)
 * and returns the body the Mini App forwards from TonConnect UI.
 */
export function signTonProof(wallet: TestTonWallet, fields: ProofFields): TonProofReply {
  const domain = fields.domain ?? 'handoff.test';
  const workchain = Buffer.alloc(4);
  workchain.writeInt32BE(wallet.address.workChain);
  const domainLength = Buffer.alloc(4);
  domainLength.writeUInt32LE(Buffer.byteLength(domain));
  const timestamp = Buffer.alloc(8);
  timestamp.writeBigUInt64LE(BigInt(fields.timestamp));
  const message = Buffer.concat([
    Buffer.from('ton-proof-item-v2/', 'utf8'),
    workchain,
    wallet.address.hash,
    domainLength,
    Buffer.from(domain, 'utf8'),
    timestamp,
    Buffer.from(fields.payload, 'utf8'),
  ]);
  const digest = sha256(
    Buffer.concat([Buffer.from([0xff, 0xff]), Buffer.from('ton-connect', 'utf8'), sha256(message)]),
  );
  const signature = sign(digest, (fields.signer ?? wallet.keys).secretKey);
  return {
    address: wallet.address.toRawString(),
    network: fields.network ?? '-3',
    public_key: wallet.keys.publicKey.toString('hex'),
    proof: {
      timestamp: fields.timestamp,
      domain: { lengthBytes: Buffer.byteLength(domain), value: domain },
      signature: signature.toString('base64'),
      payload: fields.payload,
      state_init: stateInitBoc(wallet.init),
    },
  };
}

/** Unix seconds of a date. */
export const unixSeconds = (date: Date): number => Math.floor(date.getTime() / 1000);

function sha256(data: Buffer): Buffer {
  return createHash('sha256').update(data).digest();
}
