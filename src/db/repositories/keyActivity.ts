import { sql } from 'kysely';
import type { Executor, Position } from './executor.js';

/**
 * What one API key's tasks did, for the owner's console (issue 38, scope 4): the ledger rows and
 * events of the tasks the key escrowed (`tasks.api_key_id`). A bonus's ledger rows name the task,
 * not the key that paid it, so a bonus counts under the key that created its task.
 */

/** The ledger rows that are a key's spending (escrow, bonus and its fee) and the refunds that give it back. */
export const KEY_SPEND_TYPES = ['TASK_ESCROW', 'BONUS', 'BONUS_FEE', 'REFUND'] as const;

/** One key's ledger summed per UTC day, currency and type since `since` (YYYY-MM-DD): one grouped query. */
export async function dailyKeyLedgerTotals(db: Executor, agentId: string, keyId: string, since: string) {
  const day = sql<string>`substr(transactions.created_at, 1, 10)`;
  const rows = await db
    .selectFrom('transactions')
    .innerJoin('tasks', 'tasks.id', 'transactions.task_id')
    .select([
      day.as('day'),
      'transactions.currency',
      'transactions.type',
      (eb) => eb.fn.sum('transactions.amount_nano').as('total_nano'),
    ])
    .where('transactions.agent_id', '=', agentId)
    .where('tasks.api_key_id', '=', keyId)
    .where('transactions.type', 'in', KEY_SPEND_TYPES)
    .where('transactions.created_at', '>=', since)
    .groupBy([day, 'transactions.currency', 'transactions.type'])
    .execute();
  return rows.map((r) => ({
    day: r.day,
    currency: r.currency,
    type: r.type,
    totalNano: BigInt(r.total_nano ?? 0),
  }));
}

/**
 * The events the activity log shows besides the ledger: what workers, reviews, expiry and
 * disputes did to the key's tasks. Money events (task.funded, task.completed, refund.processed,
 * payment.sent, task.bonus_paid) are left out: their ledger rows say the same with the amount.
 */
export const ACTIVITY_EVENT_TYPES = [
  'application.accepted',
  'offer.accepted',
  'offer.declined',
  'task.submitted',
  'task.rejected_by_review',
  'task.partial_offered',
  'task.expired',
  'dispute.opened',
  'dispute.resolved',
] as const;

export interface KeyActivityRow {
  id: string;
  created_at: string;
  source: 'ledger' | 'event';
  /** The ledger row's type or the event's type. */
  kind: string;
  task_id: string | null;
  task_title: string | null;
  currency: string | null;
  amount_nano: bigint | string | null;
  /** Who decided the task's money outcome (the task's recorded settlement), for its ledger rows. */
  settled_by: string | null;
}

/**
 * One page of a key's activity, newest first by (created_at, id): its tasks' ledger rows and
 * events in one query. `search` matches a task id exactly or a task title's text (any case).
 */
export async function listKeyActivity(
  db: Executor,
  agentId: string,
  keyId: string,
  options: { after: Position | null; search: string | null; limit: number },
): Promise<KeyActivityRow[]> {
  const ledger = db
    .selectFrom('transactions')
    .innerJoin('tasks', 'tasks.id', 'transactions.task_id')
    .select([
      'transactions.id as id',
      'transactions.created_at as created_at',
      sql<string>`'ledger'`.as('source'),
      (eb) => eb.ref('transactions.type').$castTo<string>().as('kind'),
      'transactions.task_id as task_id',
      'tasks.title as task_title',
      'transactions.currency as currency',
      (eb) => eb.ref('transactions.amount_nano').$castTo<bigint | null>().as('amount_nano'),
      'tasks.settled_by as settled_by',
    ])
    .where('transactions.agent_id', '=', agentId)
    .where('tasks.api_key_id', '=', keyId);
  const events = db
    .selectFrom('events')
    .innerJoin('tasks', 'tasks.id', 'events.task_id')
    .select([
      'events.id as id',
      'events.created_at as created_at',
      sql<string>`'event'`.as('source'),
      'events.type as kind',
      'events.task_id as task_id',
      'tasks.title as task_title',
      'tasks.currency as currency',
      sql<bigint | null>`cast(null as bigint)`.as('amount_nano'),
      'tasks.settled_by as settled_by',
    ])
    .where('events.agent_id', '=', agentId)
    .where('tasks.api_key_id', '=', keyId)
    .where('events.type', 'in', ACTIVITY_EVENT_TYPES);
  let query = db.selectFrom(ledger.unionAll(events).as('activity')).selectAll();
  if (options.after) {
    const { createdAt, id } = options.after;
    query = query.where((eb) =>
      eb.or([
        eb('activity.created_at', '<', createdAt),
        eb.and([eb('activity.created_at', '=', createdAt), eb('activity.id', '<', id)]),
      ]),
    );
  }
  if (options.search) {
    const pattern = `%${options.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const search = options.search;
    query = query.where((eb) =>
      eb.or([
        eb('activity.task_id', '=', search),
        eb(sql`lower(activity.task_title)`, 'like', sql`${pattern} escape '\\'`),
      ]),
    );
  }
  const rows = await query
    .orderBy('activity.created_at', 'desc')
    .orderBy('activity.id', 'desc')
    .limit(options.limit)
    .execute();
  return rows as KeyActivityRow[];
}
