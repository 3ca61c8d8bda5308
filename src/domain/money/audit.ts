import { sql } from 'kysely';
import { balanceOf } from '../../db/repositories/balances.js';
import { listDepositBookingClashes } from '../../db/repositories/reconciliationRows.js';
import { listUncreditedDeposits } from '../../db/repositories/uncreditedDeposits.js';
import type { DomainContext } from '../context.js';
import { LOCKED_STATUSES } from '../tasks/states.js';
import { CURRENCIES, type Currency, formatAmount } from './currency.js';
import { settlementProblems } from './settlementAudit.js';

export interface AgentAudit {
  agentId: string;
  ok: boolean;
  problems: string[];
}

/**
 * Recomputes every agent's money from the ledger and the tasks and compares it with the running
 * totals on the agent row. The database CHECK keeps the totals consistent with each other; this
 * proves they also agree with history. Tests run it after every step; operators via the API.
 */
export async function auditMoney(ctx: DomainContext, agentId?: string): Promise<AgentAudit[]> {
  const problems = new Map<string, string[]>();
  const ids: string[] = [];
  // Each currency's books are checked on their own: its balance columns against its own ledger
  // rows and tasks, never a sum across currencies.
  for (const currency of CURRENCIES) {
    for (const r of await recomputed(ctx, currency, agentId)) {
      if (currency === 'TON') ids.push(r.id);
      const list = problems.get(r.id) ?? [];
      const stored = balanceOf(r, currency);
      const check = (what: string, kept: bigint, actual: bigint | null) => {
        const where = currency === 'TON' ? what : `${currency} ${what}`;
        if (kept !== (actual ?? 0n)) list.push(`${where}: stored ${kept}, recomputed ${actual ?? 0n}`);
      };
      check('deposited', stored.deposited, r.ledger_deposited_nano);
      check('locked', stored.locked, r.tasks_locked_nano);
      // Bonuses leave the balance directly (never escrowed): their BONUS and BONUS_FEE rows are spent too.
      check(
        'spent',
        stored.spent,
        (r.tasks_completed_nano ?? 0n) - (r.completed_refunded_nano ?? 0n) + (r.ledger_bonus_nano ?? 0n),
      );
      check('spent vs payouts and fees', stored.spent, r.ledger_spent_nano);
      if (stored.balance < 0n) list.push(`negative ${currency} balance ${stored.balance}`);
      if (stored.deposited !== stored.balance + stored.locked + stored.spent)
        list.push(`${currency} conservation broken`);
      problems.set(r.id, list);
    }
  }
  const bookings = await depositBookingProblems(ctx, agentId);
  const outcomes = await settlementProblems(ctx, agentId);
  return ids.map((id) => {
    const list = [...(problems.get(id) ?? []), ...(bookings.get(id) ?? []), ...(outcomes.get(id) ?? [])];
    return { agentId: id, ok: list.length === 0, problems: list };
  });
}

/** Every agent's (or one agent's) row with what its ledger and tasks of `currency` add up to. */
function recomputed(ctx: DomainContext, currency: Currency, agentId?: string) {
  let query = ctx.db
    .selectFrom('agents as a')
    .selectAll('a')
    .select((eb) => [
      eb
        .selectFrom('transactions as t')
        .select(sql<bigint>`coalesce(sum(t.amount_nano), 0)`.as('s'))
        .whereRef('t.agent_id', '=', 'a.id')
        .where('t.currency', '=', currency)
        // A test twin's money comes from the test faucet (test mode); a live agent has no such rows.
        .where('t.type', 'in', ['DEPOSIT', 'TEST_FAUCET'])
        .as('ledger_deposited_nano'),
      eb
        .selectFrom('tasks as k')
        .select(sql<bigint>`coalesce(sum(k.total_nano), 0)`.as('s'))
        .whereRef('k.agent_id', '=', 'a.id')
        .where('k.currency', '=', currency)
        .where('k.status', 'in', LOCKED_STATUSES)
        .as('tasks_locked_nano'),
      eb
        .selectFrom('tasks as k')
        .select(sql<bigint>`coalesce(sum(k.total_nano), 0)`.as('s'))
        .whereRef('k.agent_id', '=', 'a.id')
        .where('k.currency', '=', currency)
        .where('k.status', '=', 'COMPLETED')
        .as('tasks_completed_nano'),
      // A dispute resolved with a split completes its task but returns part of the total.
      eb
        .selectFrom('transactions as t')
        .innerJoin('tasks as k', 'k.id', 't.task_id')
        .select(sql<bigint>`coalesce(sum(t.amount_nano), 0)`.as('s'))
        .whereRef('t.agent_id', '=', 'a.id')
        .where('t.currency', '=', currency)
        .where('t.type', '=', 'REFUND')
        .where('k.status', '=', 'COMPLETED')
        .as('completed_refunded_nano'),
      eb
        .selectFrom('transactions as t')
        .select(sql<bigint>`coalesce(sum(t.amount_nano), 0)`.as('s'))
        .whereRef('t.agent_id', '=', 'a.id')
        .where('t.currency', '=', currency)
        .where('t.type', 'in', ['PAYOUT', 'FEE', 'BONUS', 'BONUS_FEE'])
        .as('ledger_spent_nano'),
      eb
        .selectFrom('transactions as t')
        .select(sql<bigint>`coalesce(sum(t.amount_nano), 0)`.as('s'))
        .whereRef('t.agent_id', '=', 'a.id')
        .where('t.currency', '=', currency)
        .where('t.type', 'in', ['BONUS', 'BONUS_FEE'])
        .as('ledger_bonus_nano'),
    ]);
  if (agentId) query = query.where('a.id', '=', agentId);
  return query.orderBy('a.id').execute();
}

/**
 * A chain transfer is booked once: as a DEPOSIT row, or as an unmatched deposit (an assigned one
 * together with the DEPOSIT row of the agent it was assigned to). A clash is a problem of the
 * agent credited (or assigned), whose balance holds money the books also keep for the operator.
 */
async function depositBookingProblems(ctx: DomainContext, agentId?: string) {
  const { credited, uncredited } = await listDepositBookingClashes(ctx.db, agentId);
  const problems = new Map<string, string[]>();
  const add = (agent: string, problem: string) =>
    problems.set(agent, [...(problems.get(agent) ?? []), problem]);
  for (const c of credited) {
    add(
      c.agent_id,
      c.status === 'assigned'
        ? `deposit ${c.ledger_id} credits chain transfer ${c.tx_hash}, which the operator assigned to ${c.assigned_to}`
        : `deposit ${c.ledger_id} credits chain transfer ${c.tx_hash}, which is also an unmatched deposit (${c.status})`,
    );
  }
  for (const u of uncredited) {
    if (u.agent_id)
      add(
        u.agent_id,
        `unmatched deposit ${u.tx_hash} is assigned to this agent but no DEPOSIT row credits it`,
      );
  }
  return problems;
}

/** Transfers on chain that the books do not hold (see creditChainDeposit), newest first. */
export async function uncreditedDeposits(ctx: DomainContext, limit = 100) {
  const rows = await listUncreditedDeposits(ctx.db, limit);
  return rows.map((r) => ({
    txHash: r.tx_hash,
    agentId: r.agent_id,
    amount: formatAmount(r.currency, BigInt(r.amount_nano)),
    currency: r.currency,
    fromAddress: r.from_address,
    toAddress: r.to_address,
    reason: r.reason,
    createdAt: r.created_at,
  }));
}
