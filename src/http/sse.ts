import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ChatRow, MessageRow, Position } from '../db/repositories/executor.js';
import { messagesSince, REPLAY_MAX, resumePosition, streamStart } from '../domain/chat.js';
import type { DomainContext } from '../domain/context.js';
import { DomainError } from '../domain/errors.js';
import type { PublishedMessage } from '../events/fanout.js';
import { messageView } from './views.js';

export const KEEP_ALIVE_MS = 15_000;
/** What a refused stream is told to wait before trying again. */
const STREAM_RETRY_AFTER_S = 5;
/** A counted open stream; release it when the stream ends. */
export interface StreamSlot {
  release(): void;
}

/** Where open streams are counted: in this process, or in Redis for every instance (src/redis/streamSlots.ts). */
export interface StreamSlots {
  /** A slot for one more stream of `key`, or null when `max` are open. */
  take(key: string, max: number): StreamSlot | null | Promise<StreamSlot | null>;
}

export class MemoryStreamSlots implements StreamSlots {
  private readonly open = new Map<string, number>();

  take(key: string, max: number): StreamSlot | null {
    const n = this.open.get(key) ?? 0;
    if (n >= max) return null;
    this.open.set(key, n + 1);
    return { release: () => this.release(key) };
  }

  private release(key: string): void {
    const n = (this.open.get(key) ?? 1) - 1;
    if (n <= 0) this.open.delete(key);
    else this.open.set(key, n);
  }
}

/** Open streams per API key (or worker): a cap so one key cannot hold the servers' sockets. */
export class StreamCounter {
  /** The open streams' responses: app.close() ends them, as they would otherwise hold it forever. */
  readonly responses = new Set<{ end(): void }>();
  constructor(
    private readonly maxPerKey: number,
    private readonly slots: StreamSlots = new MemoryStreamSlots(),
  ) {}

  endAll(): void {
    for (const res of this.responses) res.end();
  }

  acquire(key: string): StreamSlot | null | Promise<StreamSlot | null> {
    return this.slots.take(key, this.maxPerKey);
  }
}

/**
 * The event for a message, built once however many streams it goes to: fan-out hands every
 * stream the same row object, so the frame is kept beside it until the row is collected.
 */
const frames = new WeakMap<MessageRow, string>();
function frame(message: MessageRow): string {
  let text = frames.get(message);
  if (text === undefined) {
    text = `id: ${message.id}\nevent: message\ndata: ${JSON.stringify(messageView(message))}\n\n`;
    frames.set(message, text);
  }
  return text;
}

/**
 * Serves a chat as Server-Sent Events: one `message` event per message with its id, a comment
 * every 15 s, and, with Last-Event-ID, the messages missed since that one first. Messages go out
 * in the chat's order, each once: the stream subscribes before it reads the database, sends a
 * live message at once only when it follows the last one sent (PublishedMessage.previousId), and
 * otherwise reads the chat after the last one sent, which also covers messages the fan-out lost.
 */
export async function streamChat(
  ctx: DomainContext,
  counter: StreamCounter,
  streamKey: string,
  chat: ChatRow,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const slot = await counter.acquire(streamKey);
  if (!slot) {
    reply.header('retry-after', STREAM_RETRY_AFTER_S);
    throw new DomainError(
      'rate_limited',
      'Too many open streams for this key; close one before opening another',
      { retryAfter: STREAM_RETRY_AFTER_S },
    );
  }
  let res: FastifyReply['raw'] | null = null;
  let unsubscribe = () => {};
  let ended = false;
  const work: Array<PublishedMessage | 'resync'> = [];
  const cleanup = () => {
    if (ended) return;
    ended = true;
    work.length = 0;
    unsubscribe();
    slot.release();
    if (res) counter.responses.delete(res);
  };
  try {
    const lastEventId = request.headers['last-event-id'];
    const resume = typeof lastEventId === 'string' ? await resumePosition(ctx, chat, lastEventId) : null;
    // Subscribed before the database is read, so nothing committed in between is missed.
    let kick = () => {};
    const push = (item: PublishedMessage | 'resync') => {
      if (ended) return;
      work.push(item);
      kick();
    };
    unsubscribe = await ctx.fanout.subscribe(chat.task_id, {
      message: (published) => push(published),
      resync: () => push('resync'),
    });
    let position: Position | null = resume ?? (await streamStart(ctx, chat));

    reply.hijack();
    res = reply.raw;
    res.writeHead(200, {
      ...(reply.getHeaders() as Record<string, string>),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.write('retry: 3000\n\n');
    const out = res;
    const keepAlive = setInterval(() => out.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
    keepAlive.unref();
    out.once('close', () => {
      clearInterval(keepAlive);
      cleanup();
    });
    if (request.raw.socket?.destroyed) {
      clearInterval(keepAlive);
      cleanup();
      return;
    }
    counter.responses.add(out);

    const send = (message: MessageRow) => {
      out.write(frame(message));
      position = { createdAt: message.created_at, id: message.id };
    };
    /** Everything after what was last sent, from the database, page by page. */
    const catchUp = async () => {
      for (;;) {
        const page = await messagesSince(ctx, chat, position);
        for (const message of page) if (!ended) send(message);
        if (page.length < REPLAY_MAX || ended) return;
      }
    };
    const drain = async () => {
      try {
        while (!ended && work.length > 0) {
          const item = work.shift()!;
          if (item === 'resync') await catchUp();
          else {
            const { message, previousId } = item;
            // Subscriptions are per task; a task reassigned after expiry has a new chat this one must not see.
            if (message.chat_id !== chat.id || (position && !isAfter(message, position))) continue;
            if (previousId === (position?.id ?? null)) send(message);
            else await catchUp();
          }
        }
      } catch (error) {
        // The database did not answer: end the stream; the client resumes with Last-Event-ID.
        request.log.warn({ err: error }, 'chat stream: could not read missed messages; ending the stream');
        out.end();
      }
    };
    let draining = false;
    // One drain at a time, so what is sent keeps its order.
    kick = () => {
      if (draining || ended) return;
      draining = true;
      void drain().finally(() => {
        draining = false;
        if (work.length > 0) kick();
      });
    };
    if (resume) push('resync');
    else kick();
  } catch (error) {
    cleanup();
    throw error;
  }
}

/** Whether a message comes after a position in the chat's (createdAt, id) order. */
function isAfter(message: MessageRow, position: Position): boolean {
  return (
    message.created_at > position.createdAt ||
    (message.created_at === position.createdAt && message.id > position.id)
  );
}
