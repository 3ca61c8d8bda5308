import type { Address, Transaction } from '@ton/core';
import { type AccountHistory, findSince } from './history.js';
import { readInternalTransfer, readTransferRequest } from './messages.js';

/**
 * Whether a jetton payout happened, from what the chain shows. A payout is two transactions after
 * the hot wallet's: the hot wallet's jetton wallet takes the transfer (and debits), then the
 * recipient's jetton wallet takes the internal_transfer (and credits). Either can fail: the first
 * (no jetton balance, too little TON attached) bounces the TON back to the hot wallet; the second
 * bounces to the first, which restores its balance. Only both succeeding is a payout.
 */
export interface JettonTransferRef {
  /** The owner that asked (the hot wallet). */
  owner: Address;
  /** The owner's jetton wallet of the master (the hot jetton wallet). */
  ownerJettonWallet: Address;
  /** The transfer's query id (see jettonQueryId): carried through both jetton wallets. */
  queryId: bigint;
  /**
   * The lt of the owner's transaction that sent the transfer (network mode: the batch's
   * internal_transfer transaction). The message was created there, so what it caused comes later:
   * the search never reads back past it.
   */
  sentLt: bigint;
}

export type JettonTransferOutcome =
  /** Not (yet) visible: still in flight, or the provider's history did not reach it. Ask again later. */
  | { status: 'pending'; reason: string }
  | {
      status: 'succeeded';
      amount: bigint;
      recipientJettonWallet: Address;
      /** Hashes (hex) of the hot jetton wallet's and the recipient jetton wallet's transactions. */
      senderTxHash: string;
      recipientTxHash: string;
    }
  /** Final: no jettons moved (the attached TON less fees came back to the hot wallet). */
  | { status: 'failed'; reason: string; txHash: string };

export async function confirmJettonTransfer(
  history: AccountHistory,
  ref: JettonTransferRef,
): Promise<JettonTransferOutcome> {
  const sent = await findSince(history, ref.ownerJettonWallet, ref.sentLt, (tx) => {
    const info = tx.inMessage?.info;
    if (info?.type !== 'internal' || info.bounced || !info.src.equals(ref.owner)) return false;
    // Created by the transaction at sentLt (its messages' created_lt follow its lt), not by an
    // earlier one with the same query id: a payout that failed and was sent again in a new batch
    // must be judged by the new request, even while an older failure is the newest match.
    if (info.createdLt <= ref.sentLt) return false;
    return readTransferRequest(tx.inMessage!.body)?.queryId === ref.queryId;
  });
  if (sent === 'too-far')
    return { status: 'pending', reason: "the hot jetton wallet's history is too long to search" };
  if (!sent) return { status: 'pending', reason: 'the hot jetton wallet has not processed the transfer yet' };
  const senderTxHash = sent.hash().toString('hex');
  const senderFailure = failure(sent);
  if (senderFailure)
    return { status: 'failed', reason: `hot jetton wallet: ${senderFailure}`, txHash: senderTxHash };
  const forwarded = [...sent.outMessages.values()].find(
    (m) => m.info.type === 'internal' && readInternalTransfer(m.body)?.queryId === ref.queryId,
  );
  if (forwarded?.info.type !== 'internal') {
    return {
      status: 'failed',
      reason: 'the hot jetton wallet sent no internal_transfer',
      txHash: senderTxHash,
    };
  }
  const recipientJettonWallet = forwarded.info.dest;
  const received = await findSince(history, recipientJettonWallet, sent.lt, (tx) => {
    const info = tx.inMessage?.info;
    if (info?.type !== 'internal' || info.bounced || !info.src.equals(ref.ownerJettonWallet)) return false;
    return readInternalTransfer(tx.inMessage!.body)?.queryId === ref.queryId;
  });
  if (received === 'too-far' || !received) {
    return { status: 'pending', reason: "the recipient's jetton wallet has not processed the transfer yet" };
  }
  const recipientTxHash = received.hash().toString('hex');
  const recipientFailure = failure(received);
  if (recipientFailure) {
    return {
      status: 'failed',
      reason: `recipient jetton wallet: ${recipientFailure}`,
      txHash: recipientTxHash,
    };
  }
  const amount = readInternalTransfer(received.inMessage!.body)!.amount;
  return { status: 'succeeded', amount, recipientJettonWallet, senderTxHash, recipientTxHash };
}

/** Exit codes of stablecoin-contract's jetton wallet (contracts/op-codes.fc). */
const EXIT_CODES: Record<number, string> = {
  45: 'the jetton wallet is locked',
  47: 'insufficient jetton balance',
  48: 'not enough TON attached for the transfer',
  49: 'invalid transfer message',
  73: 'not the owner',
  74: 'not a valid jetton wallet',
  333: 'wrong workchain',
};

/** Why a jetton wallet's transaction did not do its work, or null when it did. */
function failure(tx: Transaction): string | null {
  const d = tx.description;
  if (d.type !== 'generic') return `unexpected ${d.type} transaction`;
  if (d.computePhase.type !== 'vm') return `compute phase skipped (${d.computePhase.reason})`;
  if (!d.computePhase.success) {
    const code = d.computePhase.exitCode;
    return `${EXIT_CODES[code] ?? 'compute phase failed'} (exit code ${code})`;
  }
  if (d.aborted || !d.actionPhase?.success)
    return `action phase failed (result code ${d.actionPhase?.resultCode})`;
  return null;
}
