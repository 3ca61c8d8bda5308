import type { Address } from '@ton/core';
import type { HighloadWallet } from './highloadWallet.js';
import type { ToncenterClient } from './toncenterClient.js';

/** What the network-mode loops (sender, follower) need from the chain side. */
export interface LiveChain {
  client: ToncenterClient;
  wallet: HighloadWallet;
  feeAddress: Address;
  /** The chain's clock as we estimate it (unix seconds); the fake's clock in tests. */
  nowSeconds(): number;
  /** Messages are signed this far in the past, because providers' clocks lag (seconds). */
  createdAtLagSec: number;
  /** How often the loops poll the provider. */
  pollMs: number;
  /** How often a not-yet-landed message is sent again (resending is always safe). */
  resendMs: number;
  /** Pages the wallet follower may ask for per round (its walk back to its cursor); see below. */
  walkRequestsPerRound?: number;
}

/** The follower never takes more than this many requests in a round, however generous the budget. */
const MAX_WALK_REQUESTS = 20;

/**
 * The follower's share of the provider: half of the requests the budget allows in one poll
 * interval (at least one), so the payout sender, which shares the budget, always has the other
 * half. At the public toncenter's 1 request/s and a 3 s poll that is 1 page (30 transactions)
 * a round; with a key (8/s), 12.
 */
export function walkRequestsPerRound(requestsPerSecond: number, pollMs: number): number {
  const perPoll = Math.floor((requestsPerSecond * pollMs) / 1000 / 2);
  return Math.max(1, Math.min(MAX_WALK_REQUESTS, perPoll));
}
