import type { Executor, MessageRow, Position } from './executor.js';
import { olderThan } from './pagination.js';

export async function insertMessage(db: Executor, row: MessageRow): Promise<void> {
  await db.insertInto('messages').values(row).execute();
}

export function findMessage(db: Executor, id: string): Promise<MessageRow | undefined> {
  return db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A chat's messages, newest first, strictly older than `before`. */
export function listMessages(db: Executor, chatId: string, before: Position | null, limit: number) {
  let query = db.selectFrom('messages').selectAll().where('chat_id', '=', chatId);
  if (before) query = query.where(olderThan(before));
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** The chat's last message in its order (the one a new message follows). */
export function newestMessage(db: Executor, chatId: string): Promise<MessageRow | undefined> {
  return db
    .selectFrom('messages')
    .selectAll()
    .where('chat_id', '=', chatId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** Messages after `after` (from the first when null) in sending order: stream replay and catch-up. */
export function listMessagesAfter(db: Executor, chatId: string, after: Position | null, limit: number) {
  let query = db.selectFrom('messages').selectAll().where('chat_id', '=', chatId);
  if (after) {
    query = query.where((eb) =>
      eb.or([
        eb('created_at', '>', after.createdAt),
        eb.and([eb('created_at', '=', after.createdAt), eb('id', '>', after.id)]),
      ]),
    );
  }
  return query.orderBy('created_at').orderBy('id').limit(limit).execute();
}

/** The newest message of each of these chats (chat lists show it). */
export async function lastMessages(db: Executor, chatIds: string[]): Promise<Map<string, MessageRow>> {
  if (chatIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('messages as m')
    .selectAll('m')
    .where('m.chat_id', 'in', chatIds)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('messages as n')
            .select('n.id')
            .whereRef('n.chat_id', '=', 'm.chat_id')
            .where((eb) =>
              eb.or([
                eb('n.created_at', '>', eb.ref('m.created_at')),
                eb.and([eb('n.created_at', '=', eb.ref('m.created_at')), eb('n.id', '>', eb.ref('m.id'))]),
              ]),
            ),
        ),
      ),
    )
    .execute();
  return new Map(rows.map((r) => [r.chat_id, r]));
}
