import { Cell, CellType, loadStateInit, type Slice, type StateInit } from '@ton/core';
import { WalletContractV4, WalletContractV5R1 } from './walletContracts.js';

/** The wallet contracts whose state init we can read a public key from. */
export type WalletVersion = 'v4r2' | 'v5r1';

interface KnownWallet {
  version: WalletVersion;
  codeHash: Buffer;
  /** Reads the owner's Ed25519 public key from the contract's initial data. */
  readPublicKey(data: Slice): Buffer;
}

const ANY_KEY = Buffer.alloc(32);

// The codes come from @ton/ton itself, so they are the exact contracts wallets deploy.
const KNOWN_WALLETS: readonly KnownWallet[] = [
  {
    version: 'v4r2',
    codeHash: WalletContractV4.create({ workchain: 0, publicKey: ANY_KEY }).init.code.hash(),
    // seqno:uint32 subwallet_id:uint32 public_key:bits256 plugins:(HashmapE 256 ...)
    readPublicKey: (data) => data.skip(32 + 32).loadBuffer(32),
  },
  {
    version: 'v5r1',
    codeHash: WalletContractV5R1.create({ workchain: 0, publicKey: ANY_KEY }).init.code.hash(),
    // is_signature_allowed:bit seqno:uint32 wallet_id:int32 public_key:bits256 extensions:(HashmapE ...)
    readPublicKey: (data) => data.skip(1 + 32 + 32).loadBuffer(32),
  },
];

export const SUPPORTED_WALLETS = KNOWN_WALLETS.map((w) => w.version);

/** Parses a base64 BOC holding a StateInit; null when it is not one. */
export function parseStateInit(base64: string): StateInit | null {
  try {
    const cells = Cell.fromBoc(Buffer.from(base64, 'base64'));
    if (cells.length !== 1 || !cells[0]) return null;
    return loadStateInit(cells[0].beginParse());
  } catch {
    return null;
  }
}

/**
 * The wallet version and owner public key of a standard wallet's state init, or null when its
 * code is not a wallet we know (then we cannot tell whose key the data holds).
 */
export function walletPublicKey(stateInit: StateInit): { version: WalletVersion; publicKey: Buffer } | null {
  if (!stateInit.code || !stateInit.data) return null;
  const codeHash = effectiveCodeHash(stateInit.code);
  const wallet = KNOWN_WALLETS.find((w) => w.codeHash.equals(codeHash));
  if (!wallet) return null;
  try {
    return { version: wallet.version, publicKey: wallet.readPublicKey(stateInit.data.beginParse()) };
  } catch {
    return null;
  }
}

/**
 * Some wallets deploy their code as a library cell that only names the code by its hash; the
 * code run is then the one with that hash, so we compare that.
 */
function effectiveCodeHash(code: Cell): Buffer {
  if (code.type === CellType.Library) return code.beginParse(true).skip(8).loadBuffer(32);
  return code.hash();
}
