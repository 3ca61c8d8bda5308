import type { Executor } from '../../db/repositories/executor.js';
import {
  countKeySpend,
  findKeySpend,
  returnKeySpend,
  type SpendLimits,
} from '../../db/repositories/keySpend.js';
import { DomainError, invalid } from '../errors.js';
import { amountText, CURRENCIES, type Currency, formatAmount, parseAmountField } from '../money/currency.js';

/**
 * A key's spend policy (issue 38, docs/decisions/owner-spend-policy.md): per currency, the most one
 * task may escrow (`maxTaskAmount`), what the key may escrow in a UTC day (`dailyLimit`) and a UTC
 * month (`monthlyLimit`), and the task total above which the owner must approve (`approvalAbove`).
 * A spend is a task's total (reward + fee), the amount escrowed. The limits and the key's counters
 * are one row per key and currency (keySpend.ts), checked and counted by one compare-and-set in
 * the escrow's own transaction; a refund gives its amount back to the day and month it was
 * escrowed in.
 */
export const LIMIT_FIELDS = ['maxTaskAmount', 'dailyLimit', 'monthlyLimit', 'approvalAbove'] as const;
export type LimitField = (typeof LIMIT_FIELDS)[number];

const COLUMN: Record<LimitField, keyof SpendLimits> = {
  maxTaskAmount: 'max_task_nano',
  dailyLimit: 'daily_limit_nano',
  monthlyLimit: 'monthly_limit_nano',
  approvalAbove: 'approval_above_nano',
};

/** A limit above a billion whole units of its currency is a typo, not a policy. */
const MAX_LIMIT_WHOLE_UNITS = 1_000_000_000n;
const DECIMALS: Record<Currency, bigint> = { TON: 10n ** 9n, USDT: 10n ** 6n };

/** The wire form: per currency, per limit, a decimal amount, or null to remove that limit. */
export type SpendPolicyPatch = Partial<Record<string, Partial<Record<string, string | number | null>>>>;

export const NO_LIMITS: SpendLimits = {
  max_task_nano: null,
  daily_limit_nano: null,
  monthly_limit_nano: null,
  approval_above_nano: null,
};

/** The UTC day and month a moment counts in. */
export function spendPeriod(at: Date | string): { day: string; month: string } {
  const iso = typeof at === 'string' ? new Date(at).toISOString() : at.toISOString();
  return { day: iso.slice(0, 10), month: iso.slice(0, 7) };
}

/**
 * The limits after applying `patch` to `current` (absent: unchanged, null: removed), checked: only
 * TON and USDT, only the four limits, amounts of that currency from 0 to a billion, and
 * approvalAbove not above maxTaskAmount. Bad input is a 400 naming the field; nothing is written.
 */
export function applyPolicyPatch(
  current: Map<Currency, SpendLimits>,
  patch: SpendPolicyPatch,
): Map<Currency, SpendLimits> {
  const next = new Map(current);
  for (const [currency, fields] of Object.entries(patch)) {
    const path = `spendPolicy.${currency}`;
    if (!(CURRENCIES as readonly string[]).includes(currency)) {
      throw invalid(path, 'is not a currency: spend policies are per currency, "TON" or "USDT"');
    }
    if (fields === null || typeof fields !== 'object') throw invalid(path, 'must be an object of limits');
    const cur = currency as Currency;
    const limits = { ...(next.get(cur) ?? NO_LIMITS) };
    for (const [field, value] of Object.entries(fields)) {
      if (!(LIMIT_FIELDS as readonly string[]).includes(field)) {
        throw invalid(`${path}.${field}`, `is not a limit; the limits are ${LIMIT_FIELDS.join(', ')}`);
      }
      if (value === undefined) continue;
      limits[COLUMN[field as LimitField]] =
        value === null ? null : parseLimit(`${path}.${field}`, cur, value);
    }
    if (
      limits.approval_above_nano !== null &&
      limits.max_task_nano !== null &&
      limits.approval_above_nano > limits.max_task_nano
    ) {
      throw invalid(
        `${path}.approvalAbove`,
        'must not be above maxTaskAmount: a task above maxTaskAmount is refused, so it could never wait for approval',
      );
    }
    next.set(cur, limits);
  }
  return next;
}

function parseLimit(path: string, currency: Currency, value: string | number): bigint {
  if (typeof value === 'string' && value.trim().startsWith('-')) throw invalid(path, 'must not be negative');
  if (typeof value === 'number' && value < 0) throw invalid(path, 'must not be negative');
  const units = parseAmountField(path, currency, value);
  const max = MAX_LIMIT_WHOLE_UNITS * DECIMALS[currency];
  if (units > max) throw invalid(path, `must be at most ${amountText(currency, max)}`);
  return units;
}

type SpendRow = NonNullable<Awaited<ReturnType<typeof findKeySpend>>>;

/**
 * What is being spent, for the refusal's sentences: a task's escrow (or a batch's), or a bonus
 * paid after a task ended, which counts toward the same day and month and is one spend for the
 * per-task limits (docs/decisions/bonuses-and-graded-approval.md).
 */
export type SpendKind = 'task' | 'bonus';
const WORDING: Record<SpendKind, { subject: string; nothing: string; smaller: string }> = {
  task: { subject: "This task's total", nothing: 'nothing was escrowed', smaller: 'Post a smaller task' },
  bonus: {
    subject: "This bonus's total (bonus + fee)",
    nothing: 'nothing was paid',
    smaller: 'Pay a smaller bonus',
  },
};

/** How a spend is judged against the key's policy. */
export interface SpendOptions {
  /** The largest single task's total, for the per-task limits (a batch counts its sum); default: the amount. */
  largest?: bigint;
  kind?: SpendKind;
  /** The owner approved this spend (approvals.ts): approvalAbove no longer applies. */
  approved?: boolean;
}

/** What a key escrowed in the current day and month, from its row (zero when the row is older). */
function usedNow(row: SpendRow | undefined, period: { day: string; month: string }) {
  return {
    day: row && row.day === period.day ? row.day_spent_nano : 0n,
    month: row && row.month === period.month ? row.month_spent_nano : 0n,
  };
}

/** Why a spend of `amount` breaks the row's policy (a 403 naming the limit, used and left), or null. */
function refusalOf(
  row: SpendRow | undefined,
  currency: Currency,
  amount: bigint,
  now: Date,
  { largest = amount, kind = 'task', approved = false }: SpendOptions,
): DomainError | null {
  if (!row) return null;
  const w = WORDING[kind];
  const used = usedNow(row, spendPeriod(now));
  const text = (units: bigint) => amountText(currency, units);
  const refuse = (limit: LimitField, limitNano: bigint, usedNano: bigint | null, sentence: string) =>
    new DomainError('forbidden', sentence, {
      limit,
      currency,
      limitAmount: formatAmount(currency, limitNano),
      requested: formatAmount(currency, amount),
      ...(usedNano === null
        ? {}
        : {
            used: formatAmount(currency, usedNano),
            left: formatAmount(currency, limitNano > usedNano ? limitNano - usedNano : 0n),
          }),
    });
  if (row.max_task_nano !== null && largest > row.max_task_nano) {
    return refuse(
      'maxTaskAmount',
      row.max_task_nano,
      null,
      `${w.subject} ${text(largest)} is above this key's maxTaskAmount of ${text(row.max_task_nano)}; ${w.nothing}. ${w.smaller}, or ask the agent's owner to raise the limit.`,
    );
  }
  if (!approved && row.approval_above_nano !== null && largest > row.approval_above_nano) {
    // POST /tasks turns such a task into an approval before it gets here (approvals.ts); what
    // reaches this is a batch (which cannot wait for approval) or a policy changed mid-request.
    return refuse(
      'approvalAbove',
      row.approval_above_nano,
      null,
      kind === 'task'
        ? `A task total of ${text(largest)} is above this key's approvalAbove of ${text(row.approval_above_nano)}, so it needs the owner's approval; nothing was escrowed. Only a single task (POST /tasks) can wait for approval, not a batch: post it as single tasks, keep each task at most ${text(row.approval_above_nano)}, or ask the owner to raise approvalAbove.`
        : `${w.subject} ${text(largest)} is above this key's approvalAbove of ${text(row.approval_above_nano)}, and a bonus cannot wait for the owner's approval; ${w.nothing}. ${w.smaller} (at most ${text(row.approval_above_nano)}), or ask the owner to raise approvalAbove.`,
    );
  }
  for (const [limit, limitNano, usedNano, span] of [
    ['dailyLimit', row.daily_limit_nano, used.day, 'today (UTC)'],
    ['monthlyLimit', row.monthly_limit_nano, used.month, 'this month (UTC)'],
  ] as const) {
    if (limitNano !== null && usedNano + amount > limitNano) {
      const left = limitNano > usedNano ? limitNano - usedNano : 0n;
      return refuse(
        limit,
        limitNano,
        usedNano,
        `${w.subject} ${text(amount)} would pass this key's ${limit} of ${text(limitNano)}: ${text(usedNano)} used ${span}, ${text(left)} left; ${w.nothing}. ${w.smaller} (at most ${text(left)}), wait for the next ${limit === 'dailyLimit' ? 'day' : 'month'}, or ask the owner to raise the limit.`,
      );
    }
  }
  return null;
}

/**
 * Refuses (403) a spend the key's policy does not allow, before anything is written. The
 * compare-and-set in `countSpend` stays the guard against concurrent spends.
 */
export async function checkSpend(
  trx: Executor,
  keyId: string,
  currency: Currency,
  amount: bigint,
  now: Date,
  spend: SpendOptions = {},
): Promise<void> {
  const refusal = refusalOf(await findKeySpend(trx, keyId, currency), currency, amount, now, spend);
  if (refusal) throw refusal;
}

/**
 * Counts an escrow against the key's day and month in the caller's transaction, or throws the 403
 * of the limit a concurrent spend used up first (the caller's transaction then writes nothing).
 */
export async function countSpend(
  trx: Executor,
  keyId: string,
  currency: Currency,
  amount: bigint,
  now: Date,
  spend: SpendOptions = {},
): Promise<void> {
  const at = now.toISOString();
  const largest = spend.largest ?? amount;
  if (await countKeySpend(trx, keyId, currency, amount, spendPeriod(now), at, largest, !!spend.approved))
    return;
  const row = await findKeySpend(trx, keyId, currency);
  throw (
    refusalOf(row, currency, amount, now, spend) ??
    new DomainError(
      'forbidden',
      "This key's spend limits changed while the task was being created; try again.",
    )
  );
}

/** A refund of a task a key escrowed gives the room back to the day and month it was escrowed in. */
export async function returnSpend(
  trx: Executor,
  task: { api_key_id: string | null; currency: Currency; created_at: string },
  amount: bigint,
  now: Date,
): Promise<void> {
  if (!task.api_key_id || amount <= 0n) return;
  await returnKeySpend(
    trx,
    task.api_key_id,
    task.currency,
    amount,
    spendPeriod(task.created_at),
    now.toISOString(),
  );
}

export interface CurrencyPolicyView {
  maxTaskAmount: string | null;
  dailyLimit: string | null;
  monthlyLimit: string | null;
  approvalAbove: string | null;
}

export interface CurrencySpendingView {
  spentToday: string;
  leftToday: string | null;
  spentThisMonth: string;
  leftThisMonth: string | null;
}

/** A key's policy as the API shows it: every currency, each limit an amount or null. */
export function policyView(rows: readonly SpendRow[]): Record<Currency, CurrencyPolicyView> {
  const out = {} as Record<Currency, CurrencyPolicyView>;
  for (const currency of CURRENCIES) {
    const row = rows.find((r) => r.currency === currency);
    const show = (units: bigint | null | undefined) =>
      units === null || units === undefined ? null : formatAmount(currency, units);
    out[currency] = {
      maxTaskAmount: show(row?.max_task_nano),
      dailyLimit: show(row?.daily_limit_nano),
      monthlyLimit: show(row?.monthly_limit_nano),
      approvalAbove: show(row?.approval_above_nano),
    };
  }
  return out;
}

/** What a key escrowed today and this month (UTC) per currency, and what its limits leave. */
export function spendingView(rows: readonly SpendRow[], now: Date): Record<Currency, CurrencySpendingView> {
  const period = spendPeriod(now);
  const out = {} as Record<Currency, CurrencySpendingView>;
  for (const currency of CURRENCIES) {
    const row = rows.find((r) => r.currency === currency);
    const used = usedNow(row, period);
    const left = (limit: bigint | null | undefined, spent: bigint) =>
      limit === null || limit === undefined
        ? null
        : formatAmount(currency, limit > spent ? limit - spent : 0n);
    out[currency] = {
      spentToday: formatAmount(currency, used.day),
      leftToday: left(row?.daily_limit_nano, used.day),
      spentThisMonth: formatAmount(currency, used.month),
      leftThisMonth: left(row?.monthly_limit_nano, used.month),
    };
  }
  return out;
}

/** The rows' limits by currency (what a patch applies to). */
export function limitsByCurrency(rows: readonly SpendRow[]): Map<Currency, SpendLimits> {
  const out = new Map<Currency, SpendLimits>();
  for (const row of rows) {
    out.set(row.currency as Currency, {
      max_task_nano: row.max_task_nano,
      daily_limit_nano: row.daily_limit_nano,
      monthly_limit_nano: row.monthly_limit_nano,
      approval_above_nano: row.approval_above_nano,
    });
  }
  return out;
}
