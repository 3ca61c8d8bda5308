import {
  agentTotals,
  countFailingTransfers,
  countOpenUnmatchedDeposits,
  countPendingApprovals,
  databaseAnswers,
  openTransfers,
  recentDeposits,
  statusCounts,
  topAgentsByBalance,
} from '../../db/repositories/overview.js';
import type { DomainContext } from '../context.js';
import { auditMoney } from './audit.js';

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
  ]);
  const hotWalletNano = await ctx.chain.getBalance(ctx.chain.hotWalletAddress);
  return {
    checkedAt: ctx.clock.now().toISOString(),
    network: ctx.chain.network,
    database: (await databaseAnswers(ctx.db)) ? ('ok' as const) : ('down' as const),
    totals,
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
