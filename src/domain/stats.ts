import { findAgent } from '../db/repositories/agents.js';
import { balanceOf } from '../db/repositories/balances.js';
import { ledgerTotals } from '../db/repositories/ledger.js';
import { countTasksByStatus } from '../db/repositories/tasks.js';
import type { DomainContext } from './context.js';
import { notFound } from './errors.js';
import { type Currency, formatAmount } from './money/currency.js';
import { TASK_STATUSES } from './tasks/states.js';

export const STATS_TTL_MS = 5 * 60_000;
/** Bounds the cache's memory: past this many agents the oldest entry goes. */
const STATS_CACHE_MAX = 10_000;

async function computeStats(ctx: DomainContext, agentId: string) {
  const agent = await findAgent(ctx.db, agentId);
  if (!agent) throw notFound('Agent');
  const counts = await countTasksByStatus(ctx.db, agentId);
  const ledger = await ledgerTotals(ctx.db, agentId);
  const totalOf = (currency: Currency, type: string) =>
    ledger.get(`${currency} ${type}`) ?? { count: 0, totalNano: 0n };
  // The spec's `transactions` and `summary` are of TON, and stay exactly the spec's objects.
  const entry = (type: 'DEPOSIT' | 'PAYOUT' | 'REFUND') => {
    const t = totalOf('TON', type);
    return { count: t.count, total: formatAmount('TON', t.totalNano) };
  };
  const summaryOf = (currency: Currency) => {
    const b = balanceOf(agent, currency);
    return {
      totalDeposited: formatAmount(currency, b.deposited),
      totalSpent: formatAmount(currency, b.spent),
      platformFeesCollected: formatAmount(currency, totalOf(currency, 'FEE').totalNano),
    };
  };
  const byStatus = Object.fromEntries(TASK_STATUSES.map((s) => [s, counts.get(s) ?? 0]));
  return {
    agent: { id: agent.id, name: agent.name },
    tasks: { total: [...counts.values()].reduce((a, b) => a + b, 0), byStatus },
    transactions: { deposits: entry('DEPOSIT'), payouts: entry('PAYOUT'), refunds: entry('REFUND') },
    summary: { ...summaryOf('TON'), currency: 'TON' as const },
  };
}

export type PlatformStats = Awaited<ReturnType<typeof computeStats>>;

/** GET /platform/stats, cached 5 minutes per agent (per instance) on the injected clock. */
export class StatsCache {
  private readonly entries = new Map<string, { atMs: number; stats: PlatformStats }>();

  async get(ctx: DomainContext, agentId: string): Promise<PlatformStats> {
    const nowMs = ctx.clock.now().getTime();
    const hit = this.entries.get(agentId);
    if (hit && nowMs - hit.atMs < STATS_TTL_MS) return hit.stats;
    const stats = await computeStats(ctx, agentId);
    this.entries.delete(agentId);
    if (this.entries.size >= STATS_CACHE_MAX) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(agentId, { atMs: nowMs, stats });
    return stats;
  }
}
