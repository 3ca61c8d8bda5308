import type { Address, Transaction } from '@ton/core';
import { cleanMemo } from '../textComment.js';
import type { AccountHistory } from './history.js';
import { readTransferNotification } from './messages.js';

/**
 * Incoming jetton transfers, as the deposit address sees them: a transfer_notification from a
 * jetton wallet. Anyone can deploy a jetton (or a plain contract) that sends the same message, so
 * a notification counts only when its sender is the deposit address's own jetton wallet of the
 * configured master; any other is `foreign` (listed for the operator, never credited).
 */
export interface JettonDeposit {
  /** The deposit address's transaction (hex hash, lt) that received the notification. */
  txHash: string;
  lt: bigint;
  /** The jetton amount the notification reports (smallest unit). */
  amount: bigint;
  /** The forward payload's text comment, cleaned as TON memos are (cleanMemo); '' when none. */
  memo: string;
  /** The jetton wallet that sent the notification. */
  senderJettonWallet: Address;
  /** The owner who sent the jettons, as that jetton wallet reports it (null: minted). */
  fromOwner: Address | null;
  /** True when the sender is not our own jetton wallet of the configured master. */
  foreign: boolean;
}

/**
 * The jetton deposit a transaction of the deposit address shows, or null when its incoming message
 * is not a readable transfer_notification. The deposit address's own transaction need not
 * succeed: the jettons were credited by its jetton wallet before the notification was sent.
 */
export function readJettonDeposit(tx: Transaction, ownJettonWallet: Address): JettonDeposit | null {
  const message = tx.inMessage;
  if (message?.info.type !== 'internal' || message.info.bounced) return null;
  const notice = readTransferNotification(message.body);
  if (!notice) return null;
  return {
    txHash: tx.hash().toString('hex'),
    lt: tx.lt,
    amount: notice.amount,
    memo: notice.comment.kind === 'text' ? cleanMemo(notice.comment.text) : '',
    senderJettonWallet: message.info.src,
    fromOwner: notice.sender,
    foreign: !message.info.src.equals(ownJettonWallet),
  };
}

/** The jetton deposits in one page of the deposit address's history (newest first). */
export async function listJettonDeposits(
  history: AccountHistory,
  depositAddress: Address,
  ownJettonWallet: Address,
  opts: { limit?: number; from?: { lt: bigint; hash: string } } = {},
): Promise<JettonDeposit[]> {
  const page = await history.page(depositAddress, Math.min(opts.limit ?? 20, 100), opts.from);
  return page.flatMap((tx) => readJettonDeposit(tx, ownJettonWallet) ?? []);
}
