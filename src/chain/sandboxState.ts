import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import {
  type KeyPair,
  keyPairFromSecretKey,
  mnemonicNew,
  mnemonicToPrivateKey,
  mnemonicValidate,
} from '@ton/crypto';
import type { snapshotToSerializable } from '@ton/sandbox';
import type { TransferResult } from './gateway.js';
import type { JettonTransferResult } from './jetton/gateway.js';

/**
 * Files the sandbox gateway keeps in its state directory. The mnemonics live apart from the
 * chain state because they are secrets (mode 0600) written once; the snapshot and the transfer
 * record share one file so that they are always replaced together: a crash can never leave a
 * chain that shows a transfer next to a record that does not know it (which would let a retry
 * send it twice).
 */
const KEYS_FILE = 'wallet-keys.json';
const STATE_FILE = 'chain-state.json';
/** The key pairs derived from the mnemonics (a cache: deleting it costs one slower start). */
const DERIVED_KEYS_FILE = 'wallet-keys.derived.json';
const STATE_VERSION = 1;

/** The sandbox package does not export this type by name. */
type SerializableSnapshot = ReturnType<typeof snapshotToSerializable>;

export interface WalletMnemonics {
  hot: string[];
  deposit: string[];
  fee: string[];
}

export interface SandboxState {
  snapshot: SerializableSnapshot;
  transfers: Record<string, TransferResult>;
  /** Jetton payouts made, by transfer id (absent in files saved before the jetton existed). */
  jettonTransfers: Record<string, JettonTransferResult>;
}

/** JettonTransferResult with its amount as a decimal string (JSON has no bigint). */
type StoredJettonTransfer = Omit<JettonTransferResult, 'amount'> & { amount: string };

/** Loads the wallets' mnemonics, generating and saving fresh ones on first start. */
export async function loadOrCreateMnemonics(stateDir: string): Promise<WalletMnemonics> {
  const file = path.join(stateDir, KEYS_FILE);
  const text = await readIfExists(file);
  if (text !== null) {
    const parsed = JSON.parse(text) as Partial<WalletMnemonics>;
    const mnemonics = { hot: parsed.hot, deposit: parsed.deposit, fee: parsed.fee };
    for (const [name, words] of Object.entries(mnemonics)) {
      if (!Array.isArray(words) || !(await mnemonicValidate(words))) {
        throw new Error(`${file}: the ${name} wallet mnemonic is missing or invalid`);
      }
    }
    return mnemonics as WalletMnemonics;
  }
  const [hot, deposit, fee] = await Promise.all([mnemonicNew(), mnemonicNew(), mnemonicNew()]);
  const mnemonics: WalletMnemonics = { hot, deposit, fee };
  await writeFileAtomic(file, JSON.stringify({ version: STATE_VERSION, ...mnemonics }, null, 2), 0o600);
  return mnemonics;
}

export type WalletKeyPairs = Record<keyof WalletMnemonics, KeyPair>;

/**
 * The wallets' key pairs. Deriving one from its mnemonic is PBKDF2-SHA512 with 100,000 rounds
 * (about 100 ms of CPU each, three at every start), so the derived secret keys are kept next to
 * the mnemonics, as secret (0600), each with a hash of the words it came from: a mnemonic that
 * changed, or a missing or unreadable file, derives again and rewrites it. `derive` is the
 * derivation (a test counts calls or makes one fail).
 */
export async function loadOrDeriveKeyPairs(
  stateDir: string,
  mnemonics: WalletMnemonics,
  derive: (words: string[]) => Promise<KeyPair> = mnemonicToPrivateKey,
): Promise<WalletKeyPairs> {
  const file = path.join(stateDir, DERIVED_KEYS_FILE);
  const wordsHash = (words: string[]) => createHash('sha256').update(words.join(' ')).digest('hex');
  const names = Object.keys(mnemonics) as (keyof WalletMnemonics)[];
  let saved: Record<string, { words?: unknown; secretKey?: unknown } | undefined> = {};
  try {
    saved = JSON.parse(await readFile(file, 'utf8')) ?? {};
  } catch {
    // Missing or unreadable: derived again below.
  }
  const cached = (name: keyof WalletMnemonics): KeyPair | null => {
    const entry = saved[name];
    if (entry?.words !== wordsHash(mnemonics[name]) || typeof entry.secretKey !== 'string') return null;
    const secretKey = Buffer.from(entry.secretKey, 'hex');
    return secretKey.length === 64 ? keyPairFromSecretKey(secretKey) : null;
  };
  const fromCache = names.map(cached);
  const pairs = fromCache.every((pair) => pair !== null)
    ? fromCache
    : await Promise.all(names.map((name) => derive(mnemonics[name])));
  if (pairs !== fromCache) {
    const record = Object.fromEntries(
      names.map((name, i) => [
        name,
        { words: wordsHash(mnemonics[name]), secretKey: pairs[i]!.secretKey.toString('hex') },
      ]),
    );
    await writeFileAtomic(file, JSON.stringify(record, null, 2), 0o600);
  }
  return Object.fromEntries(names.map((name, i) => [name, pairs[i]!])) as WalletKeyPairs;
}

/** The saved chain state, or null on first start. */
export async function loadState(stateDir: string): Promise<SandboxState | null> {
  const file = path.join(stateDir, STATE_FILE);
  const text = await readIfExists(file);
  if (text === null) return null;
  const parsed = JSON.parse(text) as Partial<SandboxState> & { version?: number };
  if (parsed.version !== STATE_VERSION || !parsed.snapshot || typeof parsed.transfers !== 'object') {
    throw new Error(`${file}: unrecognized sandbox state (expected version ${STATE_VERSION})`);
  }
  const stored = (parsed as { jettonTransfers?: Record<string, StoredJettonTransfer> }).jettonTransfers ?? {};
  const jettonTransfers = Object.fromEntries(
    Object.entries(stored).map(([id, t]) => [id, { ...t, amount: BigInt(t.amount) }]),
  );
  return { snapshot: parsed.snapshot, transfers: parsed.transfers ?? {}, jettonTransfers };
}

export async function saveState(stateDir: string, state: SandboxState): Promise<void> {
  const jettonTransfers = Object.fromEntries(
    Object.entries(state.jettonTransfers).map(([id, t]) => [id, { ...t, amount: t.amount.toString() }]),
  );
  const text = JSON.stringify({ version: STATE_VERSION, ...state, jettonTransfers });
  await writeFileAtomic(path.join(stateDir, STATE_FILE), text, 0o600);
}

/** Creates the state directory, readable only by us since it holds wallet secrets. */
export async function ensureStateDir(stateDir: string): Promise<void> {
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
}

async function readIfExists(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/**
 * Write to a temp file, fsync, then rename over the target: readers (and a restart after a
 * crash) see either the old file or the new one, never a torn write.
 */
async function writeFileAtomic(file: string, text: string, mode: number): Promise<void> {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await open(tmp, 'wx', mode);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  await syncDir(path.dirname(file));
}

/** Makes the rename itself durable. Some platforms cannot fsync a directory; there it is skipped. */
async function syncDir(dir: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch {
    // Best effort only: the file contents are already synced.
  } finally {
    await handle?.close();
  }
}
