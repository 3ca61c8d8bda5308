import { sql } from 'kysely';
import type { DomainContext } from '../context.js';

/**
 * Every ended task's recorded outcome (src/domain/money/settlement.ts) against its own ledger rows:
 * what the views say a task paid, took and returned must be what the books moved. One grouped
 * query that returns only the tasks that differ. Returns the problems by agent, for auditMoney.
 */
export async function settlementProblems(
  ctx: DomainContext,
  agentId?: string,
): Promise<Map<string, string[]>> {
  const booked = (type: string) =>
    sql<bigint>`coalesce(sum(case when t.type = ${type} then t.amount_nano else 0 end), 0)`;
  let query = ctx.db
    .selectFrom('tasks as k')
    .leftJoin('transactions as t', 't.task_id', 'k.id')
    .select([
      'k.id',
      'k.agent_id',
      'k.settlement_worker_nano as worker_nano',
      'k.settlement_fee_nano as fee_nano',
      'k.settlement_refunded_nano as refunded_nano',
      booked('PAYOUT').as('ledger_worker_nano'),
      booked('FEE').as('ledger_fee_nano'),
      booked('REFUND').as('ledger_refunded_nano'),
      'k.bonus_nano',
      'k.bonus_fee_nano',
      booked('BONUS').as('ledger_bonus_nano'),
      booked('BONUS_FEE').as('ledger_bonus_fee_nano'),
    ])
    .where('k.settled_by', 'is not', null)
    .groupBy([
      'k.id',
      'k.agent_id',
      'k.settlement_worker_nano',
      'k.settlement_fee_nano',
      'k.settlement_refunded_nano',
      'k.bonus_nano',
      'k.bonus_fee_nano',
    ])
    .having((eb) =>
      eb.or([
        eb('k.settlement_worker_nano', '<>', booked('PAYOUT')),
        eb('k.settlement_fee_nano', '<>', booked('FEE')),
        eb('k.settlement_refunded_nano', '<>', booked('REFUND')),
        // Bonuses: the sums the task shows against the rows that paid them.
        eb('k.bonus_nano', '<>', booked('BONUS')),
        eb('k.bonus_fee_nano', '<>', booked('BONUS_FEE')),
      ]),
    );
  if (agentId) query = query.where('k.agent_id', '=', agentId);
  const problems = new Map<string, string[]>();
  for (const r of await query.orderBy('k.id').limit(100).execute()) {
    const list = problems.get(r.agent_id) ?? [];
    if (
      r.bonus_nano !== BigInt(r.ledger_bonus_nano) ||
      r.bonus_fee_nano !== BigInt(r.ledger_bonus_fee_nano)
    ) {
      list.push(
        `task ${r.id}: its bonuses (${r.bonus_nano}, fees ${r.bonus_fee_nano}) differ from its BONUS and BONUS_FEE rows (${r.ledger_bonus_nano}, ${r.ledger_bonus_fee_nano})`,
      );
    }
    list.push(
      `task ${r.id}: its recorded outcome (worker ${r.worker_nano}, fee ${r.fee_nano}, refunded ${r.refunded_nano}) ` +
        `differs from its ledger rows (${r.ledger_worker_nano}, ${r.ledger_fee_nano}, ${r.ledger_refunded_nano})`,
    );
    problems.set(r.agent_id, list);
  }
  return problems;
}
