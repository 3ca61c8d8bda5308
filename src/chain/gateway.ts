/**
 * The service's view of the TON blockchain. The domain talks only to this interface; the
 * implementation is chosen by TON_NETWORK (the in-process sandbox by default, a public API
 * provider for testnet/mainnet later).
 *
 * Amounts are integer nanotons. Addresses are user-friendly strings as produced by
 * `formatAddress` in ./address.ts. Transaction hashes are lowercase hex.
 */
import type { JettonGateway } from './jetton/gateway.js';
import type { LiveChain } from './liveChain.js';

export type TonNetwork = 'sandbox' | 'testnet' | 'mainnet';

export interface TransferRequest {
  /** Our id for this transfer (the ledger transaction id). The gateway is idempotent on it. */
  transferId: string;
  toAddress: string;
  amountNano: bigint;
  /** Text comment carried by the message; shown in the recipient's wallet. */
  comment: string;
}

export interface TransferResult {
  /** Hash of the platform wallet's transaction that sent the transfer. */
  txHash: string;
  fromAddress: string;
  toAddress: string;
}

export interface ChainDeposit {
  /** Hash of the deposit wallet's transaction that received the transfer. */
  txHash: string;
  fromAddress: string;
  toAddress: string;
  /** The value the deposit wallet received, as the chain recorded it. */
  amountNano: bigint;
  /** The text comment of the incoming message (the agent's deposit memo). */
  memo: string;
}

export interface ChainGateway {
  readonly network: TonNetwork;
  /** The platform's hot wallet: pays rewards and fees. */
  readonly hotWalletAddress: string;
  /** Where agents send top-ups, each with its agent's memo as the comment. */
  readonly depositAddress: string;
  /** Where platform fees go. */
  readonly feeAddress: string;

  /**
   * Sends `amountNano` from the hot wallet. Idempotent on `transferId`: when a transfer with
   * this id was already sent (even before a crash and restart), it returns that transfer's
   * result and sends nothing. Throws when the transfer could not be sent; the caller retries.
   */
  transfer(req: TransferRequest): Promise<TransferResult>;

  /** The transfer already sent under this id, or null. */
  findTransfer(transferId: string): Promise<TransferResult | null>;

  /** Balance of any address, read from the chain (0 for an address the chain has never seen). */
  getBalance(address: string): Promise<bigint>;

  /**
   * Sandbox only: a faucet wallet sends `amountNano` to the deposit wallet with `memo` as the
   * comment, and the result is what the deposit wallet's incoming transaction shows.
   * Other networks throw: real deposits arrive from agents' own wallets.
   */
  sendTestDeposit(memo: string, amountNano: bigint): Promise<ChainDeposit>;

  /**
   * Network mode only (testnet/mainnet): the provider client and the Highload payout wallet.
   * Transfers are then sent in persisted batches by src/domain/chain/chainSender.ts and confirmed by
   * src/domain/chain/chainFollower.ts, not through `transfer`.
   */
  readonly live?: LiveChain;

  /**
   * The USDT jetton (src/chain/jetton/gateway.ts): always in the sandbox, which deploys its own
   * "USDT (sandbox)"; on the networks when a master is configured. Absent: USDT is not enabled.
   */
  readonly jetton?: JettonGateway;

  /** Persists state and releases resources. */
  close(): Promise<void>;
}
