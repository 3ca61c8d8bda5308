import { insertChat } from '../../db/repositories/chats.js';
import type { ChatRow, Executor, TaskRow } from '../../db/repositories/executor.js';
import { newId } from '../ids.js';

/** The chat of a task, created in the transaction that assigns its worker. */
export async function openChat(trx: Executor, task: TaskRow, workerId: string, now: Date): Promise<ChatRow> {
  const chat: ChatRow = {
    id: newId('chat', now.getTime()),
    task_id: task.id,
    agent_id: task.agent_id,
    worker_id: workerId,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    closed_at: null,
    worker_read_at: null,
    worker_read_message_id: null,
  };
  await insertChat(trx, chat);
  return chat;
}
