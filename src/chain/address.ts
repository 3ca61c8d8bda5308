import { Address } from '@ton/core';
import type { TonNetwork } from './gateway.js';

/**
 * Parses a TON address in any accepted form (raw `0:abc...`, or user-friendly base64/base64url)
 * and returns it in one canonical form, or null when it is not a valid address.
 */
export function normalizeAddress(input: string, network: TonNetwork): string | null {
  const trimmed = input.trim();
  if (trimmed.length === 0 || trimmed.length > 100) return null;
  try {
    return formatAddress(Address.parse(trimmed), network);
  } catch {
    return null;
  }
}

/**
 * Wallets receive to non-bounceable addresses (`UQ...`), the form wallets display; testnet and
 * sandbox addresses carry the test-only flag so they cannot be pasted into a mainnet wallet.
 */
export function formatAddress(address: Address, network: TonNetwork): string {
  return address.toString({ bounceable: false, urlSafe: true, testOnly: network !== 'mainnet' });
}
