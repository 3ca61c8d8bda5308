import { createHash } from 'node:crypto';
import { Address, contractAddress } from '@ton/core';
import { signVerify } from '@ton/crypto';
import { invalid } from '../domain/errors.js';
import { formatAddress, payoutWorkchainProblem } from './address.js';
import type { TonNetwork } from './gateway.js';
import { parseStateInit, SUPPORTED_WALLETS, type WalletVersion, walletPublicKey } from './walletStateInit.js';

/**
 * What the Mini App forwards from TON Connect (`wallet.account` and
 * `wallet.connectItems.tonProof.proof`). Field names follow the TON Connect wire format.
 */
export interface TonProofReply {
  /** Raw form, `0:<64 hex>`. */
  address: string;
  /** TON Connect chain id: "-239" mainnet, "-3" testnet. */
  network: string;
  /** The wallet's Ed25519 public key, hex. */
  public_key: string;
  proof: {
    /** Unix seconds of the signing: a number from the SDK, a decimal string on the wire. */
    timestamp: number | string;
    domain: { lengthBytes: number; value: string };
    /** Base64 Ed25519 signature. */
    signature: string;
    /** The challenge the service issued. */
    payload: string;
    /** Base64 BOC of the wallet's StateInit. */
    state_init: string;
  };
}

export interface TonProofOptions {
  /** Hosts (with a port when not the default one) the proof may be made for. */
  allowedDomains: readonly string[];
  now: Date;
  /** How old a signature may be. */
  maxAgeMs: number;
  /** Our network: mainnet wants chain -239, testnet -3, the sandbox takes either. */
  network: TonNetwork;
}

export interface VerifiedWallet {
  /** In the service's canonical form (formatAddress). */
  address: string;
  publicKey: string;
  version: WalletVersion;
}

/** Wallet and server clocks differ a little; a signature further in the future is refused. */
export const MAX_CLOCK_SKEW_MS = 5 * 60_000;
const TON_PROOF_PREFIX = 'ton-proof-item-v2/';
const TON_CONNECT_PREFIX = 'ton-connect';
const CHAIN_OF: Partial<Record<TonNetwork, string>> = { mainnet: '-239', testnet: '-3' };

/**
 * Checks a TON Connect `ton_proof` the way the TON Connect docs prescribe, with no network
 * access: the domain and age of the proof, then the wallet from its state init (known wallet
 * code, its address is the claimed one, its key is the claimed one), then the signature by that
 * key. The payload is only signed over here; whether it is a live challenge is the caller's check.
 * Throws a validation DomainError naming the failing field.
 */
export function verifyTonProof(reply: TonProofReply, options: TonProofOptions): VerifiedWallet {
  const expectedChain = CHAIN_OF[options.network];
  if (expectedChain && reply.network !== expectedChain) {
    throw invalid('network', `must be ${expectedChain}: this service runs on TON ${options.network}`);
  }
  const address = parseAddress(reply.address);
  // Checked first: a valid proof of a masterchain wallet is still no wallet to pay (finding 2).
  const workchainProblem = payoutWorkchainProblem(address);
  if (workchainProblem) throw invalid('address', workchainProblem);
  checkDomain(reply.proof.domain, options.allowedDomains);
  const timestamp = checkTimestamp(reply.proof.timestamp, options);

  const stateInit = parseStateInit(reply.proof.state_init);
  if (!stateInit) throw invalid('proof/state_init', 'is not a base64 BOC of a StateInit');
  const wallet = walletPublicKey(stateInit);
  if (!wallet) {
    throw invalid(
      'proof/state_init',
      `is not a wallet contract this service knows (supported: ${SUPPORTED_WALLETS.join(', ')})`,
    );
  }
  if (!contractAddress(address.workChain, stateInit).equals(address)) {
    throw invalid('proof/state_init', 'is not the state init of the given address');
  }
  if (
    !/^[0-9a-fA-F]{64}$/.test(reply.public_key) ||
    !wallet.publicKey.equals(Buffer.from(reply.public_key, 'hex'))
  ) {
    throw invalid('public_key', "is not the public key in the wallet's state init");
  }

  const signature = Buffer.from(reply.proof.signature, 'base64');
  if (
    signature.length !== 64 ||
    !signVerify(signedHash(address, { ...reply.proof, timestamp }), signature, wallet.publicKey)
  ) {
    throw invalid('proof/signature', "is not the wallet key's signature of this proof");
  }
  return {
    address: formatAddress(address, options.network),
    publicKey: wallet.publicKey.toString('hex'),
    version: wallet.version,
  };
}

/**
 * What the wallet signs: sha256(0xffff ++ "ton-connect" ++ sha256(message)), where message =
 * "ton-proof-item-v2/" ++ workchain (int32 BE) ++ hash (32 bytes) ++ domain length (uint32 LE)
 * ++ domain ++ timestamp (uint64 LE) ++ payload.
 */
export function signedHash(
  address: Address,
  proof: { timestamp: number; domain: TonProofReply['proof']['domain']; payload: string },
) {
  const workchain = Buffer.alloc(4);
  workchain.writeInt32BE(address.workChain);
  const domainLength = Buffer.alloc(4);
  domainLength.writeUInt32LE(proof.domain.lengthBytes);
  const timestamp = Buffer.alloc(8);
  timestamp.writeBigUInt64LE(BigInt(proof.timestamp));
  const message = Buffer.concat([
    Buffer.from(TON_PROOF_PREFIX),
    workchain,
    address.hash,
    domainLength,
    Buffer.from(proof.domain.value),
    timestamp,
    Buffer.from(proof.payload),
  ]);
  return sha256(Buffer.concat([Buffer.from([0xff, 0xff]), Buffer.from(TON_CONNECT_PREFIX), sha256(message)]));
}

function sha256(data: Buffer): Buffer {
  return createHash('sha256').update(data).digest();
}

function parseAddress(raw: string): Address {
  try {
    return Address.parse(raw.trim());
  } catch {
    throw invalid('address', 'is not a valid TON address (TON Connect sends the raw form 0:<hex>)');
  }
}

function checkDomain(domain: TonProofReply['proof']['domain'], allowed: readonly string[]): void {
  if (domain.lengthBytes !== Buffer.byteLength(domain.value)) {
    throw invalid('proof/domain/lengthBytes', 'must be the UTF-8 byte length of domain.value');
  }
  const value = domain.value.toLowerCase();
  if (!allowed.some((d) => d.toLowerCase() === value)) {
    throw invalid('proof/domain/value', `is not this service's domain (${allowed.join(', ')})`);
  }
}

/** Returns the signing time in Unix seconds once it is fresh. */
function checkTimestamp(raw: number | string, options: TonProofOptions): number {
  const seconds = typeof raw === 'string' && /^[0-9]{1,15}$/.test(raw) ? Number(raw) : raw;
  if (typeof seconds !== 'number' || !Number.isSafeInteger(seconds) || seconds < 0) {
    throw invalid('proof/timestamp', 'must be a Unix time in whole seconds');
  }
  const signedAtMs = seconds * 1000;
  const nowMs = options.now.getTime();
  if (nowMs - signedAtMs > options.maxAgeMs) {
    const minutes = Math.round(options.maxAgeMs / 60_000);
    throw invalid(
      'proof/timestamp',
      `is too old: sign a new proof (proofs are valid for ${minutes} minutes)`,
    );
  }
  if (signedAtMs - nowMs > MAX_CLOCK_SKEW_MS) {
    throw invalid('proof/timestamp', "is in the future; check the device's clock and sign a new proof");
  }
  return seconds;
}
