import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ChatRow, MessageRow } from '../db/repositories/executor.js';
import { messagesSince, resumePosition } from '../domain/chat.js';
import type { DomainContext } from '../domain/context.js';
import { DomainError } from '../domain/errors.js';
import { messageView } from './views.js';

export const KEEP_ALIVE_MS = 15_000;
/** What a refused stream is told to wait before trying again. */
const STREAM_RETRY_AFTER_S = 5;
/** Open streams per API key (or worker): a cap so one key cannot hold the server's sockets. */
export class StreamCounter {
  private readonly open = new Map<string, number>();
  /** The open streams' responses: app.close() ends them, as they would otherwise hold it forever. */
  readonly responses = new Set<{ end(): void }>();
  /** Open streams by side (`agent`, `worker`: the key's prefix), for handoff_sse_streams. */
  readonly openBySide = new Map<string, number>();
  /** Told of each stream refused at the cap (handoff_rate_limited_total{bucket="streams"}). */
  onRefused?: () => void;
  constructor(private readonly maxPerKey: number) {}

  /** Counts an open stream of `key`'s side in (+1) or out (-1). */
  trackSide(key: string, delta: 1 | -1): void {
    const side = key.slice(0, key.indexOf(':'));
    this.openBySide.set(side, (this.openBySide.get(side) ?? 0) + delta);
  }

  endAll(): void {
    for (const res of this.responses) res.end();
  }

  acquire(key: string): boolean {
    const n = this.open.get(key) ?? 0;
    if (n >= this.maxPerKey) return false;
    this.open.set(key, n + 1);
    return true;
  }

  release(key: string): void {
    const n = (this.open.get(key) ?? 1) - 1;
    if (n <= 0) this.open.delete(key);
    else this.open.set(key, n);
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
 * before replaying, so nothing posted during the replay is lost, and skips what it already sent.
 */
export async function streamChat(
  ctx: DomainContext,
  counter: StreamCounter,
  streamKey: string,
  chat: ChatRow,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  if (!counter.acquire(streamKey)) {
    counter.onRefused?.();
    reply.header('retry-after', STREAM_RETRY_AFTER_S);
    throw new DomainError(
      'rate_limited',
      'Too many open streams for this key; close one before opening another',
      { retryAfter: STREAM_RETRY_AFTER_S },
    );
  }
  const lastEventId = request.headers['last-event-id'];
  const last = typeof lastEventId === 'string' ? await resumePosition(ctx, chat, lastEventId) : null;

  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    ...(reply.getHeaders() as Record<string, string>),
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.write('retry: 3000\n\n');

  let replaying = true;
  const queued: MessageRow[] = [];
  // A message can reach both the replay (committed) and the subscription (published just after):
  // the replay's ids are skipped live. No order-based skip: concurrent posts (PostgreSQL) publish
  // out of (createdAt, id) order, and a high-water mark would drop the earlier of them for good.
  const replayed = new Set<string>();
  const send = (message: MessageRow) => {
    // Subscriptions are per task; a task reassigned after expiry has a new chat this one must not see.
    if (message.chat_id !== chat.id || replayed.has(message.id)) return;
    res.write(frame(message));
  };
  const unsubscribe = ctx.fanout.subscribe(chat.task_id, (message) =>
    replaying ? queued.push(message) : send(message),
  );
  const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
  keepAlive.unref();
  const cleanup = () => {
    clearInterval(keepAlive);
    unsubscribe();
    counter.release(streamKey);
    counter.responses.delete(res);
    counter.trackSide(streamKey, -1);
  };
  res.once('close', cleanup);
  counter.responses.add(res);
  counter.trackSide(streamKey, 1);

  try {
    if (last)
      for (const message of await messagesSince(ctx, chat, last)) {
        send(message);
        replayed.add(message.id);
      }
  } finally {
    replaying = false;
    for (const message of queued.splice(0)) send(message);
  }
}
