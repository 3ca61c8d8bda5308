import type { Executor, TaskRow, TransactionRow } from '../db/repositories/executor.js';
import { insertLedgerRow } from '../db/repositories/ledger.js';
import { insertTransfer } from '../db/repositories/transfers.js';
import type { DomainContext } from './context.js';
import { newId } from './ids.js';

/**
 * Writes a pending PAYOUT or FEE ledger row and its intended chain transfer, in the caller's
 * transaction. Nothing is sent here: the transfer goes out after commit (attemptTransfer) or by
 * the outbox runner, at most once (the gateway is idempotent on the transfer id).
 */
export async function bookChainTransfer(
  trx: Executor,
  ctx: DomainContext,
  entry: { task: TaskRow; type: 'PAYOUT' | 'FEE'; amountNano: bigint; toAddress: string; comment: string },
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
