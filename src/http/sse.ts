import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ChatRow, MessageRow } from '../db/repositories/executor.js';
import { resumePosition, streamStart } from '../domain/chat/chat.js';
import type { DomainContext } from '../domain/context.js';
import { DomainError } from '../domain/errors.js';
import { ChatStreamQueue } from './chatStreamQueue.js';
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

  /** Open streams this instance serves, by side (`agent`, `worker`: the key's first part), for handoff_sse_streams. */
  readonly openHere = new Map<string, number>();
  /** Told of each stream refused at the cap (handoff_rate_limited_total{bucket="streams"}). */
  onRefused?: () => void;

  endAll(): void {
    for (const res of this.responses) res.end();
  }

  /** A slot for a stream of `key` (`agent:<id>` or `worker:<id>`), counted for all instances when the slots are shared. */
  async acquire(key: string): Promise<StreamSlot | null> {
    const slot = await this.slots.take(key, this.maxPerKey);
    if (!slot) return null;
    const side = key.slice(0, key.indexOf(':'));
    this.openHere.set(side, (this.openHere.get(side) ?? 0) + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.openHere.set(side, (this.openHere.get(side) ?? 1) - 1);
        slot.release();
      },
    };
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
 * every 15 s, and, with Last-Event-ID, the messages missed since that one first. It subscribes
 * before it reads the database, so nothing committed in between is missed, and sends in the
 * chat's order, each message once (ChatStreamQueue), whichever instance a message was posted on.
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
    counter.onRefused?.();
    reply.header('retry-after', STREAM_RETRY_AFTER_S);
    throw new DomainError(
      'rate_limited',
      'Too many open streams for this key; close one before opening another',
      { retryAfter: STREAM_RETRY_AFTER_S },
    );
  }
  const res = reply.raw;
  const queue = new ChatStreamQueue(
    ctx,
    chat,
    (message) => res.write(frame(message)),
    (error) => {
      request.log.warn({ err: error }, 'chat stream: could not read missed messages; ending the stream');
      res.end();
    },
  );
  let unsubscribe = () => {};
  let keepAlive: NodeJS.Timeout | undefined;
  let ended = false;
  const cleanup = () => {
    if (ended) return;
    ended = true;
    clearInterval(keepAlive);
    queue.end();
    unsubscribe();
    slot.release();
    counter.responses.delete(res);
  };
  try {
    const lastEventId = request.headers['last-event-id'];
    const resume = typeof lastEventId === 'string' ? await resumePosition(ctx, chat, lastEventId) : null;
    unsubscribe = await ctx.fanout.subscribe(chat.task_id, {
      message: (published) => queue.push(published),
      resync: () => queue.push('resync'),
    });
    const start = resume ?? (await streamStart(ctx, chat));

    reply.hijack();
    res.writeHead(200, {
      ...(reply.getHeaders() as Record<string, string>),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.write('retry: 3000\n\n');
    keepAlive = setInterval(() => res.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
    keepAlive.unref();
    res.once('close', cleanup);
    // A client that left while the stream was being set up fires no 'close' any more.
    if (request.raw.socket?.destroyed) return cleanup();
    counter.responses.add(res);
    queue.start(start, resume !== null);
  } catch (error) {
    cleanup();
    throw error;
  }
}
