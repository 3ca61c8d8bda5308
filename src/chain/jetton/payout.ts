import { createHash } from 'node:crypto';
import type { Address } from '@ton/core';
import type { HighloadMessage } from '../highloadWallet.js';
import { jettonTransferBody } from './messages.js';

/**
 * TON attached to each jetton transfer the hot wallet sends. Measured on the emulator with the
 * stablecoin contracts (test/chain/jettonGas.test.ts; the table is in ./README.md): a payout to a
 * recipient whose jetton wallet does not exist yet consumes 0.0196 TON of it (fees 0.0135 plus the
 * 0.0061 the new jetton wallet keeps for storage), to an existing one 0.0135 TON; the jetton wallet
 * refuses anything under 0.0161 TON (its own worst-case estimate, exit code 48). 0.05 TON is 2.5x
 * the most consumed: fees are network config parameters that validators can vote up, and a
 * transfer refused for too little TON would have to be re-issued. The margin costs nothing: what
 * is not consumed comes back to the hot wallet as `excesses` in the same trace.
 */
export const JETTON_TRANSFER_TON_NANO = 50_000_000n;
/**
 * TON forwarded to the recipient with transfer_notification. One nanoton is what wallet apps send:
 * it makes the recipient's jetton wallet notify the owner, so the comment shows in their wallet.
 */
export const JETTON_FORWARD_TON_NANO = 1n;

/**
 * The query id of a transfer's jetton messages: the first 8 bytes of SHA-256 of our transfer id
 * (the ledger transaction id). The same for every batch the transfer goes into, unique per
 * transfer (2^-64 collisions), and found again in both jetton wallets' transactions.
 */
export function jettonQueryId(transferId: string): bigint {
  return createHash('sha256').update(transferId).digest().readBigUInt64BE(0);
}

export interface JettonPayout {
  transferId: string;
  /** The hot wallet's own jetton wallet of the configured master (get_wallet_address). */
  hotJettonWallet: Address;
  /** The hot wallet: where the TON not consumed comes back. */
  hotWallet: Address;
  /** The recipient's wallet (owner) address. */
  toOwner: Address;
  amount: bigint;
  comment: string;
}

/** One jetton payout as a message of a Highload batch: to the hot jetton wallet, bounceable. */
export function jettonPayoutMessage(p: JettonPayout): HighloadMessage {
  return {
    to: p.hotJettonWallet,
    valueNano: JETTON_TRANSFER_TON_NANO,
    // Bounceable: a transfer the jetton wallet refuses returns its TON to the hot wallet.
    bounce: true,
    body: jettonTransferBody({
      queryId: jettonQueryId(p.transferId),
      amount: p.amount,
      destination: p.toOwner,
      responseDestination: p.hotWallet,
      forwardTonNano: JETTON_FORWARD_TON_NANO,
      comment: p.comment,
    }),
  };
}
