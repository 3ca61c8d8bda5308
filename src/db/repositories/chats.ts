import type { ChatRow, Executor } from './executor.js';

export async function insertChat(db: Executor, row: ChatRow): Promise<void> {
  await db.insertInto('chats').values(row).execute();
}

export function findChatByTask(db: Executor, taskId: string): Promise<ChatRow | undefined> {
  return db.selectFrom('chats').selectAll().where('task_id', '=', taskId).executeTakeFirst();
}

export async function closeChat(db: Executor, taskId: string, now: string): Promise<void> {
  await db
    .updateTable('chats')
    .set({ closed_at: now, updated_at: now })
    .where('task_id', '=', taskId)
    .where('closed_at', 'is', null)
    .execute();
}
