import { sql } from 'kysely';
import type { Currency } from '../../domain/money/currency.js';
import type { Executor } from './executor.js';

/** The four limits of a key in one currency, in its smallest unit; null: no such limit. */
export interface SpendLimits {
  max_task_nano: bigint | null;
  daily_limit_nano: bigint | null;
  monthly_limit_nano: bigint | null;
  approval_above_nano: bigint | null;
}

const COLUMNS = [
  'key_id',
  'currency',
  'max_task_nano',
  'daily_limit_nano',
  'monthly_limit_nano',
  'approval_above_nano',
  'day',
  'day_spent_nano',
  'month',
  'month_spent_nano',
] as const;

export function findKeySpend(db: Executor, keyId: string, currency: Currency) {
  return db
    .selectFrom('api_key_spend')
    .select(COLUMNS)
    .where('key_id', '=', keyId)
    .where('currency', '=', currency)
    .executeTakeFirst();
}

export function listKeySpends(db: Executor, keyIds: readonly string[]) {
  if (keyIds.length === 0) return Promise.resolve([]);
  return db.selectFrom('api_key_spend').select(COLUMNS).where('key_id', 'in', keyIds).execute();
}

/** Writes a key's limits in one currency, keeping its counters. */
export async function upsertKeyLimits(
  db: Executor,
  keyId: string,
  currency: Currency,
  limits: SpendLimits,
  now: string,
): Promise<void> {
  await db
    .insertInto('api_key_spend')
    .values({ key_id: keyId, currency, ...limits, updated_at: now })
    .onConflict((oc) => oc.columns(['key_id', 'currency']).doUpdateSet({ ...limits, updated_at: now }))
    .execute();
}

const spent = (period: 'day' | 'month', value: string) =>
  sql<bigint>`case when api_key_spend.${sql.ref(period)} = ${value} then api_key_spend.${sql.ref(`${period}_spent_nano`)} else 0 end`;

/**
 * Counts `amount` against the key's day and month, only if every limit of its row still allows it:
 * one compare-and-set statement, so concurrent spends of one key (on any instance) are counted one
 * after the other and none passes a limit. A key without a row has no limits: the row is made
 * with this spend. Returns false, having changed nothing, when a limit refuses.
 */
export async function countKeySpend(
  db: Executor,
  keyId: string,
  currency: Currency,
  amount: bigint,
  period: { day: string; month: string },
  now: string,
  /** The largest single task's total, checked against the per-task limits (a batch counts its sum). */
  largest: bigint = amount,
  /** The owner approved this spend: approvalAbove does not apply to it. */
  approved = false,
): Promise<boolean> {
  const day = spent('day', period.day);
  const month = spent('month', period.month);
  const row = await db
    .insertInto('api_key_spend')
    .values({
      key_id: keyId,
      currency,
      max_task_nano: null,
      daily_limit_nano: null,
      monthly_limit_nano: null,
      approval_above_nano: null,
      day: period.day,
      day_spent_nano: amount,
      month: period.month,
      month_spent_nano: amount,
      updated_at: now,
    })
    .onConflict((oc) =>
      oc
        .columns(['key_id', 'currency'])
        .doUpdateSet({
          day_spent_nano: sql`${day} + ${amount}`,
          day: period.day,
          month_spent_nano: sql`${month} + ${amount}`,
          month: period.month,
          updated_at: now,
        })
        .where(
          sql<boolean>`(api_key_spend.max_task_nano is null or ${largest} <= api_key_spend.max_task_nano)
            and (${approved ? sql`1 = 1` : sql`1 = 0`} or api_key_spend.approval_above_nano is null or ${largest} <= api_key_spend.approval_above_nano)
            and (api_key_spend.daily_limit_nano is null or ${day} + ${amount} <= api_key_spend.daily_limit_nano)
            and (api_key_spend.monthly_limit_nano is null or ${month} + ${amount} <= api_key_spend.monthly_limit_nano)`,
        ),
    )
    .returning('key_id')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Gives `amount` back to the counters of the day and month a refunded task was escrowed in, when
 * they are still the current ones (a refund of last month's task frees nothing this month).
 */
export async function returnKeySpend(
  db: Executor,
  keyId: string,
  currency: Currency,
  amount: bigint,
  period: { day: string; month: string },
  now: string,
): Promise<void> {
  const less = (column: 'day_spent_nano' | 'month_spent_nano', key: 'day' | 'month', value: string) =>
    sql<bigint>`case when ${sql.ref(key)} = ${value}
      then (case when ${sql.ref(column)} >= ${amount} then ${sql.ref(column)} - ${amount} else 0 end)
      else ${sql.ref(column)} end`;
  await db
    .updateTable('api_key_spend')
    .set({
      day_spent_nano: less('day_spent_nano', 'day', period.day),
      month_spent_nano: less('month_spent_nano', 'month', period.month),
      updated_at: now,
    })
    .where('key_id', '=', keyId)
    .where('currency', '=', currency)
    .execute();
}
