import { sql } from 'kysely';
import type { Executor } from './executor.js';

/**
 * Whole-service money sums over agents (operator overview). Live agents only: a test twin's money
 * is test money from the test faucet, never the operator's (test mode, migration 0042).
 */
export async function agentTotals(db: Executor) {
  const row = await db
    .selectFrom('agents')
    .select([
      (eb) => eb.fn.countAll<number>().as('n'),
      (eb) => eb.fn.sum('balance_nano').as('balance_nano'),
      (eb) => eb.fn.sum('locked_nano').as('locked_nano'),
      (eb) => eb.fn.sum('deposited_nano').as('deposited_nano'),
      (eb) => eb.fn.sum('spent_nano').as('spent_nano'),
      (eb) => eb.fn.sum('usdt_balance_micro').as('usdt_balance_micro'),
      (eb) => eb.fn.sum('usdt_locked_micro').as('usdt_locked_micro'),
      (eb) => eb.fn.sum('usdt_deposited_micro').as('usdt_deposited_micro'),
      (eb) => eb.fn.sum('usdt_spent_micro').as('usdt_spent_micro'),
    ])
    .where('livemode', '=', 1)
    .executeTakeFirstOrThrow();
  return {
    count: Number(row.n),
    balanceNano: BigInt(row.balance_nano ?? 0),
    lockedNano: BigInt(row.locked_nano ?? 0),
    depositedNano: BigInt(row.deposited_nano ?? 0),
    spentNano: BigInt(row.spent_nano ?? 0),
    usdt: {
      balanceMicro: BigInt(row.usdt_balance_micro ?? 0),
      lockedMicro: BigInt(row.usdt_locked_micro ?? 0),
      depositedMicro: BigInt(row.usdt_deposited_micro ?? 0),
      spentMicro: BigInt(row.usdt_spent_micro ?? 0),
    },
  };
}

/**
 * What live agents' tasks sent out, per currency and ledger type: PAYOUT and BONUS rows went to
 * workers, FEE and BONUS_FEE rows to the platform. Booked rows, pending or confirmed: a pending
 * one is already owed (its transfer is on its way or waits for the operator).
 */
export async function outgoingByCurrency(db: Executor) {
  const rows = await db
    .selectFrom('transactions')
    .innerJoin('agents', 'agents.id', 'transactions.agent_id')
    .select([
      'transactions.currency as currency',
      'transactions.type as type',
      (eb) => eb.fn.sum('transactions.amount_nano').as('amount'),
    ])
    .where('agents.livemode', '=', 1)
    .where('transactions.type', 'in', ['PAYOUT', 'BONUS', 'FEE', 'BONUS_FEE'])
    .groupBy(['transactions.currency', 'transactions.type'])
    .execute();
  return rows.map((r) => ({
    currency: String(r.currency),
    type: String(r.type),
    units: BigInt(r.amount ?? 0),
  }));
}

export function topAgentsByBalance(db: Executor, limit: number) {
  return (
    db
      .selectFrom('agents')
      .leftJoin('owners', 'owners.id', 'agents.owner_id')
      .selectAll('agents')
      .select('owners.wallet_address as owner_wallet')
      .where('agents.livemode', '=', 1)
      .orderBy('agents.balance_nano', 'desc')
      // An agent holding only USDT is listed by that balance among the TON-less.
      .orderBy('agents.usdt_balance_micro', 'desc')
      .orderBy('agents.id')
      .limit(limit)
      .execute()
  );
}

/** The newest deposits with their agent's name (the operator page shows names next to ids). */
export function recentDeposits(db: Executor, limit: number) {
  return db
    .selectFrom('transactions')
    .leftJoin('agents', 'agents.id', 'transactions.agent_id')
    .selectAll('transactions')
    .select('agents.name as agent_name')
    .where('transactions.type', '=', 'DEPOSIT')
    .orderBy('transactions.created_at', 'desc')
    .orderBy('transactions.id', 'desc')
    .limit(limit)
    .execute();
}

/** Chain transfers not yet sent, oldest first, with the ledger kind (PAYOUT or FEE). */
export function openTransfers(db: Executor, limit: number) {
  return (
    db
      .selectFrom('chain_transfers')
      .innerJoin('transactions', 'transactions.id', 'chain_transfers.txn_id')
      .selectAll('chain_transfers')
      .select('transactions.type as kind')
      // Failed ones too: given up on and still owed, the operator's to look at (finding 2).
      .where('chain_transfers.status', 'in', ['pending', 'failed'])
      .orderBy('chain_transfers.created_at')
      .limit(limit)
      .execute()
  );
}

/** Count of rows per status in an outbox-like table. */
export async function statusCounts(
  db: Executor,
  table: 'chain_transfers' | 'webhook_deliveries' | 'notifications',
) {
  const rows = await db
    .selectFrom(table)
    .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy('status')
    .execute();
  return new Map(rows.map((r) => [String(r.status), Number(r.n)]));
}

/** Transfers given up on (failed, still owed) and pending ones whose last attempt failed (retried). */
export async function countFailingTransfers(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('chain_transfers')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where((eb) =>
      eb.or([
        eb('status', '=', 'failed'),
        eb.and([eb('status', '=', 'pending'), eb('last_error', 'is not', null)]),
      ]),
    )
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Deposits nobody could be credited for that still wait for the operator. */
export async function countOpenUnmatchedDeposits(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('unmatched_deposits')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', '=', 'open')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function databaseAnswers(db: Executor): Promise<boolean> {
  const { rows } = await sql<{ one: number }>`select 1 as one`.execute(db);
  return Number(rows[0]?.one) === 1;
}

/** Approvals waiting for their owners whose time is not up at `now` (issue 38), across all owners. */
export async function countPendingApprovals(db: Executor, now: string): Promise<number> {
  const row = await db
    .selectFrom('approvals')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', '=', 'PENDING')
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
