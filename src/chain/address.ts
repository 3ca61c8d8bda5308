import { Address } from '@ton/core';
import type { TonNetwork } from './gateway.js';

/**
 * The one workchain a payout wallet may live in. A masterchain (-1) wallet takes TON, but USDT's
 * jetton wallets refuse it ("wrong workchain", exit code 333): each attempt of its payout burns
 * the attached gas and can never succeed (issue 35, finding 2). Base-chain wallets are the norm.
 */
export const PAYOUT_WORKCHAIN = 0;

/** Why `address` cannot receive payouts (its workchain), or null when it can. */
export function payoutWorkchainProblem(address: Address): string | null {
  if (address.workChain === PAYOUT_WORKCHAIN) return null;
  return `is in workchain ${address.workChain}; payouts go to workchain ${PAYOUT_WORKCHAIN} wallets only (USDT cannot be paid to another workchain): use a regular wallet, whose raw address starts with ${PAYOUT_WORKCHAIN}:`;
}

/**
 * Parses a payout wallet address in any accepted form (raw `0:abc...`, or user-friendly
 * base64/base64url) and returns it in one canonical form, or why it cannot be one: not an address,
 * or not in the payout workchain.
 */
export function normalizeAddress(
  input: string,
  network: TonNetwork,
): { address: string; problem?: undefined } | { address?: undefined; problem: string } {
  const trimmed = input.trim();
  let parsed: Address | null = null;
  if (trimmed.length > 0 && trimmed.length <= 100) {
    try {
      parsed = Address.parse(trimmed);
    } catch {
      parsed = null;
    }
  }
  if (!parsed) return { problem: 'is not a valid TON address (raw 0:<hex> or user-friendly form)' };
  const problem = payoutWorkchainProblem(parsed);
  return problem ? { problem } : { address: formatAddress(parsed, network) };
}

/**
 * Wallets receive to non-bounceable addresses (`UQ...`), the form wallets display; testnet and
 * sandbox addresses carry the test-only flag so they cannot be pasted into a mainnet wallet.
 */
export function formatAddress(address: Address, network: TonNetwork): string {
  return address.toString({ bounceable: false, urlSafe: true, testOnly: network !== 'mainnet' });
}
