import { sql, type Updateable } from 'kysely';
import type { Currency } from '../../domain/money/currency.js';
import { compiledOnce } from '../compiledQuery.js';
import type { Database } from '../schema.js';
import type { AgentRow, Executor } from './executor.js';

/**
 * An agent's balances, one set of four columns per currency on the agent's own row (migration
 * 0020 says why columns and not a table). This file is the one place that maps a currency to
 * its columns: every balance move names its currency, and a move can only ever touch that
 * currency's columns, so no code path can spend one currency's balance on another's task.
 */
const COLUMNS = {
  TON: { balance: 'balance_nano', locked: 'locked_nano', deposited: 'deposited_nano', spent: 'spent_nano' },
  USDT: {
    balance: 'usdt_balance_micro',
    locked: 'usdt_locked_micro',
    deposited: 'usdt_deposited_micro',
    spent: 'usdt_spent_micro',
  },
} as const;

type AgentPatch = Updateable<Database['agents']>;

export interface Balance {
  balance: bigint;
  locked: bigint;
  deposited: bigint;
  spent: bigint;
}

/** One currency's balance as the agent's row holds it (integers of that currency's smallest unit). */
export function balanceOf(agent: AgentRow, currency: Currency): Balance {
  const c = COLUMNS[currency];
  return {
    balance: agent[c.balance],
    locked: agent[c.locked],
    deposited: agent[c.deposited],
    spent: agent[c.spent],
  };
}

/** `column + amount` (amount may be negative) for a balance column. */
function plus(column: string, amount: bigint) {
  return sql<bigint>`${sql.ref(column)} + ${amount}`;
}

/** Credits a deposit, only while the agent's deposits of `currency` stay within `maxDeposited`. */
export function creditDeposit(
  db: Executor,
  id: string,
  currency: Currency,
  amount: bigint,
  maxDeposited: bigint,
  now: string,
) {
  const c = COLUMNS[currency];
  const patch = {
    [c.balance]: plus(c.balance, amount),
    [c.deposited]: plus(c.deposited, amount),
    updated_at: now,
  };
  return db
    .updateTable('agents')
    .set(patch as AgentPatch)
    .where('id', '=', id)
    .where(c.deposited, '<=', maxDeposited - amount)
    .returningAll()
    .executeTakeFirst();
}

/** Deposits of `currency` every agent ever received: what bounds that currency's sums in the books. */
export async function totalDeposited(db: Executor, currency: Currency): Promise<bigint> {
  const row = await db
    .selectFrom('agents')
    .select(sql<bigint>`coalesce(sum(${sql.ref(COLUMNS[currency].deposited)}), 0)`.as('total_nano'))
    .executeTakeFirstOrThrow();
  return row.total_nano;
}

// Compiled once per currency: the TON one is POST /tasks' hot statement, unchanged in shape.
const lockFundsQueries = {
  TON: lockQuery('TON'),
  USDT: lockQuery('USDT'),
};

function lockQuery(currency: Currency) {
  const c = COLUMNS[currency];
  return compiledOnce((db: Executor, id: string, amount: bigint, now: string) =>
    db
      .updateTable('agents')
      .set({
        [c.balance]: sql`${sql.ref(c.balance)} - ${amount}`,
        [c.locked]: sql`${sql.ref(c.locked)} + ${amount}`,
        updated_at: now,
      } as AgentPatch)
      .where('id', '=', id)
      .where(c.balance, '>=', amount)
      .returningAll(),
  );
}

/** Moves `amount` of `currency` from balance to locked, only if that balance covers it. */
export async function lockFunds(db: Executor, id: string, currency: Currency, amount: bigint, now: string) {
  return (await lockFundsQueries[currency](db, id, amount, now))[0];
}

/** Returns locked money of `currency` to its balance (cancel, refund, a dispute's agent share). */
export function unlockFunds(db: Executor, id: string, currency: Currency, amount: bigint, now: string) {
  const c = COLUMNS[currency];
  const patch = {
    [c.balance]: plus(c.balance, amount),
    [c.locked]: plus(c.locked, -amount),
    updated_at: now,
  };
  return db
    .updateTable('agents')
    .set(patch as AgentPatch)
    .where('id', '=', id)
    .where(c.locked, '>=', amount)
    .returningAll()
    .executeTakeFirst();
}

/** Locked money of `currency` leaves the agent for good (completion: reward to the worker, fee to the platform). */
export function spendLockedFunds(db: Executor, id: string, currency: Currency, amount: bigint, now: string) {
  const c = COLUMNS[currency];
  const patch = { [c.locked]: plus(c.locked, -amount), [c.spent]: plus(c.spent, amount), updated_at: now };
  return db
    .updateTable('agents')
    .set(patch as AgentPatch)
    .where('id', '=', id)
    .where(c.locked, '>=', amount)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Money of `currency` leaves the agent's balance for good without being escrowed first (a bonus,
 * paid at once), only if that balance covers it: balance down, spent up, conservation kept.
 */
export function spendFunds(db: Executor, id: string, currency: Currency, amount: bigint, now: string) {
  const c = COLUMNS[currency];
  const patch = { [c.balance]: plus(c.balance, -amount), [c.spent]: plus(c.spent, amount), updated_at: now };
  return db
    .updateTable('agents')
    .set(patch as AgentPatch)
    .where('id', '=', id)
    .where(c.balance, '>=', amount)
    .returningAll()
    .executeTakeFirst();
}

/** The owner's low-balance threshold per currency (migration 0043): the alert column beside the balances. */
const ALERT_COLUMNS = { TON: 'ton_low_balance_nano', USDT: 'usdt_low_balance_micro' } as const;

/** The agent's low-balance threshold of `currency`, null when no alert is set. */
export function lowBalanceThresholdOf(agent: AgentRow, currency: Currency): bigint | null {
  return agent[ALERT_COLUMNS[currency]];
}

/** Sets (or, with null, removes) the agent's low-balance thresholds of the given currencies. */
export function setLowBalanceThresholds(
  db: Executor,
  id: string,
  thresholds: Partial<Record<Currency, bigint | null>>,
  now: string,
) {
  const patch: Record<string, bigint | null | string> = { updated_at: now };
  for (const [currency, value] of Object.entries(thresholds))
    patch[ALERT_COLUMNS[currency as Currency]] = value;
  return db
    .updateTable('agents')
    .set(patch as AgentPatch)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}
