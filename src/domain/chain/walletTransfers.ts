import { type Address, beginCell, type Cell, storeMessage } from '@ton/core';
import { readTextComment } from '../../chain/sandboxTx.js';
import type { ChainTransaction } from '../../chain/toncenterClient.js';

/** A transfer someone else sent to the hot wallet that the wallet kept: a deposit to book. */
export interface IncomingTransfer {
  /** The hot wallet's transaction that received it (what the ledger and unmatched deposits hold). */
  hash: string;
  lt: bigint;
  from: Address;
  amountNano: bigint;
}

/** A transfer the hot wallet sent to someone else. */
export interface OutgoingTransfer {
  /** Hash of the out-message (what a PAYOUT or FEE row holds). */
  messageHash: string;
  /** The wallet transaction that sent it. */
  lt: bigint;
  to: Address;
  amountNano: bigint;
  comment: string;
}

/**
 * Splits the hot wallet's history into what came in and what went out, by the rules the
 * watcher (src/domain/chain/chainFollower.ts, recordDeposit) books them: an incoming transfer counts
 * when it is from another address, carries value, was not a bounce and was not bounced back;
 * an outgoing one is any internal message of a committed transaction to another address that is
 * not a bounce (a bounce returns an incoming transfer the wallet never kept). The wallet's
 * messages to itself (a batch's internal_transfer) are neither.
 */
export function walletTransfers(history: ChainTransaction[], wallet: Address) {
  const incoming = new Map<string, IncomingTransfer>();
  const outgoing = new Map<string, OutgoingTransfer>();
  for (const { tx, hash, lt } of history) {
    const inMsg = tx.inMessage;
    const generic = tx.description.type === 'generic';
    const bouncedBack = [...tx.outMessages.values()].some(
      (out) => out.info.type === 'internal' && out.info.bounced,
    );
    if (
      inMsg?.info.type === 'internal' &&
      !inMsg.info.src.equals(wallet) &&
      !inMsg.info.bounced &&
      inMsg.info.value.coins > 0n &&
      generic &&
      !bouncedBack
    ) {
      incoming.set(hash, { hash, lt, from: inMsg.info.src, amountNano: inMsg.info.value.coins });
    }
    if (tx.description.type !== 'generic' || tx.description.aborted) continue;
    for (const out of tx.outMessages.values()) {
      if (out.info.type !== 'internal' || out.info.bounced || out.info.dest.equals(wallet)) continue;
      const messageHash = beginCell().store(storeMessage(out)).endCell().hash().toString('hex');
      outgoing.set(messageHash, {
        messageHash,
        lt,
        to: out.info.dest,
        amountNano: out.info.value.coins,
        comment: commentOf(out.body),
      });
    }
  }
  return { incoming, outgoing };
}

/** The text comment, or '' when the body is not one a wallet app shows (anyone can craft a body). */
function commentOf(body: Cell): string {
  try {
    return readTextComment(body);
  } catch {
    return '';
  }
}
