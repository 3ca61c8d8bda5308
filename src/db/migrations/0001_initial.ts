import { type Kysely, sql } from 'kysely';

// Frozen once released: later changes go into new migrations.
// Written with the schema builder so one file serves SQLite and PostgreSQL.

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('agents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text')
    .addColumn('webhook_url', 'text')
    .addColumn('balance_nano', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('locked_nano', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('deposited_nano', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('spent_nano', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('rating_sum', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('rating_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    // Conservation and no negative balance, enforced by the database on every update: a bug in
    // any money path fails its transaction instead of committing a wrong balance.
    .addCheckConstraint('agents_no_negative', sql`balance_nano >= 0 and locked_nano >= 0 and spent_nano >= 0`)
    .addCheckConstraint('agents_conservation', sql`deposited_nano = balance_nano + locked_nano + spent_nano`)
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id'))
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('key_ciphertext', 'text', (c) => c.notNull())
    .addColumn('key_hint', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('api_keys_agent').on('api_keys').column('agent_id').execute();

  await db.schema
    .createTable('workers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('telegram_id', 'text', (c) => c.notNull().unique())
    .addColumn('username', 'text')
    .addColumn('first_name', 'text', (c) => c.notNull())
    .addColumn('last_name', 'text')
    .addColumn('headline', 'text')
    .addColumn('bio', 'text')
    .addColumn('city', 'text')
    .addColumn('state', 'text')
    .addColumn('country', 'text')
    .addColumn('timezone', 'text')
    .addColumn('skills_json', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('social_links_json', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('hourly_rate_nano', 'bigint')
    .addColumn('available', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('show_telegram', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('wallet_address', 'text')
    .addColumn('completed_tasks', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('total_earned_nano', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('rating_sum', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('rating_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('workers_catalog')
    .on('workers')
    .columns(['completed_tasks', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('worker_skills')
    .addColumn('worker_id', 'text', (c) => c.notNull().references('workers.id'))
    .addColumn('skill', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('worker_skills_pk', ['worker_id', 'skill'])
    .execute();
  await db.schema.createIndex('worker_skills_skill').on('worker_skills').column('skill').execute();

  await db.schema
    .createTable('tasks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('reward_nano', 'bigint', (c) => c.notNull().check(sql`reward_nano > 0`))
    .addColumn('fee_nano', 'bigint', (c) => c.notNull().check(sql`fee_nano >= 0`))
    .addColumn('total_nano', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('payment_status', 'text', (c) => c.notNull())
    .addColumn('execution_deadline_days', 'integer')
    .addColumn('deadline', 'text')
    .addColumn('execution_deadline', 'text')
    .addColumn('webhook_url', 'text')
    .addColumn('worker_id', 'text', (c) => c.references('workers.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('assigned_at', 'text')
    .addColumn('completed_at', 'text')
    .addColumn('cancelled_at', 'text')
    .addColumn('cancel_reason', 'text')
    .addCheckConstraint('tasks_total', sql`total_nano = reward_nano + fee_nano`)
    .execute();
  await db.schema.createIndex('tasks_agent').on('tasks').columns(['agent_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('tasks_status').on('tasks').columns(['status', 'created_at', 'id']).execute();
  await db.schema.createIndex('tasks_worker').on('tasks').columns(['worker_id', 'status']).execute();

  await db.schema
    .createTable('applications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('task_id', 'text', (c) => c.notNull().references('tasks.id'))
    .addColumn('worker_id', 'text', (c) => c.notNull().references('workers.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('applications_one_per_worker', ['task_id', 'worker_id'])
    .execute();
  await db.schema
    .createIndex('applications_task')
    .on('applications')
    .columns(['task_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('applications_worker')
    .on('applications')
    .columns(['worker_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('chats')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('task_id', 'text', (c) => c.notNull().references('tasks.id'))
    .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id'))
    .addColumn('worker_id', 'text', (c) => c.notNull().references('workers.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('closed_at', 'text')
    .execute();
  // One open chat per task; a task reassigned after its worker ran out of time gets a new chat,
  // so the next worker does not read the previous one's conversation.
  await db.schema
    .createIndex('chats_one_open_per_task')
    .unique()
    .on('chats')
    .column('task_id')
    .where(sql.ref('closed_at'), 'is', null)
    .execute();
  await db.schema.createIndex('chats_task').on('chats').columns(['task_id', 'created_at']).execute();
  await db.schema.createIndex('chats_agent').on('chats').columns(['agent_id', 'updated_at']).execute();
  await db.schema.createIndex('chats_worker').on('chats').columns(['worker_id', 'updated_at']).execute();

  await db.schema
    .createTable('transactions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id'))
    .addColumn('task_id', 'text', (c) => c.references('tasks.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('amount_nano', 'bigint', (c) => c.notNull().check(sql`amount_nano > 0`))
    .addColumn('from_address', 'text')
    .addColumn('to_address', 'text')
    .addColumn('tx_hash', 'text', (c) => c.unique())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('transactions_agent')
    .on('transactions')
    .columns(['agent_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('transactions_agent_type')
    .on('transactions')
    .columns(['agent_id', 'type', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('transactions_task').on('transactions').column('task_id').execute();

  await db.schema
    .createTable('chain_transfers')
    .addColumn('txn_id', 'text', (c) => c.primaryKey().references('transactions.id'))
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('amount_nano', 'bigint', (c) => c.notNull().check(sql`amount_nano > 0`))
    .addColumn('comment', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('chain_transfers_due')
    .on('chain_transfers')
    .columns(['status', 'next_attempt_at'])
    .execute();

  await db.schema
    .createTable('ratings')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('task_id', 'text', (c) => c.notNull().references('tasks.id'))
    .addColumn('rater_type', 'text', (c) => c.notNull())
    .addColumn('rater_id', 'text', (c) => c.notNull())
    .addColumn('ratee_id', 'text', (c) => c.notNull())
    .addColumn('score', 'integer', (c) => c.notNull().check(sql`score between 1 and 5`))
    .addColumn('comment', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('ratings_one_per_side', ['task_id', 'rater_type'])
    .execute();

  await db.schema
    .createTable('events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id'))
    .addColumn('task_id', 'text')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('data_json', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('events_agent').on('events').columns(['agent_id', 'created_at']).execute();
}
