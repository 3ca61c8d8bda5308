import type { Address } from '@ton/core';
import type { JettonTransferOutcome } from './confirm.js';
import type { JettonDeposit } from './deposits.js';

/**
 * The service's view of one jetton (USDT) on the chain, next to the TON ChainGateway
 * (`ChainGateway.jetton`; absent when the jetton is not enabled). Amounts are integers of the
 * jetton's smallest unit (USDT: 6 decimals); addresses are strings as `formatAddress` makes them,
 * except in the records read from transactions (JettonDeposit), which carry the chain's Address.
 */
export interface JettonGateway {
  readonly symbol: string;
  readonly decimals: number;
  /** The configured master (the real USDT master on mainnet; the sandbox's own "USDT (sandbox)"). */
  readonly masterAddress: string;

  /** The jetton wallet of `owner` for the master (get_wallet_address; cached: it never changes). */
  walletAddress(owner: string): Promise<string>;
  /** The jetton balance of `owner` (0 when its jetton wallet does not exist yet). */
  balance(owner: string): Promise<bigint>;
  /** The master's get_jetton_data. */
  jettonData(): Promise<JettonData>;

  /**
   * One page (newest first) of jetton transfer notifications the deposit address received,
   * each flagged `foreign` unless its sender is the deposit address's own jetton wallet.
   */
  listDeposits(opts?: { limit?: number; from?: { lt: bigint; hash: string } }): Promise<JettonDeposit[]>;

  /**
   * Whether the jetton payout `transferId` that the hot wallet sent in its transaction at `sentLt`
   * (network mode: the batch's internal_transfer transaction) arrived: succeeded, failed (final:
   * nothing moved), or pending (ask again later).
   */
  confirmTransfer(ref: { transferId: string; sentLt: bigint }): Promise<JettonTransferOutcome>;

  /**
   * Sandbox: pays `amount` from the hot wallet's jetton wallet, idempotent on `transferId` like
   * `ChainGateway.transfer`, and returns once the recipient's jetton wallet has it; throws when it
   * did not arrive (nothing moved; the caller retries). Networks throw: payouts go in Highload
   * batches (jettonPayoutMessage in ./payout.ts) sent by the chain sender.
   */
  transfer(req: JettonTransferRequest): Promise<JettonTransferResult>;
  /** Sandbox: the jetton payout already made under this id, or null. */
  findTransfer(transferId: string): Promise<JettonTransferResult | null>;
  /** Sandbox: mints `amount` to `owner` (the sandbox faucet). Networks throw. */
  mint(owner: string, amount: bigint): Promise<void>;
  /** Sandbox: an agent's wallet sends `amount` to the deposit address with `memo`. Networks throw. */
  sendTestDeposit(memo: string, amount: bigint): Promise<JettonDeposit>;
}

export interface JettonData {
  totalSupply: bigint;
  mintable: boolean;
  admin: Address | null;
  /** From the master's on-chain metadata when it states them (the stablecoin master does: 6). */
  decimals: number | null;
  /** Hex hash of the wallet code the master deploys (mainnet USDT: a library cell naming it). */
  walletCodeHash: string;
}

export interface JettonTransferRequest {
  transferId: string;
  /** The recipient's wallet (owner) address. */
  toAddress: string;
  amount: bigint;
  comment: string;
}

export interface JettonTransferResult {
  /** The hot wallet's transaction that sent it. */
  txHash: string;
  /** The recipient jetton wallet's transaction that credited it. */
  recipientTxHash: string;
  fromAddress: string;
  toAddress: string;
  amount: bigint;
}
