import {
  dailyKeyLedgerTotals,
  type KeyActivityRow,
  listKeyActivity,
} from '../../db/repositories/keyActivity.js';
import { holderOfKey } from '../agents/testMode.js';
import type { DomainContext } from '../context.js';
import { decodePosition, page, positionCursor } from '../cursor.js';
import { notFound } from '../errors.js';
import { CURRENCIES, type Currency } from '../money/currency.js';
import { SPENDING_DAYS } from './ownerAgents.js';

/**
 * The owner's view of one key (issue 38, scope 4): its spending per day and its activity log.
 * The caller has already checked the agent is the owner's (requireOwnedAgent); this finds the
 * key on that agent or its test twin, and answers 404 for any other key, so ids cannot be probed.
 */
export async function requireKeyOfAgent(ctx: DomainContext, liveAgentId: string, keyId: string) {
  const holder = await holderOfKey(ctx, liveAgentId, keyId);
  const key = await ctx.db
    .selectFrom('api_keys')
    .select(['id', 'agent_id'])
    .where('id', '=', keyId)
    .where('agent_id', '=', holder)
    .executeTakeFirst();
  if (!key) throw notFound('API key');
  return { keyId: key.id, holderId: key.agent_id };
}

type Totals = Record<Currency, bigint>;
const zero = (): Totals => ({ TON: 0n, USDT: 0n });

/**
 * What the key escrowed (tasks, bonuses and their fees) and what refunds gave back, per UTC day
 * and currency over the last SPENDING_DAYS days, every day present: summed from the ledger.
 */
export async function keySpendSeries(ctx: DomainContext, holderId: string, keyId: string) {
  const now = ctx.clock.now();
  const dayAt = (i: number) =>
    new Date(now.getTime() - (SPENDING_DAYS - 1 - i) * 86_400_000).toISOString().slice(0, 10);
  const days = new Map<string, { spent: Totals; refunded: Totals }>();
  for (let i = 0; i < SPENDING_DAYS; i++) days.set(dayAt(i), { spent: zero(), refunded: zero() });
  for (const row of await dailyKeyLedgerTotals(ctx.db, holderId, keyId, dayAt(0))) {
    const entry = days.get(row.day);
    if (!entry || !(CURRENCIES as readonly string[]).includes(row.currency)) continue;
    const side = row.type === 'REFUND' ? entry.refunded : entry.spent;
    side[row.currency] += row.totalNano;
  }
  return [...days].map(([day, v]) => ({ day, ...v }));
}

export const ACTIVITY_PAGE = 20;
export const MAX_ACTIVITY_PAGE = 100;

/**
 * Who did it: the key (it escrowed the task), the agent (any of its keys, or the owner in the
 * console), a worker, the operator or the service on its own (auto); a task's money outcome is
 * whoever its recorded settlement names.
 */
export type Actor = 'key' | 'agent' | 'operator' | 'auto' | 'worker';

function actorOf(row: KeyActivityRow): Actor {
  if (row.source === 'ledger') {
    if (row.kind === 'TASK_ESCROW') return 'key';
    if (row.kind === 'BONUS' || row.kind === 'BONUS_FEE') return 'agent';
    return (row.settled_by as Actor | null) ?? 'agent';
  }
  if (row.kind === 'task.expired') return 'auto';
  if (row.kind === 'dispute.resolved') return 'operator';
  if (row.kind === 'task.submitted' || row.kind.startsWith('offer.') || row.kind === 'dispute.opened')
    return 'worker';
  return 'agent';
}

/** One page of the key's activity, newest first; `q` finds a task id or words of a task title. */
export async function keyActivityPage(
  ctx: DomainContext,
  holderId: string,
  keyId: string,
  query: { cursor?: string; q?: string; limit?: number },
) {
  const limit = Math.min(query.limit ?? ACTIVITY_PAGE, MAX_ACTIVITY_PAGE);
  const search = query.q?.trim() || null;
  const rows = await listKeyActivity(ctx.db, holderId, keyId, {
    after: decodePosition(query.cursor),
    search,
    limit: limit + 1,
  });
  const { items, nextCursor } = page(rows, limit, positionCursor);
  return {
    items: items.map((row) => ({
      ...row,
      actor: actorOf(row),
      amount_nano: row.amount_nano === null ? null : BigInt(row.amount_nano),
    })),
    nextCursor,
  };
}
