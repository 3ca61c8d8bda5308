import { findChatByTask, listChatsOf, touchOpenChat } from '../../db/repositories/chats.js';
import type { ChatRow, MessageRow, Position } from '../../db/repositories/executor.js';
import {
  findMessage,
  insertMessage,
  lastMessages,
  listMessages,
  listMessagesAfter,
  newestMessage,
} from '../../db/repositories/messages.js';
import { findTask } from '../../db/repositories/tasks.js';
import { findUpload } from '../../db/repositories/uploads.js';
import type { DomainContext } from '../context.js';
import { decodeCursor, encodeCursor, page } from '../cursor.js';
import { accessDenied, conflict, invalid, notFound } from '../errors.js';
import { recordEvent } from '../events/events.js';
import { isIdOf, newId, newIdAfter } from '../ids.js';
import { clipText, isBlank, textLength } from '../text.js';
import { inTransaction } from '../transaction.js';
import { notifyWorker } from '../workers/notifications.js';
import { fileUrlOf, parseFileUrl } from './uploads.js';

export const MESSAGE_CONTENT_MAX = 4000;
/** The start of an agent's message that the worker's Telegram notification quotes. */
const PREVIEW_MAX = 200;

/** Who is talking: the task's agent or its worker. */
export type Party = { kind: 'agent'; id: string } | { kind: 'worker'; id: string };

/**
 * The chat of a task the party may read. Agents: their own tasks only (403 otherwise), 404 while
 * the task has no chat (a direct offer not yet accepted). Workers: the chat of a task they were
 * assigned; any other task answers 404, so workers cannot probe other people's tasks.
 */
export async function chatFor(ctx: DomainContext, party: Party, taskId: string): Promise<ChatRow> {
  const task = isIdOf('task', taskId) ? await findTask(ctx.db, taskId) : undefined;
  if (!task) throw notFound('Task');
  if (party.kind === 'agent' && task.agent_id !== party.id) throw accessDenied();
  const chat = await findChatByTask(ctx.db, taskId);
  if (party.kind === 'worker' && chat?.worker_id !== party.id) throw notFound('Chat');
  if (!chat) throw notFound('Chat (the task has no worker yet; a chat opens when one is assigned)');
  return chat;
}

export async function listChatMessages(
  ctx: DomainContext,
  party: Party,
  taskId: string,
  query: { cursor?: string; limit: number },
) {
  const chat = await chatFor(ctx, party, taskId);
  let before: { createdAt: string; id: string } | null = null;
  if (query.cursor) {
    // The cursor is a message id (as the spec says) of this chat.
    const message = isIdOf('message', query.cursor) ? await findMessage(ctx.db, query.cursor) : undefined;
    if (!message || message.chat_id !== chat.id) {
      throw invalid(
        'cursor',
        'must be the id of a message of this chat (the nextCursor of the previous page)',
      );
    }
    before = { createdAt: message.created_at, id: message.id };
  }
  const rows = await listMessages(ctx.db, chat.id, before, query.limit + 1);
  return page(rows, query.limit, (m) => m.id);
}

export interface MessageInput {
  content?: string;
  fileUrl?: string;
  fileName?: string;
  fileSize?: number;
  mimeType?: string;
}

/**
 * Posts a message. Attachments must be files uploaded here first (POST /upload): the file's
 * name, size and type come from the stored upload, not from the caller. A worker's message
 * sends message.received to the agent; every message goes to the open streams after commit.
 */
export async function postMessage(ctx: DomainContext, party: Party, taskId: string, input: MessageInput) {
  const content = input.content ?? '';
  if (textLength(content) > MESSAGE_CONTENT_MAX) {
    throw invalid('content', `must be at most ${MESSAGE_CONTENT_MAX} characters`);
  }
  const file = input.fileUrl ? await storedFile(ctx, party, input.fileUrl) : null;
  if (isBlank(content) && !file) throw invalid('content', 'must not be empty unless a file is attached');
  const chat = await chatFor(ctx, party, taskId);
  if (chat.closed_at) throw chatClosed();
  const published = await inTransaction(ctx.db, async (trx) => {
    const now = ctx.clock.now();
    // The chat's row is locked first, then the message takes its place after the chat's last
    // one: one chat's messages commit in their (createdAt, id) order on every instance, whatever
    // the instances' clocks, so a stream resuming after one of them misses none (resume and
    // catch-up read "after this one" from the database).
    const at = await touchOpenChat(trx, chat.id, now.toISOString());
    if (at === null) throw chatClosed();
    const previous = await newestMessage(trx, chat.id);
    const createdAt = previous && previous.created_at > at ? previous.created_at : at;
    const ms = Date.parse(createdAt);
    const row: MessageRow = {
      id: previous ? newIdAfter('message', ms, previous.id) : newId('message', ms),
      chat_id: chat.id,
      task_id: taskId,
      sender_type: party.kind === 'agent' ? 'AGENT' : 'USER',
      sender_id: party.id,
      content,
      file_url: file?.url ?? null,
      file_name: file?.name ?? null,
      file_size: file?.size ?? null,
      mime_type: file?.mimeType ?? null,
      created_at: createdAt,
    };
    await insertMessage(trx, row);
    if (party.kind === 'worker') {
      await recordEvent(trx, {
        agentId: chat.agent_id,
        taskId,
        type: 'message.received',
        data: { chatId: chat.id, taskId, messageId: row.id, content, hasFile: file !== null },
        now,
      });
    } else {
      await notifyWorker(trx, {
        workerId: chat.worker_id,
        taskId,
        kind: 'message',
        data: { taskId, preview: clipText(content, PREVIEW_MAX), hasFile: file !== null },
        now,
      });
    }
    return { message: row, previousId: previous?.id ?? null };
  });
  ctx.fanout.publish(published);
  return published.message;
}

const chatClosed = () =>
  conflict('This chat is closed (the task was cancelled or its worker ran out of time); it stays readable');

/**
 * The sender's own stored upload. Anyone else's (another agent's, another worker's, or the other
 * party's of this chat) is refused like an unknown one: a file URL is unguessable but not
 * secret once shown, and attaching it would vouch for a file the sender never sent. The URL
 * kept is the upload's canonical one, rebuilt here: the caller's spelling (dot segments, a
 * query string, another name) never reaches the other party.
 */
export async function storedFile(ctx: DomainContext, party: Party, fileUrl: string, path = 'fileUrl') {
  const named = parseFileUrl(ctx, fileUrl);
  const upload = named && isIdOf('upload', named.id) ? await findUpload(ctx.db, named.id) : undefined;
  if (!named || upload?.status !== 'stored' || upload.size === null) {
    throw invalid(path, 'must be a fileUrl returned by POST /upload (upload the file first)');
  }
  const ownerType = party.kind === 'agent' ? 'AGENT' : 'USER';
  if (upload.owner_type !== ownerType || upload.owner_id !== party.id) {
    throw invalid(path, 'must be a file you uploaded yourself (upload it with POST /upload first)');
  }
  if (named.name !== upload.file_name) {
    throw invalid(
      path,
      'must be the fileUrl the upload returned, unchanged (its own file name, no query string or fragment)',
    );
  }
  return {
    url: fileUrlOf(ctx, upload),
    name: upload.file_name,
    size: upload.size,
    mimeType: upload.mime_type,
  };
}

export async function listChats(ctx: DomainContext, party: Party, query: { cursor?: string; limit: number }) {
  const values = decodeCursor<[string, string]>(query.cursor, ['string', 'string']);
  const after = values ? { updatedAt: values[0], id: values[1] } : null;
  const filter = party.kind === 'agent' ? { agentId: party.id } : { workerId: party.id };
  const rows = await listChatsOf(ctx.db, filter, after, query.limit + 1);
  const result = page(rows, query.limit, (c) => encodeCursor([c.updated_at, c.id]));
  const last = await lastMessages(
    ctx.db,
    result.items.map((c) => c.id),
  );
  return {
    ...result,
    items: result.items.map((chat) => ({ chat, lastMessage: last.get(chat.id) ?? null })),
  };
}

/** Messages a stream reads from the database at a time when it replays or catches up. */
export const REPLAY_MAX = 1000;

/** Where a stream resumes: the message its Last-Event-ID names, if that is a message of this chat. */
export async function resumePosition(ctx: DomainContext, chat: ChatRow, lastEventId: string) {
  if (!isIdOf('message', lastEventId)) return null;
  const message = await findMessage(ctx.db, lastEventId);
  return message && message.chat_id === chat.id ? { createdAt: message.created_at, id: message.id } : null;
}

/** The chat's messages after a position (from its first when null), oldest first, one page of a replay. */
export function messagesSince(
  ctx: DomainContext,
  chat: ChatRow,
  after: Position | null,
): Promise<MessageRow[]> {
  return listMessagesAfter(ctx.db, chat.id, after, REPLAY_MAX);
}

/** Where a stream without Last-Event-ID starts: after the chat's last message (null: before its first). */
export async function streamStart(ctx: DomainContext, chat: ChatRow): Promise<Position | null> {
  const last = await newestMessage(ctx.db, chat.id);
  return last ? { createdAt: last.created_at, id: last.id } : null;
}
