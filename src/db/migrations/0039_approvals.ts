import { type Kysely, sql } from 'kysely';

// Frozen once released. Approvals (issue 38, docs/decisions/approvals.md): a task whose total is
// above its API key's `approvalAbove` waits here for the agent's owner instead of being escrowed.
// `body_json` is the task body as the agent posted it (checked then, checked again when approved);
// `amount_nano` its total (reward + fee) in `currency`. The status moves once, from PENDING, by a
// compare-and-set: APPROVED (with the task it created), DECLINED, EXPIRED, or FAILED (the approval
// was given but the task could not be created then: `failure` says why, `failure_status` its code).

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('approvals')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id'))
    .addColumn('api_key_id', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull().check(sql`currency in ('TON', 'USDT')`))
    .addColumn('amount_nano', 'bigint', (c) => c.notNull().check(sql`amount_nano > 0`))
    .addColumn('body_json', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('PENDING', 'APPROVED', 'DECLINED', 'EXPIRED', 'FAILED')`),
    )
    .addColumn('task_id', 'text', (c) => c.references('tasks.id'))
    .addColumn('failure', 'text')
    .addColumn('failure_status', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('decided_at', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // GET /approvals (newest first, optionally by status).
  await db.schema
    .createIndex('approvals_agent')
    .on('approvals')
    .columns(['agent_id', 'created_at', 'id'])
    .execute();
  // The expiry job's scan and the console's queue: only the pending rows.
  await db.schema
    .createIndex('approvals_pending')
    .on('approvals')
    .columns(['expires_at', 'id'])
    .where(sql.ref('status'), '=', 'PENDING')
    .execute();
}
