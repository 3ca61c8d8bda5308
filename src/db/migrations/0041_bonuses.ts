import { type Kysely, sql } from 'kysely';

// Frozen once released. Bonuses (issue 40, docs/decisions/bonuses-and-graded-approval.md): an agent
// pays a worker more than the reward for a task that ended paid. Each bonus is one row here, made in
// the transaction that debits the agent and books the BONUS and BONUS_FEE ledger rows with their
// chain transfers: the worker's amount, the fee on it, the reason shown to the worker, and the
// caller's Idempotency-Key, unique per agent, so a retry (even after the HTTP layer forgot the key)
// finds the bonus it already paid instead of paying again. The task keeps the running count and
// sums (`bonus_count`, `bonus_nano`, `bonus_fee_nano`): the compare-and-set that bounds a task's
// bonuses takes the task row, and the task's money view reads them from there.

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('task_bonuses')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('task_id', 'text', (c) => c.notNull().references('tasks.id'))
    .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id'))
    .addColumn('worker_id', 'text', (c) => c.notNull().references('workers.id'))
    .addColumn('currency', 'text', (c) => c.notNull().check(sql`currency in ('TON', 'USDT')`))
    .addColumn('amount_nano', 'bigint', (c) => c.notNull().check(sql`amount_nano > 0`))
    .addColumn('fee_nano', 'bigint', (c) => c.notNull().check(sql`fee_nano >= 0`))
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('payout_txn_id', 'text', (c) => c.notNull())
    .addColumn('fee_txn_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('task_bonuses_one_per_key', ['agent_id', 'idempotency_key'])
    .execute();
  await db.schema
    .createIndex('task_bonuses_task')
    .on('task_bonuses')
    .columns(['task_id', 'created_at'])
    .execute();
  await db.schema
    .alterTable('tasks')
    .addColumn('bonus_count', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('tasks')
    .addColumn('bonus_nano', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('tasks')
    .addColumn('bonus_fee_nano', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
}
