import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { Redis, type RedisOptions } from 'ioredis';

/** What the Redis adapters log: an outage and its end, once each (pino's shape). */
export interface RedisLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/** A command that has not answered within this is a failure: a request never waits longer on Redis. */
export const REDIS_COMMAND_TIMEOUT_MS = 500;
/** After a failure, Redis is left alone for this long (the local fallbacks count) before it is tried again. */
export const REDIS_RETRY_AFTER_MS = 1_000;
/** How long start-up waits for Redis to answer before it gives up with a clear error. */
const REDIS_CONNECT_TIMEOUT_MS = 5_000;

/** Start-up could not reach Redis (main.ts turns this into one line, see startupError.ts). */
export class RedisStartError extends Error {
  readonly code = 'REDIS_UNREACHABLE';
  constructor(
    readonly where: string,
    readonly reason: string,
  ) {
    super(`cannot reach Redis at ${where} (${reason})`);
  }
}

/**
 * The connections to Redis and whether it is usable now. Commands never queue while Redis is
 * away (enableOfflineQueue off) and never wait past REDIS_COMMAND_TIMEOUT_MS: a caller that gets
 * a failure falls back to counting in this process, and `failed()` keeps everyone on the
 * fallback for REDIS_RETRY_AFTER_MS, so an outage costs requests at most one timeout each.
 * ioredis reconnects on its own; `ready` brings the shared path back.
 */
export class RedisLink {
  /** Commands (counters, leases, PUBLISH). */
  readonly client: Redis;
  /** SUBSCRIBE puts a connection in a mode where it takes nothing else: pub/sub gets its own. */
  readonly subscriber: Redis;
  readonly prefix: string;
  /** Names this process in published messages, so it skips its own echo. */
  readonly instanceId = `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private log: RedisLog | null = null;
  private downUntilMs = 0;
  /** Since when Redis has been failing (null: it answers); the warn line is logged once per outage. */
  private outageSinceMs: number | null = null;
  private closed = false;
  private readonly recoveredListeners: (() => void)[] = [];
  /** The connection's own error (ECONNREFUSED...): connect() itself only says the connection closed. */
  private lastError: Error | null = null;

  constructor(
    private readonly url: string,
    prefix: string,
  ) {
    this.prefix = prefix;
    this.client = new Redis(url, redisOptions());
    this.subscriber = new Redis(url, redisOptions());
    // Every error also reaches a command's caller or the reconnect loop; unhandled 'error'
    // events would otherwise be printed by ioredis (and a failed reconnect throws nothing).
    for (const connection of [this.client, this.subscriber]) {
      connection.on('error', (error: Error) => {
        this.lastError = error;
      });
    }
    this.client.on('ready', () => this.recovered());
    this.client.on('close', () => {
      if (!this.closed && this.outageSinceMs === null)
        this.failed(this.lastError ?? new Error('connection closed'));
    });
  }

  /** Runtime lines go to the app's logger once it exists. */
  setLogger(log: RedisLog): void {
    this.log = log;
  }

  /** Connects both connections, or throws RedisStartError: Redis down at start is a clear error. */
  async connect(): Promise<void> {
    const timeout = new Promise<never>((_, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no answer within ${REDIS_CONNECT_TIMEOUT_MS} ms`)),
        REDIS_CONNECT_TIMEOUT_MS,
      );
      timer.unref();
    });
    try {
      await Promise.race([
        Promise.all([this.client.connect(), this.subscriber.connect()]).then(() => this.client.ping()),
        timeout,
      ]);
    } catch (error) {
      this.close();
      const e = (this.lastError ?? error) as { code?: string; message?: string };
      throw new RedisStartError(where(this.url), e.code ?? e.message ?? String(error));
    }
  }

  /** Whether to use Redis now; false during an outage and for a moment after each failure. */
  usable(): boolean {
    return this.client.status === 'ready' && Date.now() >= this.downUntilMs;
  }

  /** A command failed: fall back for a while, and say so once per outage. */
  failed(error: unknown): void {
    this.downUntilMs = Date.now() + REDIS_RETRY_AFTER_MS;
    if (this.outageSinceMs !== null) return;
    this.outageSinceMs = Date.now();
    this.log?.warn(
      { err: error, component: 'redis' },
      'Redis is not answering: until it does, limits and stream caps count in this instance only and chat streams catch up from the database',
    );
  }

  /** A command answered: ends an outage whose connection never dropped (a host that hung, then answered). */
  succeeded(): void {
    if (this.outageSinceMs !== null) this.recovered();
  }

  /** Whether Redis is in an outage (from its first failure until it answers again): GET /ready, metrics. */
  down(): boolean {
    return this.outageSinceMs !== null;
  }

  /** Runs `listener` each time Redis answers again after an outage (the fan-out then resynchronises). */
  onRecovered(listener: () => void): void {
    this.recoveredListeners.push(listener);
  }

  private recovered(): void {
    this.downUntilMs = 0;
    if (this.outageSinceMs === null) return;
    const ms = Date.now() - this.outageSinceMs;
    this.outageSinceMs = null;
    for (const listener of this.recoveredListeners) listener();
    this.log?.info(
      { component: 'redis' },
      `Redis answers again after ${ms} ms: limits, stream caps and chat fan-out are shared again`,
    );
  }

  /** PING within the command timeout (GET /ready). */
  async ping(): Promise<void> {
    await this.client.ping();
  }

  close(): void {
    this.closed = true;
    this.client.disconnect();
    this.subscriber.disconnect();
  }
}

function redisOptions(): RedisOptions {
  return {
    lazyConnect: true,
    enableOfflineQueue: false,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
    // The subscriber resubscribes itself (redisFanout.ts), then tells the streams to catch up.
    autoResubscribe: false,
    // Reconnect soon and keep trying: at most one attempt a second while Redis is away.
    retryStrategy: (times) => Math.min(times * 100, 1_000),
  };
}

/** host:port of a redis:// URL, never its password. */
function where(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || 6379}`;
  } catch {
    return 'REDIS_URL';
  }
}
