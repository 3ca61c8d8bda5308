import { type Kysely, PostgresAdapter, sql } from 'kysely';

// Frozen once released. A task's money outcome, recorded once (issue 36, docs/decisions/settlement.md; "One
// record of what a task paid"): when a task ends (COMPLETED or CANCELLED) the same UPDATE that
// moves it writes what the worker was paid (`settlement_worker_nano`), the fee the platform took
// (`settlement_fee_nano`), what went back to the agent's balance (`settlement_refunded_nano`),
// who decided (`settled_by`: agent | operator | auto) and when (`settled_at`). Every view reads
// these; none recomputes them from the reward.
//
// The rule, as a CHECK: an ended task has all of them, the three amounts are not negative, the
// worker got at most the reward and they add up to the escrowed total exactly; a task that has
// not ended has none. Because the move and the outcome are one statement, an ending path that
// forgets the outcome fails its transaction instead of committing a task nobody can explain.
//
// Tasks that ended before this migration get their outcome from their own ledger rows (PAYOUT,
// FEE, REFUND), which every ending path has always written in the task's transaction: decided by
// an operator when the task had a dispute (only its resolution can end such a task), by the
// review clock when task.completed said autoReleased or the worker was told of an auto-release,
// else by the agent.

const ENDED = sql`status in ('COMPLETED', 'CANCELLED')`;
const OUTCOME = sql`settled_by is not null and settled_by in ('agent', 'operator', 'auto')
  and settlement_worker_nano is not null and settlement_fee_nano is not null
  and settlement_refunded_nano is not null
  and settlement_worker_nano >= 0 and settlement_fee_nano >= 0 and settlement_refunded_nano >= 0
  and settlement_worker_nano <= reward_nano
  and settlement_worker_nano + settlement_fee_nano + settlement_refunded_nano = total_nano`;
const NO_OUTCOME = sql`settled_by is null and settlement_worker_nano is null
  and settlement_fee_nano is null and settlement_refunded_nano is null`;
const RULE = sql`case when ${ENDED} then (${OUTCOME}) else (${NO_OUTCOME}) end`;

const ledgerSum = (type: string) =>
  sql`coalesce((select sum(t.amount_nano) from transactions t where t.task_id = tasks.id and t.type = ${type}), 0)`;

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types
export async function up(db: Kysely<any>): Promise<void> {
  // First, before anything changes: SQLite runs DDL outside a transaction, so a refusal after
  // the first new column would leave it behind.
  await refuseUnbalancedTasks(db);
  const tasks = () => db.schema.alterTable('tasks');
  await tasks().addColumn('settlement_worker_nano', 'bigint').execute();
  await tasks().addColumn('settlement_fee_nano', 'bigint').execute();
  await tasks().addColumn('settlement_refunded_nano', 'bigint').execute();
  await tasks().addColumn('settled_by', 'text').execute();
  await sql`update tasks set
      settlement_worker_nano = ${ledgerSum('PAYOUT')},
      settlement_fee_nano = ${ledgerSum('FEE')},
      settlement_refunded_nano = ${ledgerSum('REFUND')},
      settled_by = case
        when dispute_id is not null then 'operator'
        when exists (select 1 from events e where e.task_id = tasks.id and e.type = 'task.completed'
                       and e.data_json like '%"autoReleased":true%')
          or exists (select 1 from notifications n where n.task_id = tasks.id and n.kind = 'auto_released')
          then 'auto'
        else 'agent' end
    where ${ENDED}`.execute(db);
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await tasks().addColumn('settled_at', 'text').execute();
    await tasks().addCheckConstraint('tasks_settlement', RULE).execute();
  } else {
    // SQLite adds no constraint to an existing table, but a column's CHECK may name the row's
    // other columns: the last column added carries the rule (0020_currencies does the same).
    await tasks()
      .addColumn('settled_at', 'text', (c) => c.check(RULE))
      .execute();
  }
  await sql`update tasks set settled_at = coalesce(completed_at, cancelled_at, updated_at) where ${ENDED}`.execute(
    db,
  );
}

/**
 * An ended task whose ledger rows do not add up to its total cannot be given an outcome that is
 * true: stop here, naming the tasks, rather than invent one (GET /admin/audit shows the agent's
 * books; no path of this code has written such a task).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types
async function refuseUnbalancedTasks(db: Kysely<any>): Promise<void> {
  const { rows } = await sql<{ id: string }>`select id from tasks
    where ${ENDED}
      and (${ledgerSum('PAYOUT')} + ${ledgerSum('FEE')} + ${ledgerSum('REFUND')} <> total_nano
           or ${ledgerSum('PAYOUT')} > reward_nano)
    order by id limit 20`.execute(db);
  if (rows.length > 0) {
    throw new Error(
      `tasks ${rows.map((r) => r.id).join(', ')} ended with ledger rows that do not add up to their total; ` +
        'their outcome cannot be recorded: fix their books (GET /admin/audit) and migrate again',
    );
  }
}
