import { findAgent } from '../../db/repositories/agents.js';
import { balanceOf, spendFunds } from '../../db/repositories/balances.js';
import { findBonusByKey, insertBonus, recordBonusOnTask } from '../../db/repositories/bonuses.js';
import type { Executor, TaskBonusRow, TaskRow, TransactionRow } from '../../db/repositories/executor.js';
import { findLedgerRow } from '../../db/repositories/ledger.js';
import { addWorkerEarnings, findWorker } from '../../db/repositories/workers.js';
import { refuseIfFrozen } from '../agents/agentFreeze.js';
import { checkSpend, countSpend } from '../agents/keyPolicies.js';
import type { DomainContext } from '../context.js';
import { assertInvariant, conflict, DomainError, invalid, notFound } from '../errors.js';
import { recordEvent } from '../events/events.js';
import { failPoint } from '../failPoint.js';
import { newId } from '../ids.js';
import { loadAgentTask } from '../tasks/taskAccess.js';
import { checkText } from '../tasks/taskCreation.js';
import { inTransaction, isUniqueViolation } from '../transaction.js';
import { notifyWorker } from '../workers/notifications.js';
import {
  amountText,
  type Currency,
  currencyFacts,
  formatAmount,
  parseAmountField,
  rowCurrency,
} from './currency.js';
import { noteSpend } from './lowBalance.js';
import { platformFeeFor } from './money.js';
import { attemptTransfer } from './payouts.js';
import { bookChainTransfer } from './settlement.js';

/**
 * Bonuses (issue 40, docs/decisions/bonuses-and-graded-approval.md): an agent pays a worker more
 * than the reward for a task that ended paid. Bounds, all checked before anything is written:
 */
export const BONUS_LIMITS = {
  /** Bonuses per task. */
  maxPerTask: 5,
  /** The largest bonus, as a multiple of the task's reward. */
  maxRewardMultiple: 10n,
  /** Days after the task's completion during which it may get a bonus. */
  windowDays: 30,
  /** The reason the worker reads, in characters. */
  reasonMax: 1000,
} as const;

export const DAY_MS = 86_400_000;

export interface BonusInput {
  amount: string | number;
  reason: string;
}

export interface PaidBonus {
  bonus: TaskBonusRow;
  task: TaskRow;
  /** The BONUS ledger row (the worker's transfer) and the BONUS_FEE row, as they stand now. */
  payout: TransactionRow;
  fee: TransactionRow | null;
}

/**
 * POST /tasks/:id/bonus. One transaction: the bonus row (unique per agent and Idempotency-Key),
 * the task's compare-and-set that admits one more bonus, the debit of bonus + fee from the
 * balance of the task's currency (compare-and-set), the key's spend counted, the pending BONUS and
 * BONUS_FEE ledger rows with their chain transfers, the worker's earnings, task.bonus_paid and the
 * worker's Telegram note. The transfers are sent after commit, as every payout (and retried by the
 * outbox until done): a crash between the commit and the send leaves them pending, never unpaid
 * and never paid twice. A key already used by this agent answers with the bonus it paid.
 */
export async function payBonus(
  ctx: DomainContext,
  agentId: string,
  taskId: string,
  input: BonusInput,
  call: { idempotencyKey: string; keyId: string | null },
): Promise<PaidBonus> {
  const task = await loadAgentTask(ctx.db, agentId, taskId);
  const currency = rowCurrency(task.currency);
  const amountNano = checkAmount(task, currency, input.amount);
  const reason = checkText('reason', input.reason, BONUS_LIMITS.reasonMax).trim();
  const bonus = { amountNano, feeNano: platformFeeFor(amountNano), reason };
  let recorded: PaidBonus;
  try {
    recorded = await inTransaction(ctx.db, (trx) => recordBonus(trx, ctx, agentId, taskId, bonus, call));
  } catch (error) {
    // Two calls with one key that both got past the lookup (the HTTP layer lets only one through,
    // but not every caller comes through it): the second's insert hit the unique key and undid
    // everything it wrote; run it again, and it finds the bonus the first one paid.
    if (!isUniqueViolation(error)) throw error;
    recorded = await inTransaction(ctx.db, (trx) => recordBonus(trx, ctx, agentId, taskId, bonus, call));
  }
  // The crash test's point (test/money/killBonus.test.ts): committed, nothing sent yet.
  await failPoint('bonus-before-send');
  return sendBonusTransfers(ctx, recorded);
}

interface CheckedBonus {
  amountNano: bigint;
  feeNano: bigint;
  reason: string;
}

/** The bonus's transaction (see payBonus), or the bonus this key already paid. */
async function recordBonus(
  trx: Executor,
  ctx: DomainContext,
  agentId: string,
  taskId: string,
  { amountNano, feeNano, reason }: CheckedBonus,
  call: { idempotencyKey: string; keyId: string | null },
): Promise<PaidBonus> {
  const seen = await findBonusByKey(trx, agentId, call.idempotencyKey);
  if (seen) return sameBonus(trx, seen, taskId, amountNano, reason);
  const current = await loadAgentTask(trx, agentId, taskId);
  const currency = rowCurrency(current.currency);
  const totalNano = amountNano + feeNano;
  const now = ctx.clock.now();
  const completedSince = new Date(now.getTime() - BONUS_LIMITS.windowDays * DAY_MS).toISOString();
  // Every refusal comes before the first write (see createTask: on SQLite a transaction that
  // fails after a write undoes its commit group); the compare-and-sets below stay the guards.
  refuseUnpayable(current, completedSince);
  await refuseIfFrozen(trx, agentId);
  if (call.keyId) await checkSpend(trx, call.keyId, currency, totalNano, now, { kind: 'bonus' });
  const agent = await findAgent(trx, agentId);
  if (!agent) throw notFound('Agent');
  const balance = balanceOf(agent, currency).balance;
  if (balance < totalNano) throw bonusTooDear(currency, balance, amountNano, feeNano);
  const worker = current.worker_id ? await findWorker(trx, current.worker_id) : undefined;
  assertInvariant(worker?.wallet_address, `the worker paid for task ${taskId} has a wallet`);
  const at = now.toISOString();
  const moved = await recordBonusOnTask(trx, taskId, {
    amountNano,
    feeNano,
    maxCount: BONUS_LIMITS.maxPerTask,
    completedSince,
    at,
  });
  if (!moved) throw tooManyBonuses(current);
  const transfer = (type: 'BONUS' | 'BONUS_FEE', amount: bigint, toAddress: string, comment: string) =>
    bookChainTransfer(trx, ctx, { task: moved, type, amountNano: amount, toAddress, comment }, now);
  const payout = await transfer(
    'BONUS',
    amountNano,
    worker.wallet_address,
    `Handoff bonus for task ${taskId}`,
  );
  const fee =
    feeNano > 0n
      ? await transfer('BONUS_FEE', feeNano, ctx.chain.feeAddress, `Handoff bonus fee for task ${taskId}`)
      : null;
  const bonus: TaskBonusRow = {
    id: newId('bonus', now.getTime()),
    task_id: taskId,
    agent_id: agentId,
    worker_id: worker.id,
    currency,
    amount_nano: amountNano,
    fee_nano: feeNano,
    reason,
    idempotency_key: call.idempotencyKey,
    payout_txn_id: payout.id,
    fee_txn_id: fee?.id ?? null,
    created_at: at,
  };
  await insertBonus(trx, bonus);
  await addWorkerEarnings(trx, worker.id, currency, amountNano);
  await recordBonusNews(trx, moved, bonus, worker.wallet_address, now);
  // The balance moves last (as in createTask: its row lock is then held only until commit).
  const spent = await spendFunds(trx, agentId, currency, totalNano, at);
  if (!spent) {
    const after = await findAgent(trx, agentId);
    throw bonusTooDear(currency, after ? balanceOf(after, currency).balance : 0n, amountNano, feeNano);
  }
  await noteSpend(trx, spent, currency, totalNano, now);
  if (call.keyId) await countSpend(trx, call.keyId, currency, totalNano, now, { kind: 'bonus' });
  return { bonus, task: moved, payout, fee };
}

/** Sends now so the caller gets the hashes; a failed send stays pending for the outbox to retry. */
async function sendBonusTransfers(ctx: DomainContext, paid: PaidBonus): Promise<PaidBonus> {
  const payout = await attemptTransfer(ctx, paid.payout.id);
  const fee = paid.fee && (await attemptTransfer(ctx, paid.fee.id));
  return { ...paid, payout, fee };
}

/**
 * A key this agent already paid a bonus with: the same request answers with that bonus (a retry,
 * even a day later when the HTTP layer no longer remembers the key); another request is a 422.
 */
async function sameBonus(
  trx: Executor,
  bonus: TaskBonusRow,
  taskId: string,
  amountNano: bigint,
  reason: string,
): Promise<PaidBonus> {
  if (bonus.task_id !== taskId || amountNano !== bonus.amount_nano || reason !== bonus.reason) {
    throw new DomainError(
      'unprocessable',
      'This Idempotency-Key was already used for another bonus; use a new key for a new bonus',
      { bonusId: bonus.id },
    );
  }
  return {
    bonus,
    task: await loadAgentTask(trx, bonus.agent_id, taskId),
    payout: await ledgerRow(trx, bonus.payout_txn_id),
    fee: bonus.fee_txn_id ? await ledgerRow(trx, bonus.fee_txn_id) : null,
  };
}

async function ledgerRow(db: Executor, id: string): Promise<TransactionRow> {
  const row = await findLedgerRow(db, id);
  assertInvariant(row, `ledger row ${id} of a bonus exists`);
  return row;
}

/** The amount in the task's currency: at least the smallest reward, at most 10 times the reward. */
export function checkAmount(task: TaskRow, currency: Currency, amount: string | number): bigint {
  const nano = parseAmountField('amount', currency, amount);
  const { minReward } = currencyFacts(currency);
  if (nano < minReward) throw invalid('amount', `must be at least ${amountText(currency, minReward)}`);
  const max = task.reward_nano * BONUS_LIMITS.maxRewardMultiple;
  if (nano > max) {
    throw invalid(
      'amount',
      `must be at most ${BONUS_LIMITS.maxRewardMultiple} times the task's reward, ${amountText(currency, max)}`,
    );
  }
  return nano;
}

/** A bonus goes only to work that ended paid, within the window, below the count. */
function refuseUnpayable(task: TaskRow, completedSince: string): void {
  const status = { currentStatus: task.status };
  if (task.status !== 'COMPLETED') {
    throw conflict(
      task.status === 'CANCELLED'
        ? 'This task was cancelled and nobody was paid; a bonus goes to a worker whose task completed'
        : 'A bonus can be paid once the task is completed (POST /tasks/:id/complete); pay the reward first',
      status,
    );
  }
  if (!task.worker_id || (task.settlement_worker_nano ?? 0n) <= 0n) {
    throw conflict('This task paid its worker nothing, so it takes no bonus', status);
  }
  if (!task.completed_at || task.completed_at < completedSince) {
    throw conflict(
      `A bonus can be paid within ${BONUS_LIMITS.windowDays} days of the task's completion; this task completed at ${task.completed_at}`,
      status,
    );
  }
  if (task.bonus_count >= BONUS_LIMITS.maxPerTask) throw tooManyBonuses(task);
}

function tooManyBonuses(task: TaskRow) {
  return conflict(
    `This task already has ${BONUS_LIMITS.maxPerTask} bonuses, the most one task takes; nothing was paid`,
    { currentStatus: task.status, bonusCount: BONUS_LIMITS.maxPerTask },
  );
}

function bonusTooDear(currency: Currency, balance: bigint, amountNano: bigint, feeNano: bigint): DomainError {
  const text = (units: bigint) => amountText(currency, units);
  const total = amountNano + feeNano;
  return new DomainError('payment_required', 'Insufficient balance', {
    currentBalance: formatAmount(currency, balance),
    requiredAmount: formatAmount(currency, total),
    currency,
    message: `This bonus costs ${text(total)} (bonus ${text(amountNano)} + 30% fee ${text(feeNano)}); your ${currency} balance is ${text(balance)}, ${text(total - balance)} short. Nothing was paid: top up your ${currency} balance and try again.`,
  });
}

/** task.bonus_paid for the agent and the worker's Telegram note with the reason. */
async function recordBonusNews(
  trx: Executor,
  task: TaskRow,
  bonus: TaskBonusRow,
  toAddress: string,
  now: Date,
): Promise<void> {
  const view = bonusView(bonus);
  await recordEvent(trx, {
    agentId: task.agent_id,
    taskId: task.id,
    type: 'task.bonus_paid',
    data: { taskId: task.id, bonus: { ...view, toAddress } },
    now,
  });
  await notifyWorker(trx, {
    workerId: bonus.worker_id,
    taskId: task.id,
    kind: 'bonus_paid',
    data: {
      taskId: task.id,
      title: task.title,
      amount: view.amount,
      currency: view.currency,
      reason: bonus.reason,
    },
    now,
  });
}

/** A bonus as the API shows it (amounts in its currency's decimal form). */
export function bonusView(bonus: TaskBonusRow) {
  const currency = rowCurrency(bonus.currency);
  return {
    id: bonus.id,
    amount: formatAmount(currency, bonus.amount_nano),
    fee: formatAmount(currency, bonus.fee_nano),
    currency,
    reason: bonus.reason,
    createdAt: bonus.created_at,
  };
}
