import type { Executor, NotificationRow, Position } from './executor.js';
import { olderThan } from './pagination.js';

export async function insertNotification(db: Executor, row: NotificationRow): Promise<void> {
  await db.insertInto('notifications').values(row).execute();
}

/** A pending notification of this kind for this worker and task, not yet sent (to batch into). */
export function findPendingNotification(
  db: Executor,
  workerId: string,
  taskId: string,
  kind: NotificationRow['kind'],
) {
  return db
    .selectFrom('notifications')
    .selectAll()
    .where('worker_id', '=', workerId)
    .where('task_id', '=', taskId)
    .where('kind', '=', kind)
    .where('status', '=', 'pending')
    .where('attempts', '=', 0)
    .executeTakeFirst();
}

/** Merges a burst into one pending notification; fails (undefined) once sending has started. */
export function updatePendingData(db: Executor, id: string, dataJson: string, now: string) {
  return db
    .updateTable('notifications')
    .set({ data_json: dataJson, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('attempts', '=', 0)
    .returning('id')
    .executeTakeFirst();
}

export function listDueNotifications(db: Executor, now: string, limit: number) {
  return db
    .selectFrom('notifications as n')
    .innerJoin('workers as w', 'w.id', 'n.worker_id')
    .selectAll('n')
    .select(['w.telegram_id', 'w.language', 'w.timezone'])
    .where('n.status', '=', 'pending')
    .where('n.next_attempt_at', '<=', now)
    .orderBy('n.next_attempt_at')
    .limit(limit)
    .execute();
}

/**
 * Newest first, with the worker's telegram_id (the chat the notification goes to), language and
 * time zone (what it is written in) and first name (the operator page shows names next to ids).
 */
export function listNotifications(
  db: Executor,
  filter: { workerId?: string; status?: NotificationRow['status'] },
  after: Position | null,
  limit: number,
) {
  let query = db
    .selectFrom('notifications as n')
    .innerJoin('workers as w', 'w.id', 'n.worker_id')
    .selectAll('n')
    .select(['w.telegram_id', 'w.language', 'w.timezone', 'w.first_name as worker_first_name']);
  if (filter.workerId) query = query.where('n.worker_id', '=', filter.workerId);
  if (filter.status) query = query.where('n.status', '=', filter.status);
  if (after) query = query.where(olderThan(after, 'n'));
  return query.orderBy('n.created_at', 'desc').orderBy('n.id', 'desc').limit(limit).execute();
}

/** The data as of now: a batched message may have grown between listing and claiming. */
export async function findNotificationData(db: Executor, id: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('notifications')
    .select('data_json')
    .where('id', '=', id)
    .executeTakeFirst();
  return row?.data_json;
}

/** Task titles and agent names that notification texts name (chat messages store neither). */
export function findTaskLabels(db: Executor, taskIds: string[]) {
  if (taskIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('tasks as t')
    .innerJoin('agents as a', 'a.id', 't.agent_id')
    .select(['t.id', 't.title', 'a.name as agent_name'])
    .where('t.id', 'in', taskIds)
    .execute();
}

/** The sent offer message of a worker's task (to take its buttons away once withdrawn). */
export function findSentOffer(db: Executor, workerId: string, taskId: string) {
  return db
    .selectFrom('notifications')
    .select(['kind', 'data_json', 'telegram_message_id'])
    .where('worker_id', '=', workerId)
    .where('task_id', '=', taskId)
    .where('kind', '=', 'offer')
    .where('status', '=', 'sent')
    .where('telegram_message_id', 'is not', null)
    .orderBy('created_at', 'desc')
    .executeTakeFirst();
}

/**
 * When the direct offers this agent sent this worker after `since` were made, oldest first: one
 * `offer` notification per offer, counted where the offer was written (the notification row).
 */
export async function listOfferTimes(
  db: Executor,
  agentId: string,
  workerId: string,
  since: string,
): Promise<string[]> {
  const rows = await db
    .selectFrom('notifications as n')
    .innerJoin('tasks as t', 't.id', 'n.task_id')
    .select('n.created_at')
    .where('n.worker_id', '=', workerId)
    .where('n.kind', '=', 'offer')
    .where('n.created_at', '>', since)
    .where('t.agent_id', '=', agentId)
    .orderBy('n.created_at')
    .execute();
  return rows.map((r) => r.created_at);
}
