import { sql } from 'kysely';
import type { ChatRow, Executor } from './executor.js';

export async function insertChat(db: Executor, row: ChatRow): Promise<void> {
  await db.insertInto('chats').values(row).execute();
}

/** The task's current chat: the open one, else the one closed last (a task has one per assignment). */
export function findChatByTask(db: Executor, taskId: string): Promise<ChatRow | undefined> {
  return db
    .selectFrom('chats')
    .selectAll()
    .where('task_id', '=', taskId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export async function closeChat(db: Executor, taskId: string, now: string): Promise<void> {
  await db
    .updateTable('chats')
    .set({ closed_at: now, updated_at: now })
    .where('task_id', '=', taskId)
    .where('closed_at', 'is', null)
    .execute();
}

/**
 * Marks the chat active, only while it is open: the compare-and-set that lets a message in, so a
 * message cannot land in a chat a concurrent refund or expiry has just closed.
 */
/**
 * Marks an open chat active for a new message and locks its row until the transaction ends, so
 * one chat's messages are written one at a time. Its time never goes back (`updated_at` stays if
 * it is later than `now`: another instance's clock may be ahead). Returns that time, or null
 * when the chat is closed.
 */
export async function touchOpenChat(db: Executor, id: string, now: string): Promise<string | null> {
  const row = await db
    .updateTable('chats')
    .set({ updated_at: sql<string>`case when updated_at > ${now} then updated_at else ${now} end` })
    .where('id', '=', id)
    .where('closed_at', 'is', null)
    .returning('updated_at')
    .executeTakeFirst();
  return row?.updated_at ?? null;
}

/** Chats of an agent or a worker with their tasks and workers, most recently active first. */
export function listChatsOf(
  db: Executor,
  party: { agentId?: string; workerId?: string },
  after: { updatedAt: string; id: string } | null,
  limit: number,
) {
  let query = db
    .selectFrom('chats as c')
    .innerJoin('tasks as t', 't.id', 'c.task_id')
    .innerJoin('workers as w', 'w.id', 'c.worker_id')
    .innerJoin('agents as a', 'a.id', 'c.agent_id')
    .selectAll('c')
    .select([
      't.title as task_title',
      't.status as task_status',
      'w.username as worker_username',
      'w.first_name as worker_first_name',
      'w.show_telegram as worker_show_telegram',
      'a.name as agent_name',
    ]);
  if (party.agentId) query = query.where('c.agent_id', '=', party.agentId);
  if (party.workerId) query = query.where('c.worker_id', '=', party.workerId);
  if (after) {
    query = query.where((eb) =>
      eb.or([
        eb('c.updated_at', '<', after.updatedAt),
        eb.and([eb('c.updated_at', '=', after.updatedAt), eb('c.id', '<', after.id)]),
      ]),
    );
  }
  return query.orderBy('c.updated_at', 'desc').orderBy('c.id', 'desc').limit(limit).execute();
}
