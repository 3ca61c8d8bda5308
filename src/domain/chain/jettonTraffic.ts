import type { Address, Transaction } from '@ton/core';
import { readExcesses, readTransferNotification } from '../../chain/jetton/messages.js';
import { cleanMemo } from '../../chain/textComment.js';

/**
 * What a hot-wallet transaction's incoming message is in jetton terms, read the same way by the
 * deposit watcher (jettonDeposits.ts) and by reconciliation (usdtChainHistory.ts), so the two
 * always book the same messages:
 * - `usdt`: a transfer_notification from the deposit address's own jetton wallet of the
 *   configured master: USDT arrived (the jetton wallet credited it before notifying);
 * - `foreign`: a transfer_notification from anything else (a look-alike jetton's wallet, or a
 *   plain wallet forging one): its jettons are not USDT, whatever it claims;
 * - `excesses`: TON a jetton wallet returns; ours when its query id is one of our payouts'.
 * Null: not jetton traffic (a bounce, a TON transfer, an unknown op): the TON rules apply.
 */
export type JettonTraffic =
  | {
      kind: 'usdt';
      amount: bigint;
      memo: string;
      unreadable: boolean;
      /** The owner who sent it, as our jetton wallet reports (null: minted by the master). */
      fromOwner: Address | null;
      jettonWallet: Address;
    }
  | { kind: 'foreign'; amount: bigint; memo: string; unreadable: boolean; jettonWallet: Address }
  | { kind: 'excesses'; queryId: bigint };

export function readJettonTraffic(tx: Transaction, ownJettonWallet: Address): JettonTraffic | null {
  const inMsg = tx.inMessage;
  // A bounce returns what the hot wallet sent: nobody's deposit (the TON rules ignore it too).
  if (inMsg?.info.type !== 'internal' || inMsg.info.bounced) return null;
  const notice = readTransferNotification(inMsg.body);
  if (notice) {
    const comment = notice.comment;
    const memo = comment.kind === 'text' ? cleanMemo(comment.text) : '';
    const unreadable = comment.kind === 'unreadable';
    const sender = inMsg.info.src;
    if (!sender.equals(ownJettonWallet))
      return { kind: 'foreign', amount: notice.amount, memo, unreadable, jettonWallet: sender };
    return {
      kind: 'usdt',
      amount: notice.amount,
      memo,
      unreadable,
      fromOwner: notice.sender,
      jettonWallet: sender,
    };
  }
  const excesses = readExcesses(inMsg.body);
  return excesses ? { kind: 'excesses', queryId: excesses.queryId } : null;
}
