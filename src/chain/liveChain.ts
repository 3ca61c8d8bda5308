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
}
