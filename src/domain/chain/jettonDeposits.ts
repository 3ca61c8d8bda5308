import type { Address } from '@ton/core';
import { formatAddress } from '../../chain/address.js';
import type { LiveChain } from '../../chain/liveChain.js';
import type { ChainTransaction } from '../../chain/toncenterClient.js';
import { findAgent } from '../../db/repositories/agents.js';
import { balanceOf } from '../../db/repositories/balances.js';
import { findLedgerRowByHash } from '../../db/repositories/ledger.js';
import { insertUnmatchedDeposit, type UnmatchedDepositRow } from '../../db/repositories/unmatchedDeposits.js';
import { creditChainDeposit, depositLimits } from '../agents/agents.js';
import type { DomainContext } from '../context.js';
import { isIdOf } from '../ids.js';
import { clipText } from '../text.js';
import { type JettonTraffic, readJettonTraffic } from './jettonTraffic.js';
import { isOurJettonQueryId } from './ourJettonTransfers.js';
import { usdtDepositWallet, usdtJetton } from './usdtWallet.js';

/** As for TON memos: an unmatched deposit keeps this many characters of its memo. */
const MAX_STORED_MEMO = 200;

/** What the TON rules say the hot wallet kept from a message (chainFollower's incomingValue). */
type KeptValue = (item: ChainTransaction) => { from: Address; amountNano: bigint } | null;

/**
 * Network mode with USDT on: books a hot-wallet transaction that is jetton traffic and returns
 * true, or returns false for the TON rules (always false while USDT is off, so hostile jetton
 * traffic then stays what it was: its TON kept as unmatched TON).
 * - USDT from our own jetton wallet: credited to the memo's agent in USDT, once per hot-wallet
 *   transaction hash (the ledger's unique hash), or kept as an unmatched USDT deposit; the few
 *   TON forwarded with the notification are the sender's gas for it, not a TON deposit.
 * - A foreign notification: kept as `foreign_jetton` (the TON it brought, what it claimed), never
 *   credited, whatever memo it names.
 * - Our payouts' `excesses`: gas coming back, booked nowhere. Anyone else's: the TON rules.
 */
export async function recordJettonTraffic(
  ctx: DomainContext,
  live: LiveChain,
  item: ChainTransaction,
  kept: KeptValue,
): Promise<boolean> {
  const traffic = await jettonTrafficOf(ctx, item);
  if (!traffic) return false;
  if (traffic.kind === 'excesses') return isOurJettonQueryId(ctx.db, traffic.queryId);
  if (traffic.kind === 'foreign') {
    await keepForeign(ctx, item, traffic, kept);
    return true;
  }
  if (traffic.amount <= 0n) return true; // no USDT moved: nothing to book
  // A replayed round (the cursor is saved every 100 transactions) finds its credit here first:
  // the limits below may read differently now, and must not turn a credit into an unmatched row.
  if (await findLedgerRowByHash(ctx.db, item.hash)) return true;
  const agent = isIdOf('agent', traffic.memo) ? await findAgent(ctx.db, traffic.memo) : undefined;
  const limits = depositLimits(ctx, 'USDT');
  let reason: UnmatchedDepositRow['reason'];
  if (!agent) reason = traffic.unreadable ? 'unreadable_memo' : 'unknown_memo';
  else if (traffic.amount < limits.min) reason = 'below_minimum';
  else if (balanceOf(agent, 'USDT').deposited + traffic.amount > limits.maxAgentDeposited)
    reason = 'above_limit';
  else {
    await creditChainDeposit(ctx, agent.id, {
      currency: 'USDT',
      txHash: item.hash,
      fromAddress: usdtSender(ctx, live, traffic),
      toAddress: formatAddress(live.wallet.address, ctx.chain.network),
      amountNano: traffic.amount,
    });
    return true;
  }
  await keepUsdt(ctx, live, item, traffic, reason);
  return true;
}

/**
 * The follower gave up on this transaction (MAX_TX_ATTEMPTS failures): USDT waits for the
 * operator as an unmatched USDT deposit; false for the TON rules. Foreign and ours as above.
 */
export async function keepJettonNotCredited(
  ctx: DomainContext,
  live: LiveChain,
  item: ChainTransaction,
  kept: KeptValue,
): Promise<boolean> {
  const traffic = await jettonTrafficOf(ctx, item);
  if (!traffic) return false;
  if (traffic.kind === 'excesses') return isOurJettonQueryId(ctx.db, traffic.queryId);
  if (traffic.kind === 'foreign') await keepForeign(ctx, item, traffic, kept);
  else if (traffic.amount > 0n) await keepUsdt(ctx, live, item, traffic, 'not_credited');
  return true;
}

async function jettonTrafficOf(ctx: DomainContext, item: ChainTransaction): Promise<JettonTraffic | null> {
  const jetton = usdtJetton(ctx);
  if (!jetton) return null;
  const inMsg = item.tx.inMessage;
  // The wallet lookup is only for messages that could be jetton traffic (a cheap look at the op).
  if (inMsg?.info.type !== 'internal' || inMsg.info.bounced) return null;
  if (!readJettonTraffic(item.tx, inMsg.info.src)) return null;
  return readJettonTraffic(item.tx, await usdtDepositWallet(ctx, jetton));
}

/** Who sent the USDT: the owner our jetton wallet names, or the master for a mint. */
function usdtSender(ctx: DomainContext, live: LiveChain, t: Extract<JettonTraffic, { kind: 'usdt' }>) {
  if (t.fromOwner) return formatAddress(t.fromOwner, ctx.chain.network);
  return usdtJetton(ctx)?.masterAddress ?? formatAddress(live.wallet.address, ctx.chain.network);
}

async function keepUsdt(
  ctx: DomainContext,
  live: LiveChain,
  item: ChainTransaction,
  traffic: Extract<JettonTraffic, { kind: 'usdt' }>,
  reason: UnmatchedDepositRow['reason'],
) {
  await insertUnmatchedDeposit(ctx.db, {
    tx_hash: item.hash,
    lt: item.lt.toString(),
    from_address: usdtSender(ctx, live, traffic),
    currency: 'USDT',
    amount_nano: traffic.amount,
    memo: clipText(traffic.memo, MAX_STORED_MEMO),
    reason,
    status: 'open',
    agent_id: null,
    resolved_at: null,
    jetton_wallet: formatAddress(traffic.jettonWallet, ctx.chain.network),
    created_at: ctx.clock.now().toISOString(),
  });
}

/**
 * A foreign notification is listed with the TON the hot wallet kept from it (real TON, which
 * the operator may send back) and what it claimed; one that kept no TON (bounced back, no
 * value) is listed too, at 0, since its claim is what the operator should see.
 */
async function keepForeign(
  ctx: DomainContext,
  item: ChainTransaction,
  traffic: Extract<JettonTraffic, { kind: 'foreign' }>,
  kept: KeptValue,
) {
  const value = kept(item);
  await insertUnmatchedDeposit(ctx.db, {
    tx_hash: item.hash,
    lt: item.lt.toString(),
    from_address: formatAddress(value?.from ?? traffic.jettonWallet, ctx.chain.network),
    currency: 'TON',
    amount_nano: value?.amountNano ?? 0n,
    memo: clipText(traffic.memo, MAX_STORED_MEMO),
    reason: 'foreign_jetton',
    status: 'open',
    agent_id: null,
    resolved_at: null,
    jetton_wallet: formatAddress(traffic.jettonWallet, ctx.chain.network),
    jetton_amount: traffic.amount.toString(),
    created_at: ctx.clock.now().toISOString(),
  });
}
