import {
  agentTotals,
  countFailingTransfers,
  countOpenUnmatchedDeposits,
  countPendingApprovals,
  databaseAnswers,
  openTransfers,
  outgoingByCurrency,
  recentDeposits,
  statusCounts,
  topAgentsByBalance,
} from '../../db/repositories/overview.js';
import type { DomainContext } from '../context.js';
import { auditMoney } from './audit.js';
import { CURRENCIES, type Currency } from './currency.js';

/** Rows each list of the overview shows. */
const LIST_LIMIT = 20;

/**
 * The numbers an operator checks first, in one answer: money held for agents, deposits nobody
 * could be credited for, the ledger audit, the hot wallet, transfers and outboxes that are stuck,
 * tasks waiting for their owners' approval, and whether the database answers.
 */
export async function operatorOverview(ctx: DomainContext) {
  const [
    totals,
    agents,
    deposits,
    unmatched,
    transfers,
    transferCounts,
    failing,
    deliveries,
    notifications,
    audits,
    pendingApprovals,
    outgoing,
  ] = await Promise.all([
    agentTotals(ctx.db),
    topAgentsByBalance(ctx.db, LIST_LIMIT),
    recentDeposits(ctx.db, LIST_LIMIT),
    countOpenUnmatchedDeposits(ctx.db),
    openTransfers(ctx.db, LIST_LIMIT),
    statusCounts(ctx.db, 'chain_transfers'),
    countFailingTransfers(ctx.db),
    statusCounts(ctx.db, 'webhook_deliveries'),
    statusCounts(ctx.db, 'notifications'),
    auditMoney(ctx),
    countPendingApprovals(ctx.db, ctx.clock.now().toISOString()),
    outgoingByCurrency(ctx.db),
  ]);
  const hotWalletNano = await ctx.chain.getBalance(ctx.chain.hotWalletAddress);
  return {
    checkedAt: ctx.clock.now().toISOString(),
    network: ctx.chain.network,
    database: (await databaseAnswers(ctx.db)) ? ('ok' as const) : ('down' as const),
    totals,
    money: moneyByCurrency(totals, outgoing),
    agents,
    deposits,
    unmatchedDeposits: unmatched,
    transfers,
    transferCounts: { pending: transferCounts.get('pending') ?? 0, failing: failing },
    deliveries: { pending: deliveries.get('pending') ?? 0, failed: deliveries.get('failed') ?? 0 },
    notifications: { pending: notifications.get('pending') ?? 0, failed: notifications.get('failed') ?? 0 },
    audit: { ok: audits.every((a) => a.ok), problems: audits.filter((a) => !a.ok).length },
    pendingApprovals,
    hotWallet: { address: ctx.chain.hotWalletAddress, balanceNano: hotWalletNano },
  };
}

/** One currency's money across live agents, in its smallest unit (nanotons, micro-USDT). */
export interface CurrencyMoney {
  currency: Currency;
  balance: bigint;
  locked: bigint;
  deposited: bigint;
  spent: bigint;
  /** PAYOUT and BONUS rows: what went (or is going) to workers. */
  paidOut: bigint;
  /** FEE and BONUS_FEE rows: the platform's fees. */
  fees: bigint;
}

/**
 * The overview's money per currency, TON first: each currency's own sums, never added to the
 * other's (a 50 USDT deposit is 50 USDT, not 0.05 TON).
 */
function moneyByCurrency(
  totals: Awaited<ReturnType<typeof agentTotals>>,
  outgoing: { currency: string; type: string; units: bigint }[],
): CurrencyMoney[] {
  const sum = (currency: Currency, types: string[]) =>
    outgoing
      .filter((r) => r.currency === currency && types.includes(r.type))
      .reduce((total, r) => total + r.units, 0n);
  return CURRENCIES.map((currency) => ({
    currency,
    ...(currency === 'TON'
      ? {
          balance: totals.balanceNano,
          locked: totals.lockedNano,
          deposited: totals.depositedNano,
          spent: totals.spentNano,
        }
      : {
          balance: totals.usdt.balanceMicro,
          locked: totals.usdt.lockedMicro,
          deposited: totals.usdt.depositedMicro,
          spent: totals.usdt.spentMicro,
        }),
    paidOut: sum(currency, ['PAYOUT', 'BONUS']),
    fees: sum(currency, ['FEE', 'BONUS_FEE']),
  }));
}
