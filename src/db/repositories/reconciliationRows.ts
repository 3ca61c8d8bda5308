import type { Currency } from '../../domain/money/currency.js';
import type { Executor } from './executor.js';

/**
 * What reconciliation compares with the chain: every ledger row that moves TON on chain
 * (deposits, payouts, fees; confirmed or pending, with the transfer we meant to send), every
 * unmatched deposit whatever its status, and the deposits recorded as uncredited.
 */
export function listChainLedgerRows(db: Executor, currency: Currency) {
  return (
    db
      .selectFrom('transactions')
      .leftJoin('chain_transfers', 'chain_transfers.txn_id', 'transactions.id')
      .select([
        'transactions.id',
        'transactions.agent_id',
        'transactions.type',
        'transactions.status',
        'transactions.amount_nano',
        'transactions.to_address',
        'transactions.tx_hash',
        'transactions.created_at',
        'chain_transfers.to_address as transfer_to',
        'chain_transfers.comment',
        'chain_transfers.status as transfer_status',
        'chain_transfers.attempts',
        'chain_transfers.last_error',
      ])
      .where((eb) =>
        eb.or([
          eb('transactions.type', 'in', ['DEPOSIT', 'PAYOUT', 'FEE', 'BONUS', 'BONUS_FEE']),
          eb('transactions.status', '=', 'pending'),
        ]),
      )
      // TON rows are compared with the hot wallet's history, USDT rows with its jetton wallets'.
      .where('transactions.currency', '=', currency)
      // A test twin's rows never reach a chain (test mode): not the operator's books.
      .where(({ exists, selectFrom }) =>
        exists(
          selectFrom('agents')
            .select('agents.id')
            .whereRef('agents.id', '=', 'transactions.agent_id')
            .where('agents.livemode', '=', 1),
        ),
      )
      .orderBy('transactions.created_at')
      .orderBy('transactions.id')
      .execute()
  );
}

export function listAllUnmatchedDeposits(db: Executor) {
  return db
    .selectFrom('unmatched_deposits')
    .select(['tx_hash', 'amount_nano', 'status', 'agent_id', 'currency', 'reason'])
    .orderBy('tx_hash')
    .execute();
}

export function listUncreditedReasons(db: Executor) {
  return db.selectFrom('uncredited_deposits').select(['tx_hash', 'reason']).execute();
}

/**
 * Chain transfers booked twice or not at all between the ledger and the unmatched deposits: a
 * DEPOSIT row whose transfer is also an unmatched deposit not assigned to that row's agent, and
 * an unmatched deposit marked assigned that no DEPOSIT row credits. Neither needs the chain.
 */
export async function listDepositBookingClashes(db: Executor, agentId?: string) {
  let credited = db
    .selectFrom('unmatched_deposits as u')
    .innerJoin('transactions as t', 't.tx_hash', 'u.tx_hash')
    .select(['t.agent_id', 't.id as ledger_id', 'u.tx_hash', 'u.status', 'u.agent_id as assigned_to'])
    .where('t.type', '=', 'DEPOSIT')
    .where((eb) =>
      eb.or([
        eb('u.status', '!=', 'assigned'),
        eb('u.agent_id', 'is', null),
        eb('u.agent_id', '!=', eb.ref('t.agent_id')),
      ]),
    );
  if (agentId) credited = credited.where('t.agent_id', '=', agentId);
  let uncredited = db
    .selectFrom('unmatched_deposits as u')
    .leftJoin('transactions as t', 't.tx_hash', 'u.tx_hash')
    .select(['u.agent_id', 'u.tx_hash'])
    .where('u.status', '=', 'assigned')
    .where('t.id', 'is', null);
  if (agentId) uncredited = uncredited.where('u.agent_id', '=', agentId);
  return { credited: await credited.execute(), uncredited: await uncredited.execute() };
}
