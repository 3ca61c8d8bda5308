import { createHash, randomBytes } from 'node:crypto';
import {
  Address,
  beginCell,
  Cell,
  external,
  internal,
  SendMode,
  type StateInit,
  storeMessage,
  storeStateInit,
} from '@ton/core';
import { type KeyPair, keyPairFromSeed, sign } from '@ton/crypto';
import { WalletContractV4, WalletContractV5R1 } from '@ton/ton';
import type { TonProofReply } from '../../src/chain/tonProof.js';

/** A wallet as a TON Connect wallet app holds it: a real key pair and a standard contract. */
export interface TestTonWallet {
  /** The standard contract (absent for hand-made contracts that only sign proofs). */
  version?: 'v4r2' | 'v5r1';
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
  return { version, keys, address: contract.address, init: contract.init };
}

/**
 * A TON Connect sendTransaction request's parameter as it reaches the wallet (the protocol's
 * field names: `valid_until`, not the dApp SDK's `validUntil`).
 */
export interface TransactionRequest {
  valid_until?: number;
  network?: string;
  from?: string;
  messages: { address: string; amount: string; payload?: string; stateInit?: string }[];
}

/**
 * What a wallet app does when the user approves a TON Connect sendTransaction: signs one external
 * message to its own contract that sends each requested message (the payload as the body, bounce
 * as the address's user-friendly form says, valid until the request's `valid_until`), with the
 * state init while the wallet is not deployed (seqno 0). Returns the message, ready for sendBoc;
 * its base64 BOC is the wallet's answer to the dApp.
 */
export function signWalletTransfer(wallet: TestTonWallet, request: TransactionRequest, seqno: number): Cell {
  const messages = request.messages.map((m) => {
    const to = Address.parseFriendly(m.address);
    return internal({
      to: to.address,
      value: BigInt(m.amount),
      bounce: to.isBounceable,
      body: m.payload ? Cell.fromBase64(m.payload) : undefined,
    });
  });
  if (!wallet.version) throw new Error('only a standard wallet contract (v4r2 or v5r1) signs transfers here');
  const sendMode = SendMode.PAY_GAS_SEPARATELY + SendMode.IGNORE_ERRORS;
  const workchain = wallet.address.workChain;
  const body =
    wallet.version === 'v5r1'
      ? WalletContractV5R1.create({ workchain, publicKey: wallet.keys.publicKey }).createTransfer({
          seqno,
          secretKey: wallet.keys.secretKey,
          sendMode,
          messages,
          timeout: request.valid_until,
        })
      : WalletContractV4.create({ workchain, publicKey: wallet.keys.publicKey }).createTransfer({
          seqno,
          secretKey: wallet.keys.secretKey,
          sendMode,
          messages,
          timeout: request.valid_until,
        });
  const message = external({ to: wallet.address, init: seqno === 0 ? wallet.init : undefined, body });
  return beginCell().store(storeMessage(message)).endCell();
}

/** The text of a comment cell (op 0 and UTF-8), as wallets show a transfer's comment; throws otherwise. */
export function readCommentPayload(boc: string): string {
  const slice = Cell.fromBase64(boc).beginParse();
  const op = slice.loadUint(32);
  if (op !== 0) throw new Error(`not a text comment: op ${op}`);
  return slice.loadStringTail();
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
