import { type Expression, type SqlBool, sql } from 'kysely';
import type { Executor } from './executor.js';

/** Counts stop here: a badge says "99+" long before, and no count scans a chat's whole history. */
export const UNREAD_COUNT_CAP = 100;
/** The worker's most recently active chats that get a count (older ones are long read or closed). */
export const UNREAD_CHATS_MAX = 100;

/**
 * Moves the worker's read point in a chat forward to the message at `at` (compare-and-set: a
 * point further on, from another screen or instance, is never moved back). True when it moved.
 */
export async function advanceReadMarker(
  db: Executor,
  chatId: string,
  at: { createdAt: string; id: string },
): Promise<boolean> {
  const result = await db
    .updateTable('chats')
    .set({ worker_read_at: at.createdAt, worker_read_message_id: at.id })
    .where('id', '=', chatId)
    .where((eb) =>
      eb.or([
        eb('worker_read_at', 'is', null),
        eb('worker_read_at', '<', at.createdAt),
        eb.and([eb('worker_read_at', '=', at.createdAt), eb('worker_read_message_id', '<', at.id)]),
      ]),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * The agent's messages after the worker's read point, per chat, for the worker's most recently
 * active chats; chats with nothing unread are left out. Each count reads at most
 * UNREAD_COUNT_CAP rows (a limited subquery on the (chat_id, created_at) index).
 */
export async function unreadCounts(
  db: Executor,
  workerId: string,
): Promise<{ taskId: string; unread: number }[]> {
  const rows = await db
    .selectFrom(
      db
        .selectFrom('chats')
        .select(['id', 'task_id', 'worker_read_at', 'worker_read_message_id', 'updated_at'])
        .where('worker_id', '=', workerId)
        .orderBy('updated_at', 'desc')
        .orderBy('id', 'desc')
        .limit(UNREAD_CHATS_MAX)
        .as('c'),
    )
    .select((eb) => [
      'c.task_id as taskId',
      eb
        .selectFrom(
          eb
            .selectFrom('messages as m')
            .select('m.id')
            .whereRef('m.chat_id', '=', 'c.id')
            .where('m.sender_type', '=', 'AGENT')
            .where(
              (w): Expression<SqlBool> =>
                w.or([
                  w('c.worker_read_at', 'is', null),
                  w('m.created_at', '>', w.ref('c.worker_read_at')),
                  w.and([
                    w('m.created_at', '=', w.ref('c.worker_read_at')),
                    w('m.id', '>', w.ref('c.worker_read_message_id')),
                  ]),
                ]) as Expression<SqlBool>,
            )
            .limit(UNREAD_COUNT_CAP)
            .as('u'),
        )
        .select(sql<number>`count(*)`.as('n'))
        .as('unread'),
    ])
    .orderBy('c.updated_at', 'desc')
    .execute();
  return rows.map((r) => ({ taskId: r.taskId, unread: Number(r.unread ?? 0) })).filter((r) => r.unread > 0);
}
