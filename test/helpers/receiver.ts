import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real webhook receiver: an HTTP server on 127.0.0.1 with an ephemeral port that records every
 * request (raw body bytes and headers) and answers as the test scripts it. Tests check the
 * service's deliveries the way an agent's server would, signature included.
 */

/** What the receiver does with one request: answer with this HTTP status, or never answer. */
export type Behaviour = number | 'hang';

/** Decides the behaviour for a request by its 0-based index among all requests received. */
export type Script = (index: number, request: ReceivedRequest) => Behaviour;

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The exact bytes received: the signature is computed over these. */
  rawBody: Buffer;
}

export interface Webhook {
  event: string;
  timestamp: string;
  // biome-ignore lint/suspicious/noExplicitAny: event data is checked by assertions, not types
  data: any;
}

export class Receiver {
  readonly requests: ReceivedRequest[] = [];
  private script: Script = () => 200;
  private readonly hanging = new Set<ServerResponse>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  /** Starts a receiver answering 200 to everything; `path` is appended to its base URL. */
  static async start(path = '/hooks'): Promise<Receiver> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const receiver = new Receiver(server, `http://127.0.0.1:${port}${path}`);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const request: ReceivedRequest = {
          method: req.method ?? '',
          path: req.url ?? '',
          headers: req.headers,
          rawBody: Buffer.concat(chunks),
        };
        const index = receiver.requests.length;
        receiver.requests.push(request);
        const behaviour = receiver.script(index, request);
        if (behaviour === 'hang') {
          receiver.hanging.add(res);
          res.on('close', () => receiver.hanging.delete(res));
          return;
        }
        res.writeHead(behaviour, { 'content-type': 'text/plain' });
        res.end(`status ${behaviour}`);
      });
    });
    return receiver;
  }

  /** Every request from now on is answered with `status`. */
  respondWith(status: number): this {
    this.script = () => status;
    return this;
  }

  /** The next `count` requests get `failStatus`, later ones `thenStatus`. */
  failNext(count: number, failStatus: number | 'hang' = 500, thenStatus = 200): this {
    const from = this.requests.length;
    this.script = (index) => (index - from < count ? failStatus : thenStatus);
    return this;
  }

  /** Requests are read but never answered (until the receiver closes). */
  hang(): this {
    this.script = () => 'hang';
    return this;
  }

  /** Any scripted behaviour. */
  use(script: Script): this {
    this.script = script;
    return this;
  }

  /** The received bodies parsed as webhook envelopes, in arrival order. */
  webhooks(): Webhook[] {
    return this.requests.map((r) => JSON.parse(r.rawBody.toString('utf8')) as Webhook);
  }

  /** Received webhooks of one event type. */
  ofEvent(event: string): Webhook[] {
    return this.webhooks().filter((w) => w.event === event);
  }

  /** Received requests whose X-Service-Event is `event`. */
  requestsOf(event: string): ReceivedRequest[] {
    return this.requests.filter((r) => r.headers['x-service-event'] === event);
  }

  clear(): void {
    this.requests.length = 0;
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * What an agent's server does: recompute the hex HMAC-SHA256 of the raw body with the API key
 * and compare it with X-Service-Signature in constant time.
 */
export function verifySignature(rawBody: Buffer, signature: string | string[] | undefined, apiKey: string) {
  if (typeof signature !== 'string' || !/^[0-9a-f]{64}$/.test(signature)) return false;
  const expected = createHmac('sha256', apiKey).update(rawBody).digest();
  const given = Buffer.from(signature, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
