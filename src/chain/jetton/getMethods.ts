import { createHash } from 'node:crypto';
import { type Address, beginCell, type Cell, Dictionary, type TupleItem } from '@ton/core';
import type { JettonData } from './gateway.js';

/**
 * The jetton get methods' arguments and results (TEP-74), read from plain stacks so the same
 * readers serve the sandbox emulator and a provider's runGetMethod. Every reader checks what it
 * reads and throws a clear error on a stack it does not expect.
 */

/** get_wallet_address(owner_address: slice) */
export function walletAddressArgs(owner: Address): TupleItem[] {
  return [{ type: 'slice', cell: beginCell().storeAddress(owner).endCell() }];
}

export function readWalletAddress(stack: TupleItem[]): Address {
  const [item] = stack;
  if (item?.type !== 'slice' && item?.type !== 'cell')
    throw new Error('get_wallet_address: no address returned');
  return item.cell.beginParse().loadAddress();
}

/** get_wallet_data() -> (balance, owner, master, wallet_code): the balance. */
export function readWalletBalance(stack: TupleItem[]): bigint {
  const [item] = stack;
  if (item?.type !== 'int') throw new Error('get_wallet_data: no balance returned');
  return item.value;
}

/** get_jetton_data() -> (total_supply, mintable, admin_address, content, wallet_code) */
export function readJettonData(stack: TupleItem[]): JettonData {
  const [supply, mintable, admin, content, code] = stack;
  if (supply?.type !== 'int' || mintable?.type !== 'int')
    throw new Error('get_jetton_data: unexpected result');
  if (code?.type !== 'cell' && code?.type !== 'slice') throw new Error('get_jetton_data: no wallet code');
  let adminAddress: Address | null = null;
  if (admin?.type === 'slice' || admin?.type === 'cell')
    adminAddress = admin.cell.beginParse().loadMaybeAddress();
  const contentCell = content?.type === 'cell' || content?.type === 'slice' ? content.cell : null;
  return {
    totalSupply: supply.value,
    mintable: mintable.value !== 0n,
    admin: adminAddress,
    decimals: contentCell ? readOnchainDecimals(contentCell) : null,
    walletCodeHash: code.cell.hash().toString('hex'),
  };
}

/**
 * "decimals" from TEP-64 on-chain metadata (prefix 0x00, a dictionary from sha256(key) to a snake
 * value with prefix 0x00), or null when the content is off-chain or does not say.
 */
function readOnchainDecimals(content: Cell): number | null {
  try {
    const s = content.beginParse();
    if (s.loadUint(8) !== 0) return null;
    const dict = s.loadDict(Dictionary.Keys.BigUint(256), Dictionary.Values.Cell());
    const key = BigInt(`0x${sha256Hex('decimals')}`);
    const entry = dict.get(key);
    if (!entry) return null;
    const value = entry.beginParse();
    if (value.loadUint(8) !== 0) return null;
    const text = value.loadStringTail();
    return /^\d{1,2}$/.test(text) ? Number(text) : null;
  } catch {
    return null;
  }
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
