import type { Updateable } from 'kysely';
import { spendLockedFunds, unlockFunds } from '../../db/repositories/balances.js';
import type { Executor, TaskRow, TransactionRow, WorkerRow } from '../../db/repositories/executor.js';
import { insertLedgerRow } from '../../db/repositories/ledger.js';
import { moveTask } from '../../db/repositories/tasks.js';
import { insertTransfer } from '../../db/repositories/transfers.js';
import { findWorker, recordCompletedTask } from '../../db/repositories/workers.js';
import type { Database, SettledBy } from '../../db/schema.js';
import { returnSpend } from '../agents/keyPolicies.js';
import type { DomainContext } from '../context.js';
import { disputeSplit } from '../disputes/disputeSplit.js';
import { assertInvariant } from '../errors.js';
import { newId } from '../ids.js';
import { completeBatchIfDone } from '../tasks/batchCompletion.js';
import { TASK_MOVES } from '../tasks/states.js';
import { rowCurrency } from './currency.js';

export type { SettledBy } from '../../db/schema.js';

/**
 * What became of a task's escrowed total when it ended, in the task's currency's smallest unit.
 * The three parts add up to the total exactly. Recorded once, on the task row, by the move that
 * ends it (endTask); every view reads it from there and none recomputes it from the reward.
 */
export interface Outcome {
  /** Sent to the worker on chain. */
  workerNano: bigint;
  /** Sent to the platform on chain. */
  feeNano: bigint;
  /** Back to the agent's balance of the task's currency. */
  refundedNano: bigint;
  /** The agent (or its owner), an operator, or the review clock (auto-release). */
  decidedBy: SettledBy;
}

type Amounts = Pick<TaskRow, 'reward_nano' | 'fee_nano' | 'total_nano'>;

/** The whole reward to the worker and the whole fee to the platform (an approval). */
export function paidInFull(task: Amounts, decidedBy: SettledBy): Outcome {
  return { workerNano: task.reward_nano, feeNano: task.fee_nano, refundedNano: 0n, decidedBy };
}

/** Everything back to the agent (a cancel or refund before any work was paid). */
export function refundedInFull(task: Amounts, decidedBy: SettledBy): Outcome {
  return { workerNano: 0n, feeNano: 0n, refundedNano: task.total_nano, decidedBy };
}

/**
 * Part of the reward to the worker (an operator's split, a graded approval): the fee is taken in
 * proportion to what the worker gets, rounded down, and the rest goes back to the agent
 * (disputeSplit). 0 is a refund of everything; the whole reward is paidInFull.
 */
export function paidInPart(task: Amounts, workerNano: bigint, decidedBy: SettledBy): Outcome {
  const split = disputeSplit(task, workerNano);
  return { workerNano: split.workerNano, feeNano: split.feeNano, refundedNano: split.agentNano, decidedBy };
}

/** The moves that end a task, and so must record its outcome. */
export type EndingMove = 'complete' | 'autoRelease' | 'refund' | 'cancel';

export interface Ending {
  move: EndingMove;
  outcome: Outcome;
  /** The move's other columns (payment status, completed_at or cancelled_at, reasons ...). */
  set: Omit<Updateable<Database['tasks']>, 'status' | 'id' | SettlementColumn>;
  /** The move's compare-and-set guards (moveTask). */
  guard?: Parameters<typeof moveTask>[4];
}

export interface Ended {
  /** The task as the move left it, its outcome recorded. */
  task: TaskRow;
  /** The worker paid, when the outcome pays the worker anything. */
  worker: WorkerRow | null;
  /** Pending PAYOUT and FEE rows (their transfers are sent after commit), the REFUND row. */
  payout: TransactionRow | null;
  fee: TransactionRow | null;
  refund: TransactionRow | null;
}

type SettlementColumn =
  | 'settlement_worker_nano'
  | 'settlement_fee_nano'
  | 'settlement_refunded_nano'
  | 'settled_by'
  | 'settled_at';

/** A task that has not ended has no outcome: a new task row starts with these. */
export const UNSETTLED: Pick<TaskRow, SettlementColumn> = {
  settlement_worker_nano: null,
  settlement_fee_nano: null,
  settlement_refunded_nano: null,
  settled_by: null,
  settled_at: null,
};

/**
 * Ends a task, in the caller's transaction: the only way a task becomes COMPLETED or CANCELLED.
 * One compare-and-set UPDATE moves the task and records its outcome (a CHECK in the database,
 * migration 0028, refuses an ended task without one, or one that does not add up to the total);
 * then the money follows the outcome: the worker's and the fee's part leave the agent's locked
 * funds as pending PAYOUT and FEE rows with their intended chain transfers, the rest is unlocked
 * back to the balance with a REFUND row, and the worker's earnings grow by what they were paid;
 * the last open task of a batch completes the batch.
 * Returns undefined, having written nothing, when the compare-and-set lost (another request
 * moved the task first); events and notifications are the caller's, as they differ per path.
 *
 * `task` is the task as the caller read it in this transaction: only its amounts, currency,
 * agent and worker are used, and those never change once the task exists.
 */
export async function endTask(
  trx: Executor,
  ctx: DomainContext,
  task: TaskRow,
  ending: Ending,
  now: Date,
): Promise<Ended | undefined> {
  const { outcome } = ending;
  assertOutcome(task, ending.move, outcome);
  const at = now.toISOString();
  const moved = await moveTask(
    trx,
    task.id,
    ending.move,
    {
      ...ending.set,
      settlement_worker_nano: outcome.workerNano,
      settlement_fee_nano: outcome.feeNano,
      settlement_refunded_nano: outcome.refundedNano,
      settled_by: outcome.decidedBy,
      settled_at: at,
    },
    ending.guard,
  );
  if (!moved) return undefined;
  const currency = rowCurrency(moved.currency);
  const spentNano = outcome.workerNano + outcome.feeNano;
  if (spentNano > 0n) {
    const agent = await spendLockedFunds(trx, moved.agent_id, currency, spentNano, at);
    assertInvariant(agent, `task ${moved.id} had its total locked`);
  }
  if (outcome.refundedNano > 0n) {
    const agent = await unlockFunds(trx, moved.agent_id, currency, outcome.refundedNano, at);
    assertInvariant(agent, `task ${moved.id} had its total locked`);
    // What comes back gives room back to the spend limits of the key that escrowed it.
    await returnSpend(trx, { ...moved, currency }, outcome.refundedNano, now);
  }
  let worker: WorkerRow | null = null;
  let payout: TransactionRow | null = null;
  if (outcome.workerNano > 0n) {
    worker = (moved.worker_id && (await findWorker(trx, moved.worker_id))) || null;
    assertInvariant(worker?.wallet_address, `the worker paid for task ${moved.id} has a wallet`);
    payout = await bookChainTransfer(
      trx,
      ctx,
      {
        task: moved,
        type: 'PAYOUT',
        amountNano: outcome.workerNano,
        toAddress: worker.wallet_address,
        comment: `Handoff payout for task ${moved.id}`,
      },
      now,
    );
    await recordCompletedTask(trx, worker.id, currency, outcome.workerNano);
  }
  const fee =
    outcome.feeNano > 0n
      ? await bookChainTransfer(
          trx,
          ctx,
          {
            task: moved,
            type: 'FEE',
            amountNano: outcome.feeNano,
            toAddress: ctx.chain.feeAddress,
            comment: `Handoff fee for task ${moved.id}`,
          },
          now,
        )
      : null;
  const refund = outcome.refundedNano > 0n ? await bookRefund(trx, moved, outcome.refundedNano, now) : null;
  // The last open task of a batch ends the batch (batch.completed), in this same transaction.
  await completeBatchIfDone(trx, moved, now);
  return { task: moved, worker, payout, fee, refund };
}

/**
 * An outcome must be one the books can hold: nothing negative, the worker never more than the
 * reward nor the platform more than its fee, the parts adding up to the escrowed total, and a
 * cancelled task paying nobody.
 */
function assertOutcome(task: Amounts, move: EndingMove, o: Outcome): void {
  assertInvariant(
    o.workerNano >= 0n && o.feeNano >= 0n && o.refundedNano >= 0n,
    'no part of an outcome is negative',
  );
  assertInvariant(o.workerNano <= task.reward_nano, 'the worker is paid at most the reward');
  assertInvariant(o.feeNano <= task.fee_nano, 'the platform takes at most its fee');
  assertInvariant(
    o.workerNano + o.feeNano + o.refundedNano === task.total_nano,
    'an outcome adds up to the escrowed total',
  );
  if (TASK_MOVES[move].to === 'CANCELLED') {
    assertInvariant(o.workerNano === 0n && o.feeNano === 0n, 'a cancelled task pays nobody');
  }
}

/**
 * Writes a pending PAYOUT or FEE (or a bonus's BONUS or BONUS_FEE) ledger row and its intended chain transfer, in the caller's
 * transaction. Nothing is sent here: the transfer goes out after commit (attemptTransfer) or by
 * the outbox runner, at most once (the gateway is idempotent on the transfer id).
 */
export async function bookChainTransfer(
  trx: Executor,
  ctx: DomainContext,
  entry: {
    task: TaskRow;
    type: 'PAYOUT' | 'FEE' | 'BONUS' | 'BONUS_FEE';
    amountNano: bigint;
    toAddress: string;
    comment: string;
  },
  now: Date,
): Promise<TransactionRow> {
  const at = now.toISOString();
  const row: TransactionRow = {
    id: newId('transaction', now.getTime()),
    agent_id: entry.task.agent_id,
    task_id: entry.task.id,
    type: entry.type,
    // The task's currency: a ledger row and its transfer never differ from their task.
    currency: entry.task.currency,
    amount_nano: entry.amountNano,
    from_address: ctx.chain.hotWalletAddress,
    to_address: entry.toAddress,
    tx_hash: null,
    status: 'pending',
    created_at: at,
    updated_at: at,
  };
  await insertLedgerRow(trx, row);
  await insertTransfer(trx, {
    txn_id: row.id,
    to_address: entry.toAddress,
    currency: row.currency,
    amount_nano: entry.amountNano,
    comment: entry.comment,
    status: 'pending',
    attempts: 0,
    next_attempt_at: at,
    last_error: null,
    created_at: at,
    updated_at: at,
  });
  return row;
}

/** A REFUND ledger row: money back on the agent's balance (no chain transfer). */
export async function bookRefund(
  trx: Executor,
  task: TaskRow,
  amountNano: bigint,
  now: Date,
): Promise<TransactionRow> {
  const at = now.toISOString();
  const row: TransactionRow = {
    id: newId('transaction', now.getTime()),
    agent_id: task.agent_id,
    task_id: task.id,
    type: 'REFUND',
    currency: task.currency,
    amount_nano: amountNano,
    from_address: null,
    to_address: null,
    tx_hash: null,
    status: 'confirmed',
    created_at: at,
    updated_at: at,
  };
  await insertLedgerRow(trx, row);
  return row;
}
