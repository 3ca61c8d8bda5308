import type { Currency } from '../../domain/money/currency.js';
import type { Executor, Position } from './executor.js';
import { olderThan } from './pagination.js';

/**
 * A worker's money in three sums per currency, in that currency's smallest unit: paid (payouts
 * confirmed on chain), on the way (payouts recorded but not confirmed yet) and in review
 * (rewards of tasks waiting for the agent's review, paid when accepted). Grouped by currency so
 * a TON and a USDT amount are never added. Two aggregate queries on the worker's own rows.
 *
 * The sums are aliased `*_nano` so both drivers read them as bigint (see bigintPlugin.ts): any
 * other alias is read as a number, which SQLite refuses past 2^53 (eleven top rewards).
 */
export async function workerEarningTotals(db: Executor, workerId: string) {
  const payouts = await db
    .selectFrom('transactions')
    .innerJoin('tasks', 'tasks.id', 'transactions.task_id')
    .select([
      'transactions.currency as currency',
      'transactions.status as status',
      (eb) => eb.fn.sum<bigint>('transactions.amount_nano').as('total_nano'),
    ])
    .where('tasks.worker_id', '=', workerId)
    .where('transactions.type', 'in', ['PAYOUT', 'BONUS'])
    .groupBy(['transactions.currency', 'transactions.status'])
    .execute();
  const review = await db
    .selectFrom('tasks')
    .select([
      'currency',
      (eb) => eb.fn.sum<bigint>('reward_nano').as('total_nano'),
      (eb) => eb.fn.countAll<number>().as('n'),
    ])
    .where('worker_id', '=', workerId)
    .where('status', '=', 'REVIEW')
    .groupBy('currency')
    .execute();
  const of = (currency: Currency) => {
    const sum = (status: 'confirmed' | 'pending') =>
      payouts.find((p) => p.currency === currency && p.status === status)?.total_nano ?? 0n;
    const inReview = review.find((r) => r.currency === currency);
    return {
      paid: sum('confirmed'),
      onTheWay: sum('pending'),
      inReview: inReview?.total_nano ?? 0n,
      inReviewTasks: Number(inReview?.n ?? 0),
    };
  };
  return { TON: of('TON'), USDT: of('USDT') };
}

/** Ratings agents gave this worker, with the task's title, newest first. */
export function listRatingsOfWorker(db: Executor, workerId: string, before: Position | null, limit: number) {
  let query = db
    .selectFrom('ratings')
    .innerJoin('tasks', 'tasks.id', 'ratings.task_id')
    .selectAll('ratings')
    .select('tasks.title as task_title')
    .where('ratings.ratee_id', '=', workerId)
    .where('ratings.rater_type', '=', 'AGENT');
  if (before) query = query.where(olderThan(before, 'ratings'));
  return query.orderBy('ratings.created_at', 'desc').orderBy('ratings.id', 'desc').limit(limit).execute();
}
