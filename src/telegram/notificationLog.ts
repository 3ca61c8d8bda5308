import { listNotifications } from '../db/repositories/notifications.js';
import type { NotificationTable } from '../db/schema.js';
import type { DomainContext } from '../domain/context.js';
import { decodePosition, page, positionCursor } from '../domain/cursor.js';
import { labelsFor } from '../domain/workers/notifications.js';
import { renderStored } from './notifier.js';

export interface NotificationLogQuery {
  status?: NotificationTable['status'];
  workerId?: string;
  cursor?: string;
  limit: number;
}

/**
 * The operator's view of the bot's outbox, newest first: each notification with the chat it goes
 * to and the text it is (or was, or would be) sent as. Without a bot token this is where the
 * `recorded` notifications are read.
 */
export async function listNotificationLog(ctx: DomainContext, query: NotificationLogQuery) {
  const rows = await listNotifications(
    ctx.db,
    { status: query.status, workerId: query.workerId },
    decodePosition(query.cursor),
    query.limit + 1,
  );
  const { items, hasMore, nextCursor } = page(rows, query.limit, positionCursor);
  const labels = await labelsFor(ctx.db, items);
  return {
    items: items.map((row) => ({
      row,
      message: renderStored(row.kind, row.data_json, labels.get(row.task_id ?? ''), {
        language: row.language,
        timeZone: row.timezone,
      }),
    })),
    hasMore,
    nextCursor,
  };
}
