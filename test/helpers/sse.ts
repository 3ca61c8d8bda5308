import http from 'node:http';

/** One dispatched Server-Sent Event. */
export interface SseEvent {
  /** The `id:` field of this event, when it had one. */
  id: string | undefined;
  /** The `event:` field, `message` when absent (as browsers do). */
  event: string;
  /** The `data:` lines joined with "\n". */
  data: string;
}

/**
 * An incremental parser of the text/event-stream format (WHATWG HTML, "Server-sent events"):
 * lines end in CRLF, LF or CR; a blank line dispatches the event; lines starting with ":" are
 * comments; `field: value` drops one space after the colon. Kept separate from the socket so it
 * can be fed bytes in any split.
 */
export class SseParser {
  readonly events: SseEvent[] = [];
  readonly comments: string[] = [];
  /** The last `retry:` value, in milliseconds. */
  retryMs: number | undefined;
  /** The last event id seen, as a browser would send it in Last-Event-ID. */
  lastEventId = '';
  private buffer = '';
  private data: string[] = [];
  private eventType = '';
  private eventId: string | undefined;
  private pendingCr = false;

  constructor(
    private readonly onEvent: (event: SseEvent) => void = () => {},
    private readonly onComment: (comment: string) => void = () => {},
  ) {}

  feed(text: string): void {
    let input = text;
    // A CR at the end of the previous chunk and an LF at the start of this one are one line end.
    if (this.pendingCr && input.startsWith('\n')) input = input.slice(1);
    this.pendingCr = false;
    this.buffer += input;
    for (;;) {
      const match = /\r\n|\n|\r/.exec(this.buffer);
      if (!match) break;
      if (match[0] === '\r' && match.index === this.buffer.length - 1) this.pendingCr = true;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      this.line(line);
    }
  }

  private line(line: string): void {
    if (line === '') {
      this.dispatch();
      return;
    }
    if (line.startsWith(':')) {
      const comment = line.slice(1).replace(/^ /, '');
      this.comments.push(comment);
      this.onComment(comment);
      return;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    switch (field) {
      case 'data':
        this.data.push(value);
        break;
      case 'event':
        this.eventType = value;
        break;
      case 'id':
        if (!value.includes('\0')) this.eventId = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retryMs = Number(value);
        break;
    }
  }

  private dispatch(): void {
    if (this.eventId !== undefined) this.lastEventId = this.eventId;
    const id = this.eventId;
    const hadData = this.data.length > 0;
    const event: SseEvent = { id, event: this.eventType || 'message', data: this.data.join('\n') };
    this.data = [];
    this.eventType = '';
    this.eventId = undefined;
    // An event with no data lines is not dispatched.
    if (!hadData) return;
    this.events.push(event);
    this.onEvent(event);
  }
}

export interface SseOpenOptions {
  headers?: Record<string, string>;
  /** Sent as the Last-Event-ID header, as a reconnecting browser does. */
  lastEventId?: string;
}

/**
 * A real SSE client over a real socket (node:http, no connection pooling). `open` resolves when the
 * response head arrives; a non-2xx response is read whole into `body` and the socket is closed.
 */
export class SseClient {
  readonly parser: SseParser;
  body = '';
  private waiters: { count: number; resolve: () => void }[] = [];
  private commentWaiters: (() => void)[] = [];
  private closedResolve!: () => void;
  /** Resolves when the socket is closed, by either side. */
  readonly closed: Promise<void> = new Promise((resolve) => {
    this.closedResolve = resolve;
  });
  isClosed = false;

  private constructor(
    private readonly request: http.ClientRequest,
    readonly response: http.IncomingMessage,
  ) {
    this.parser = new SseParser(
      () => this.wake(),
      () => {
        for (const waiter of this.commentWaiters.splice(0)) waiter();
      },
    );
  }

  get status(): number {
    return this.response.statusCode ?? 0;
  }

  get headers(): http.IncomingHttpHeaders {
    return this.response.headers;
  }

  get events(): SseEvent[] {
    return this.parser.events;
  }

  get comments(): string[] {
    return this.parser.comments;
  }

  /** The `message` events' data parsed as JSON. */
  messages<T = { id: string; content: string }>(): T[] {
    return this.events.filter((e) => e.event === 'message').map((e) => JSON.parse(e.data) as T);
  }

  static open(url: string, options: SseOpenOptions = {}): Promise<SseClient> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = { accept: 'text/event-stream', ...options.headers };
      if (options.lastEventId !== undefined) headers['last-event-id'] = options.lastEventId;
      const request = http.request(url, { method: 'GET', headers, agent: false });
      request.once('error', reject);
      request.once('response', (response) => {
        const client = new SseClient(request, response);
        response.setEncoding('utf8');
        const ok = (response.statusCode ?? 0) >= 200 && (response.statusCode ?? 0) < 300;
        const done = () => client.markClosed();
        response.once('close', done);
        request.once('close', done);
        request.on('error', done);
        if (ok) {
          response.on('data', (chunk: string) => client.parser.feed(chunk));
          resolve(client);
        } else {
          response.on('data', (chunk: string) => {
            client.body += chunk;
          });
          response.once('end', () => resolve(client));
        }
      });
      request.end();
    });
  }

  private markClosed(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.wake();
    for (const waiter of this.commentWaiters.splice(0)) waiter();
    this.closedResolve();
  }

  private wake(): void {
    const count = this.events.length;
    this.waiters = this.waiters.filter((w) => {
      if (count >= w.count || this.isClosed) {
        w.resolve();
        return false;
      }
      return true;
    });
  }

  /** Waits until `count` events in all have arrived; rejects after `timeoutMs`. */
  async waitForEvents(count: number, timeoutMs = 5_000): Promise<SseEvent[]> {
    if (this.events.length < count && !this.isClosed) {
      await withTimeout(
        new Promise<void>((resolve) => this.waiters.push({ count, resolve })),
        timeoutMs,
        () => `expected ${count} SSE events, got ${this.events.length}`,
      );
    }
    if (this.events.length < count) {
      throw new Error(`stream closed after ${this.events.length} events; expected ${count}`);
    }
    return this.events.slice(0, count);
  }

  /** Waits for one more comment line than seen so far. */
  async nextComment(timeoutMs = 5_000): Promise<string> {
    const seen = this.comments.length;
    await withTimeout(
      new Promise<void>((resolve) => this.commentWaiters.push(resolve)),
      timeoutMs,
      () => 'expected an SSE comment line',
    );
    const comment = this.comments[seen];
    if (comment === undefined) throw new Error('stream closed before a comment line arrived');
    return comment;
  }

  /** Closes the connection from the client side and waits until the socket is closed. */
  async close(): Promise<void> {
    this.request.destroy();
    this.response.destroy();
    await this.closed;
  }
}

async function withTimeout(promise: Promise<void>, timeoutMs: number, message: () => string) {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      promise,
      new Promise<void>((_, reject) => {
        timer = setTimeout(() => reject(new Error(message())), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls `check` until it returns true; fails after `timeoutMs`. */
export async function eventually(check: () => boolean, timeoutMs = 3_000, what = 'condition'): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
