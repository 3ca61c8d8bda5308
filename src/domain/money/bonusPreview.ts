import { findAgent } from '../../db/repositories/agents.js';
import { balanceOf } from '../../db/repositories/balances.js';
import { listBonusesOfTask } from '../../db/repositories/bonuses.js';
import type { TaskBonusRow } from '../../db/repositories/executor.js';
import type { DomainContext } from '../context.js';
import { notFound } from '../errors.js';
import { loadAgentTask } from '../tasks/taskAccess.js';
import { BONUS_LIMITS, checkAmount, DAY_MS } from './bonuses.js';
import { type Currency, rowCurrency } from './currency.js';
import { platformFeeFor } from './money.js';

export interface BonusPreview {
  currency: Currency;
  /** The bonuses already paid on the task, oldest first, as recorded. */
  bonuses: TaskBonusRow[];
  /** Bonuses the task may still take, the largest one, and until when (null: not payable). */
  left: number;
  maxAmountNano: bigint;
  payableUntil: string | null;
  balanceNano: bigint;
  /** What `amount` would cost, by payBonus's own rules (null without an amount). */
  quote: { amountNano: bigint; feeNano: bigint; totalNano: bigint } | null;
}

/**
 * The console's bonus dialog (issue 40): the task's bonuses and limits, and what a bonus of
 * `amount` would take from the balance, computed by the same checks and fee as payBonus, so the
 * owner confirms the very numbers the payment will move. Reads only; payBonus decides again.
 */
export async function previewBonus(
  ctx: DomainContext,
  agentId: string,
  taskId: string,
  amount: string | undefined,
): Promise<BonusPreview> {
  const task = await loadAgentTask(ctx.db, agentId, taskId);
  const currency = rowCurrency(task.currency);
  const agent = await findAgent(ctx.db, agentId);
  if (!agent) throw notFound('Agent');
  const quote = (() => {
    if (amount === undefined) return null;
    const amountNano = checkAmount(task, currency, amount);
    const feeNano = platformFeeFor(amountNano);
    return { amountNano, feeNano, totalNano: amountNano + feeNano };
  })();
  const payable =
    task.status === 'COMPLETED' && (task.settlement_worker_nano ?? 0n) > 0n && task.completed_at;
  return {
    currency,
    bonuses: await listBonusesOfTask(ctx.db, task.id),
    left: payable ? Math.max(0, BONUS_LIMITS.maxPerTask - task.bonus_count) : 0,
    maxAmountNano: task.reward_nano * BONUS_LIMITS.maxRewardMultiple,
    payableUntil: payable
      ? new Date(new Date(task.completed_at!).getTime() + BONUS_LIMITS.windowDays * DAY_MS).toISOString()
      : null,
    balanceNano: balanceOf(agent, currency).balance,
    quote,
  };
}
