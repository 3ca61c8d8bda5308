import { compiledInsert } from '../compiledQuery.js';
import type { DeliveryRow, Executor, Position } from './executor.js';
import { olderThan } from './pagination.js';

const insertDeliveryRow = compiledInsert('webhook_deliveries');

export function insertDelivery(db: Executor, row: DeliveryRow): Promise<void> {
  return insertDeliveryRow(db, row);
}

export function findDelivery(db: Executor, id: string): Promise<DeliveryRow | undefined> {
  return db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Pending deliveries whose attempt is due, oldest first, with their events. */
export function listDueDeliveries(db: Executor, now: string, limit: number) {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .selectAll('d')
    .select(['e.type as event_type', 'e.data_json as event_data_json', 'e.created_at as event_created_at'])
    .where('d.status', '=', 'pending')
    .where('d.next_attempt_at', '<=', now)
    .orderBy('d.next_attempt_at')
    .limit(limit)
    .execute();
}

/** Puts a failed delivery back in the queue (same id, so receivers can still de-duplicate). */
export function requeueDelivery(db: Executor, id: string, url: string, origin: string, now: string) {
  return db
    .updateTable('webhook_deliveries')
    .set({
      status: 'pending',
      attempts: 0,
      url,
      origin,
      claimed_until: null,
      next_attempt_at: now,
      last_error: null,
      updated_at: now,
    })
    .where('id', '=', id)
    .where('status', '=', 'failed')
    .returningAll()
    .executeTakeFirst();
}

export function listAgentDeliveries(
  db: Executor,
  agentId: string,
  status: DeliveryRow['status'] | undefined,
  after: Position | null,
  limit: number,
) {
  let query = db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .selectAll('d')
    .select([
      'e.type as event_type',
      'e.task_id as event_task_id',
      'e.data_json as event_data_json',
      'e.created_at as event_created_at',
    ])
    .where('d.agent_id', '=', agentId);
  if (status) query = query.where('d.status', '=', status);
  if (after) query = query.where(olderThan(after, 'd'));
  return query.orderBy('d.created_at', 'desc').orderBy('d.id', 'desc').limit(limit).execute();
}

/** Where an event for this agent (and task) goes: the task's URL wins over the agent's. */
export async function webhookTarget(
  db: Executor,
  agentId: string,
  taskId: string | null,
): Promise<string | null> {
  const agent = await db
    .selectFrom('agents')
    .select('webhook_url')
    .where('id', '=', agentId)
    .executeTakeFirst();
  if (taskId) {
    const task = await db
      .selectFrom('tasks')
      .select('webhook_url')
      .where('id', '=', taskId)
      .executeTakeFirst();
    if (task?.webhook_url) return task.webhook_url;
  }
  return agent?.webhook_url ?? null;
}
