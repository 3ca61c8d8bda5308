import type { TaskRow } from '../db/repositories/executor.js';
import { formatAmount, rowCurrency } from '../domain/money/currency.js';

type SettledColumns = Pick<
  TaskRow,
  | 'currency'
  | 'settlement_worker_nano'
  | 'settlement_fee_nano'
  | 'settlement_refunded_nano'
  | 'settled_by'
  | 'bonus_count'
  | 'bonus_nano'
  | 'bonus_fee_nano'
>;

/**
 * The task's recorded outcome as the agent sees it, or null while the task has not ended. Read
 * from the columns the ending move wrote (src/domain/money/settlement.ts), never from the reward.
 */
export function settlementView(task: SettledColumns) {
  if (task.settled_by === null) return null;
  const currency = rowCurrency(task.currency);
  return {
    workerAmount: formatAmount(currency, task.settlement_worker_nano ?? 0n),
    fee: formatAmount(currency, task.settlement_fee_nano ?? 0n),
    refunded: formatAmount(currency, task.settlement_refunded_nano ?? 0n),
    decidedBy: task.settled_by,
    currency,
    // Bonuses (recorded on the task by the bonus's own compare-and-set), only once there is one.
    ...(task.bonus_count > 0
      ? {
          bonuses: {
            count: task.bonus_count,
            amount: formatAmount(currency, task.bonus_nano),
            fee: formatAmount(currency, task.bonus_fee_nano),
          },
        }
      : {}),
  };
}

/** The worker's part of the outcome: what they were paid and who decided; null until the task ended. */
export function workerSettlementView(task: SettledColumns) {
  if (task.settled_by === null) return null;
  const currency = rowCurrency(task.currency);
  return {
    workerAmount: formatAmount(currency, task.settlement_worker_nano ?? 0n),
    decidedBy: task.settled_by,
    currency,
    ...(task.bonus_count > 0
      ? { bonuses: { count: task.bonus_count, amount: formatAmount(currency, task.bonus_nano) } }
      : {}),
  };
}

/** `{settlement}` once the task ended, nothing before (the agent's views add no key to open tasks). */
export function settlementField(task: SettledColumns) {
  const settlement = settlementView(task);
  return settlement ? { settlement } : {};
}

/** `{settlement}` for the worker once the task ended. */
export function workerSettlementField(task: SettledColumns) {
  const settlement = workerSettlementView(task);
  return settlement ? { settlement } : {};
}
