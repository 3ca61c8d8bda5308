import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { Redis } from 'ioredis';

/** The Redis the tests use (CI starts one on the default port). */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379/0';

/** A key prefix no other test (or helper sharing this Redis) uses. */
export function testPrefix(): string {
  return `hx-test:${randomBytes(6).toString('hex')}:`;
}

/** Deletes every key under `prefix`: tests leave the shared Redis as they found it. */
export async function dropPrefix(prefix: string, url = TEST_REDIS_URL): Promise<void> {
  const redis = new Redis(url);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/** The keys under `prefix` (tests look at what the app stored). */
export async function keysUnder(prefix: string, url = TEST_REDIS_URL): Promise<string[]> {
  const redis = new Redis(url);
  try {
    return await redis.keys(`${prefix}*`);
  } finally {
    redis.disconnect();
  }
}

/**
 * A TCP proxy between the app and Redis (or PostgreSQL: `start(TEST_DATABASE_URL)`, then
 * `url(databaseUrl)`), to lose it for real: `cut()` closes every connection
 * and refuses new ones (as a Redis host that went away), `restore()` listens again on the same port.
 */
export class TcpProxy {
  private readonly sockets = new Set<net.Socket>();
  private server: net.Server | null = null;
  private frozen = false;
  private readonly held: [net.Socket, Buffer][] = [];
  port = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  static async start(targetUrl = TEST_REDIS_URL): Promise<TcpProxy> {
    const url = new URL(targetUrl);
    const proxy = new TcpProxy(url.hostname, Number(url.port || 6379));
    await proxy.restore();
    return proxy;
  }

  /** The proxied URL (same database number as the target's). */
  url(targetUrl = TEST_REDIS_URL): string {
    const url = new URL(targetUrl);
    url.host = `127.0.0.1:${this.port}`;
    return url.toString();
  }

  restore(): Promise<void> {
    const server = net.createServer((client) => {
      const upstream = net.connect(this.targetPort, this.targetHost);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      this.forward(client, upstream);
      this.forward(upstream, client);
    });
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => {
        this.port = (server.address() as net.AddressInfo).port;
        resolve();
      });
    });
  }

  /**
   * Freezes the traffic without closing anything (a host that stops answering, a partition):
   * bytes are held until `thaw()`, so nothing is lost or reordered, only late.
   */
  freeze(): void {
    this.frozen = true;
  }

  thaw(): void {
    this.frozen = false;
    for (const [to, chunks] of this.held.splice(0)) if (!to.destroyed) to.write(chunks);
  }

  private forward(from: net.Socket, to: net.Socket): void {
    from.on('data', (chunk: Buffer) => {
      if (this.frozen) this.held.push([to, chunk]);
      else to.write(chunk);
    });
  }

  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    const closed = server ? new Promise<void>((resolve) => server.close(() => resolve())) : null;
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }
}
