import type { TransactionRow } from '../db/repositories/executor.js';
import { bonusView, type PaidBonus } from '../domain/money/bonuses.js';

/** POST /tasks/:id/bonus's answer (REST and MCP's pay_bonus): the bonus, the task's count and both transfers. */
export function paidBonusView({ bonus, task, payout, fee }: PaidBonus) {
  return {
    bonus: bonusView(bonus),
    task: { id: task.id, bonusCount: task.bonus_count },
    payment: transferView(payout),
    feePayment: fee ? transferView(fee) : null,
  };
}

function transferView(row: TransactionRow) {
  return { toAddress: row.to_address ?? '', txHash: row.tx_hash, pending: row.status !== 'confirmed' };
}
