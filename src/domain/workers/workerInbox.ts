import { advanceReadMarker, unreadCounts } from '../../db/repositories/chatReads.js';
import { findMessage } from '../../db/repositories/messages.js';
import { listRatingsOfWorker, workerEarningTotals } from '../../db/repositories/workerEarnings.js';
import { chatFor } from '../chat/chat.js';
import type { DomainContext } from '../context.js';
import { decodePosition, page, positionCursor } from '../cursor.js';
import { invalid } from '../errors.js';
import { isIdOf } from '../ids.js';

/**
 * The worker saw a task's chat up to `messageId` (the newest message their chat screen showed).
 * Only the worker of the task's chat may move its marker (any other caller gets chatFor's 404),
 * and it only moves forward.
 */
export async function markChatRead(
  ctx: DomainContext,
  workerId: string,
  taskId: string,
  messageId: string,
): Promise<boolean> {
  const chat = await chatFor(ctx, { kind: 'worker', id: workerId }, taskId);
  const message = isIdOf('message', messageId) ? await findMessage(ctx.db, messageId) : undefined;
  if (!message || message.chat_id !== chat.id) {
    throw invalid('messageId', 'must be the id of a message of this task’s chat');
  }
  return advanceReadMarker(ctx.db, chat.id, { createdAt: message.created_at, id: message.id });
}

/** Unread agent messages per task for the worker's recent chats, and their sum. */
export async function unreadOfWorker(ctx: DomainContext, workerId: string) {
  const chats = await unreadCounts(ctx.db, workerId);
  return { total: chats.reduce((sum, c) => sum + c.unread, 0), chats };
}

export function earningsOfWorker(ctx: DomainContext, workerId: string) {
  return workerEarningTotals(ctx.db, workerId);
}

/** GET /worker/ratings: what agents said about the worker's work, newest first. */
export async function ratingsOfWorker(
  ctx: DomainContext,
  workerId: string,
  query: { cursor?: string; limit: number },
) {
  const rows = await listRatingsOfWorker(ctx.db, workerId, decodePosition(query.cursor), query.limit + 1);
  return page(rows, query.limit, positionCursor);
}
