import type { Address, Transaction } from '@ton/core';
import { readTextComment } from './textComment.js';

/**
 * Helpers that read emulated transactions. The gateway reports what the chain recorded, not what
 * it asked for, so every send is checked against its transaction.
 */

/** The transaction of `account` in `txs` that an incoming message of the given kind started. */
export function findTransaction(
  txs: readonly Transaction[],
  account: Address,
  inKind: 'external-in' | 'internal',
): Transaction | undefined {
  const accountHash = BigInt(`0x${account.hash.toString('hex')}`);
  return txs.find((tx) => tx.address === accountHash && tx.inMessage?.info.type === inKind);
}

/**
 * Why a wallet's outgoing transaction did not send exactly one message, or null when it did.
 * Wallets send with IGNORE_ERRORS, so a transfer the wallet cannot pay for shows up as a
 * successful action phase that skipped its action and produced no message; hence the count check.
 */
export function sendFailure(tx: Transaction): string | null {
  const d = tx.description;
  if (d.type !== 'generic') return `unexpected ${d.type} transaction`;
  if (d.aborted) return 'transaction aborted';
  if (d.computePhase.type !== 'vm') return `compute phase skipped (${d.computePhase.reason})`;
  if (!d.computePhase.success) return `compute phase failed (exit code ${d.computePhase.exitCode})`;
  if (!d.actionPhase?.success) return `action phase failed (result code ${d.actionPhase?.resultCode})`;
  if (d.actionPhase.noFunds || tx.outMessagesCount !== 1) {
    return `no message was sent (insufficient balance? ${d.actionPhase.skippedActions} action(s) skipped)`;
  }
  return null;
}

/**
 * The text of a comment body (op 0 followed by UTF-8 text), or '' for any other body and for one
 * that cannot be read: the parser (./textComment.ts) never throws, whoever built the body.
 */
export { readTextComment };

export interface ReceivedTransfer {
  txHash: string;
  from: Address;
  to: Address;
  amountNano: bigint;
  comment: string;
}

/** What an account's transaction shows it received from an internal message, or null if it did not complete. */
export function readReceivedTransfer(tx: Transaction): ReceivedTransfer | null {
  const message = tx.inMessage;
  if (message?.info.type !== 'internal') return null;
  if (tx.description.type !== 'generic' || tx.description.aborted) return null;
  return {
    txHash: tx.hash().toString('hex'),
    from: message.info.src,
    to: message.info.dest,
    amountNano: message.info.value.coins,
    comment: readTextComment(message.body),
  };
}
