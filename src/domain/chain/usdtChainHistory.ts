import type { Address, Cell, Transaction } from '@ton/core';
import {
  JETTON_OP,
  readForwardPayload,
  readInternalTransfer,
  readTransferRequest,
} from '../../chain/jetton/messages.js';
import type { LiveChain } from '../../chain/liveChain.js';
import type { ChainTransaction } from '../../chain/toncenterClient.js';
import type { DomainContext } from '../context.js';
import { readJettonTraffic } from './jettonTraffic.js';
import { isOurJettonQueryId } from './ourJettonTransfers.js';
import type { UsdtChainHistory } from './reconciliation.js';
import { usdtDepositWallet, usdtJetton } from './usdtWallet.js';
import type { IncomingTransfer, OutgoingTransfer } from './walletTransfers.js';

/**
 * What of the hot wallet's TON traffic is USDT's, for TON reconciliation to leave out:
 * - `incoming`: transactions that brought no TON of anyone's as far as the TON books go: our own
 *   jetton wallet's USDT notifications (their forwarded TON is the sender's gas) and our payouts'
 *   excesses (our own gas coming back); the watcher books neither as TON (jettonDeposits.ts);
 * - `jettonWallet`: our own jetton wallet, to which the hot wallet sends each jetton payout with
 *   its TON for gas: no TON payout (the USDT side checks what those messages moved).
 * Nothing while USDT is off: then the TON rules book all of it.
 */
export async function usdtInTonTraffic(
  ctx: DomainContext,
  history: ChainTransaction[],
): Promise<{ incoming: Set<string>; jettonWallet: Address | null }> {
  const incoming = new Set<string>();
  const jetton = usdtJetton(ctx);
  if (!jetton) return { incoming, jettonWallet: null };
  const own = await usdtDepositWallet(ctx, jetton);
  for (const { tx, hash } of history) {
    const t = readJettonTraffic(tx, own);
    if (t?.kind === 'usdt' || (t?.kind === 'excesses' && (await isOurJettonQueryId(ctx.db, t.queryId))))
      incoming.add(hash);
  }
  return { incoming, jettonWallet: own };
}

/**
 * USDT as the chain shows it (network mode), for reconciliation:
 * - incoming: every USDT notification from our own jetton wallet with an amount, by the hot
 *   wallet's transaction hash (what DEPOSIT rows and unmatched USDT deposits keep);
 * - outgoing: every transfer the hot wallet asked its jetton wallet for that the jetton wallet
 *   carried out, by that jetton wallet's transaction hash (what USDT PAYOUT and FEE rows keep),
 *   with the amount, the destination owner and the comment; a transfer whose internal_transfer
 *   bounced back (the recipient's jetton wallet refused it) moved nothing and is left out;
 * - processedThroughLt: the hot wallet watcher's cursor, as for TON (the caller's).
 */
export function networkUsdtHistory(ctx: DomainContext, live: LiveChain): UsdtChainHistory | null {
  const jetton = usdtJetton(ctx);
  if (!jetton) return null;
  return {
    async read(hotHistory, readAccount, processedThroughLt) {
      const own = await usdtDepositWallet(ctx, jetton);
      const incoming = new Map<string, IncomingTransfer>();
      for (const { tx, hash, lt } of hotHistory) {
        const t = readJettonTraffic(tx, own);
        if (t?.kind !== 'usdt' || t.amount <= 0n) continue;
        incoming.set(hash, { hash, lt, from: t.fromOwner ?? t.jettonWallet, amountNano: t.amount });
      }
      const outgoing = jettonWalletTransfers(await readAccount(own), live.wallet.address);
      return { incoming, outgoing, processedThroughLt };
    },
  };
}

/** The transfers out of the hot jetton wallet that moved USDT (see networkUsdtHistory). */
export function jettonWalletTransfers(history: ChainTransaction[], owner: Address) {
  const outgoing = new Map<string, OutgoingTransfer>();
  const byQuery = new Map<bigint, string>();
  const returned = new Set<bigint>();
  for (const { tx, hash, lt } of history) {
    const inMsg = tx.inMessage;
    if (inMsg?.info.type !== 'internal') continue;
    if (inMsg.info.bounced) {
      const queryId = bouncedInternalTransfer(inMsg.body);
      if (queryId !== null && succeeded(tx)) returned.add(queryId);
      continue;
    }
    if (!inMsg.info.src.equals(owner) || !succeeded(tx)) continue;
    const request = readTransferRequest(inMsg.body);
    const sent = [...tx.outMessages.values()].some(
      (m) => m.info.type === 'internal' && readInternalTransfer(m.body)?.queryId === request?.queryId,
    );
    if (!request || !sent) continue;
    outgoing.set(hash, {
      messageHash: hash,
      lt,
      to: request.destination,
      amountNano: request.amount,
      comment: transferComment(inMsg.body),
    });
    byQuery.set(request.queryId, hash);
  }
  for (const queryId of returned) {
    const hash = byQuery.get(queryId);
    if (hash) outgoing.delete(hash);
  }
  return outgoing;
}

function succeeded(tx: Transaction): boolean {
  const d = tx.description;
  return (
    d.type === 'generic' &&
    !d.aborted &&
    d.computePhase.type === 'vm' &&
    d.computePhase.success &&
    d.actionPhase?.success === true
  );
}

/** A bounced internal_transfer's query id (0xffffffff, then the bounced body's head), or null. */
function bouncedInternalTransfer(body: Cell): bigint | null {
  try {
    const s = body.beginParse();
    if (s.loadUint(32) !== 0xffffffff) return null;
    // A bounce keeps only the first 256 bits of the body: the op and query id are enough.
    if (s.loadUint(32) !== JETTON_OP.internalTransfer) return null;
    return s.loadUintBig(64);
  } catch {
    return null;
  }
}

/** The text comment of a transfer request's forward payload ('' when none), as payouts write it. */
function transferComment(body: Cell): string {
  try {
    const s = body.beginParse();
    if (s.loadUint(32) !== JETTON_OP.transfer) return '';
    s.loadUintBig(64);
    s.loadCoins();
    s.loadAddress();
    s.loadMaybeAddress();
    s.loadMaybeRef(); // custom payload
    s.loadCoins(); // forward_ton_amount
    const comment = readForwardPayload(s);
    return comment.kind === 'text' ? comment.text : '';
  } catch {
    return '';
  }
}
