import type { Executor, NotificationRow } from '../../db/repositories/executor.js';
import {
  findPendingNotification,
  findSentOffer,
  findTaskLabels,
  insertNotification,
  updatePendingData,
} from '../../db/repositories/notifications.js';
import type { NotificationKind } from '../../db/schema.js';
import { newId } from '../ids.js';

/** Agent messages within this window after the first become one notification. */
export const MESSAGE_BATCH_MS = 30_000;

/**
 * Queues a Telegram notification to a worker inside the caller's transaction (the bot's outbox):
 * it exists exactly when its cause committed, and the sender delivers it later, never blocking
 * the request. Agent messages are batched: while one is waiting to be sent, later messages of
 * the same task add to its count instead of queueing another.
 */
export async function notifyWorker(
  trx: Executor,
  n: { workerId: string; taskId: string; kind: NotificationKind; data: Record<string, unknown>; now: Date },
): Promise<void> {
  const at = n.now.toISOString();
  if (n.kind === 'message') {
    const pending = await findPendingNotification(trx, n.workerId, n.taskId, 'message');
    if (pending) {
      const previous = JSON.parse(pending.data_json) as { count?: number };
      const merged = { ...n.data, count: (previous.count ?? 1) + 1 };
      if (await updatePendingData(trx, pending.id, JSON.stringify(merged), at)) return;
    }
  }
  await insertNotification(trx, {
    id: newId('notification', n.now.getTime()),
    worker_id: n.workerId,
    task_id: n.taskId,
    kind: n.kind,
    data_json: JSON.stringify(n.kind === 'message' ? { ...n.data, count: 1 } : n.data),
    status: 'pending',
    attempts: 0,
    next_attempt_at: n.kind === 'message' ? new Date(n.now.getTime() + MESSAGE_BATCH_MS).toISOString() : at,
    last_error: null,
    sent_at: null,
    telegram_message_id: null,
    created_at: at,
    updated_at: at,
  });
}

/** The current title and agent name of each row's task, in one query (texts name both). */
export async function labelsFor(
  db: Executor,
  rows: { task_id: string | null }[],
): Promise<Map<string, { title: string; agentName: string | null }>> {
  const ids = [...new Set(rows.map((r) => r.task_id).filter((id): id is string => id !== null))];
  const found = await findTaskLabels(db, ids);
  return new Map(found.map((t) => [t.id, { title: t.title, agentName: t.agent_name }]));
}

/**
 * For an `offer_withdrawn` notification: the offer message the worker was sent (its Telegram
 * message id and text), which the withdrawal replaces so its buttons go away; otherwise none.
 */
export async function offerReplacedBy(
  db: Executor,
  row: Pick<NotificationRow, 'kind' | 'worker_id' | 'task_id'>,
): Promise<{ telegramMessageId: string; dataJson: string } | null> {
  if (row.kind !== 'offer_withdrawn' || !row.task_id) return null;
  const offer = await findSentOffer(db, row.worker_id, row.task_id);
  if (!offer?.telegram_message_id) return null;
  return { telegramMessageId: offer.telegram_message_id, dataJson: offer.data_json };
}
