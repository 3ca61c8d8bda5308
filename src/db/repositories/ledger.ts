import { sql } from 'kysely';
import { compiledInsert } from '../compiledQuery.js';
import type { Executor, Position, TransactionRow } from './executor.js';
import { olderThan } from './pagination.js';

const insertTransactionRow = compiledInsert('transactions');

export function insertLedgerRow(db: Executor, row: TransactionRow): Promise<void> {
  return insertTransactionRow(db, row);
}

export function findLedgerRow(db: Executor, id: string): Promise<TransactionRow | undefined> {
  return db.selectFrom('transactions').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findLedgerRowByHash(db: Executor, txHash: string) {
  return db.selectFrom('transactions').selectAll().where('tx_hash', '=', txHash).executeTakeFirst();
}

/** Marks a pending chain entry confirmed with the chain's transaction hash. */
export function confirmLedgerRow(
  db: Executor,
  id: string,
  chain: { txHash: string; fromAddress: string },
  now: string,
) {
  return db
    .updateTable('transactions')
    .set({ status: 'confirmed', tx_hash: chain.txHash, from_address: chain.fromAddress, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .returningAll()
    .executeTakeFirst();
}

export function listAgentLedger(
  db: Executor,
  agentId: string,
  type: TransactionRow['type'] | undefined,
  after: Position | null,
  limit: number,
) {
  let query = db
    .selectFrom('transactions')
    .leftJoin('tasks', 'tasks.id', 'transactions.task_id')
    .selectAll('transactions')
    .select('tasks.title as task_title')
    .where('transactions.agent_id', '=', agentId);
  if (type) query = query.where('transactions.type', '=', type);
  if (after) query = query.where(olderThan(after, 'transactions'));
  return query
    .orderBy('transactions.created_at', 'desc')
    .orderBy('transactions.id', 'desc')
    .limit(limit)
    .execute();
}

/** Count and sum per currency and ledger type for one agent (stats): `${currency} ${type}` keys. */
export async function ledgerTotals(db: Executor, agentId: string) {
  const rows = await db
    .selectFrom('transactions')
    .select([
      'currency',
      'type',
      (eb) => eb.fn.countAll<number>().as('n'),
      (eb) => eb.fn.sum('amount_nano').as('total_nano'),
    ])
    .where('agent_id', '=', agentId)
    .groupBy(['currency', 'type'])
    .execute();
  return new Map(
    rows.map((r) => [
      `${r.currency} ${r.type}`,
      { count: Number(r.n), totalNano: BigInt(r.total_nano ?? 0) },
    ]),
  );
}

/** The PAYOUT rows of tasks done by a worker, newest first (keyset by created_at, id). */
export function listWorkerPayouts(db: Executor, workerId: string, after: Position | null, limit: number) {
  let query = db
    .selectFrom('transactions')
    .innerJoin('tasks', 'tasks.id', 'transactions.task_id')
    .selectAll('transactions')
    .select('tasks.title as task_title')
    .where('tasks.worker_id', '=', workerId)
    .where('transactions.type', 'in', ['PAYOUT', 'BONUS']);
  if (after) query = query.where(olderThan(after, 'transactions'));
  return query
    .orderBy('transactions.created_at', 'desc')
    .orderBy('transactions.id', 'desc')
    .limit(limit)
    .execute();
}

/** One agent's ledger summed per UTC day and type since `since` (the console's spending chart). */
export async function dailyLedgerTotals(db: Executor, agentId: string, since: string) {
  const day = sql<string>`substr(created_at, 1, 10)`;
  const rows = await db
    .selectFrom('transactions')
    .select([day.as('day'), 'type', (eb) => eb.fn.sum('amount_nano').as('total_nano')])
    .where('agent_id', '=', agentId)
    // The console's chart is of TON (issue 29 leaves USDT charts to the console's own work).
    .where('currency', '=', 'TON')
    .where('created_at', '>=', since)
    .groupBy([day, 'type'])
    .orderBy(day)
    .execute();
  return rows.map((r) => ({ day: r.day, type: r.type, totalNano: BigInt(r.total_nano ?? 0) }));
}
