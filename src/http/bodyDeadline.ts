import type { FastifyReply, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The body is a file's bytes (uploads): it gets the upload deadline, not the body deadline. */
    fileBody?: boolean;
  }
}

interface Pending {
  request: FastifyRequest;
  reply: FastifyReply;
  deadlineMs: number;
  timeoutMs: number;
}

/**
 * Every request body must have arrived by a deadline counted from its headers: `bodyMs` for
 * JSON routes, `uploadMs` for a file's bytes. A client past it gets a 408 and its connection is
 * closed, so a half-sent body is not held (with up to its route's body limit in memory) forever.
 * Answers stream as long as they like (SSE): only receiving the request is timed. One sweep
 * checks every pending body, so a request costs a set entry, not a timer of its own.
 */
export class BodyDeadlines {
  private readonly pending = new Set<Pending>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly bodyMs: number,
    private readonly uploadMs: number,
    private readonly now: () => number = Date.now,
  ) {
    // A deadline is kept to within a quarter of the shorter one (and a second).
    const everyMs = Math.min(1000, Math.max(10, Math.floor(Math.min(bodyMs, uploadMs) / 4)));
    this.sweeper = setInterval(() => this.sweep(), everyMs);
    this.sweeper.unref();
  }

  /** Times the body of a request that has one (a declared length or chunks). Runs on every request. */
  track(request: FastifyRequest, reply: FastifyReply): void {
    const { headers } = request;
    const length = headers['content-length'];
    if ((length === undefined || length === '0') && headers['transfer-encoding'] === undefined) return;
    const timeoutMs = request.routeOptions.config.fileBody ? this.uploadMs : this.bodyMs;
    this.pending.add({ request, reply, deadlineMs: this.now() + timeoutMs, timeoutMs });
  }

  stop(): void {
    clearInterval(this.sweeper);
  }

  private sweep(): void {
    const nowMs = this.now();
    for (const entry of this.pending) {
      const raw = entry.request.raw;
      // Read to its end (`readableEnded`: an injected request never sets `complete`), or gone, or
      // answered already (the drain of an unread body has its own bound: drain.ts).
      if (raw.complete || raw.readableEnded || raw.destroyed || entry.reply.raw.writableEnded) {
        this.pending.delete(entry);
      } else if (nowMs >= entry.deadlineMs) {
        this.pending.delete(entry);
        expire(entry);
      }
    }
  }
}

/** A 408 that says why (unless an answer has begun), then the connection closes. */
function expire({ request, reply, timeoutMs }: Pending): void {
  if (reply.raw.headersSent) {
    request.raw.socket.destroy();
    return;
  }
  const seconds = Math.round(timeoutMs / 100) / 10;
  answerAndClose(reply, 408, {
    error: `The request body did not arrive within ${seconds} s of its headers; send it again on a faster link`,
  });
}

/**
 * Answers beside Fastify and closes the connection without reading the rest of the body (no
 * lingering close: drain.ts would wait for a client that is not sending). Whatever still reads
 * the body fails when the socket closes.
 */
export function answerAndClose(
  reply: FastifyReply,
  status: number,
  body: Record<string, unknown>,
  headers: Record<string, string | number> = {},
): void {
  const text = JSON.stringify(body);
  const response = reply.raw;
  const socket = reply.request.raw.socket;
  reply.hijack();
  response.writeHead(status, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    connection: 'close',
  });
  response.end(text, () => socket.destroy());
}
