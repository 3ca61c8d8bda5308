import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { answerAndClose } from './bodyDeadline.js';
import { clientGroup } from './clientAddress.js';
import { trustedPeer } from './trustedProxy.js';

const OVER_CAP = Symbol('overCap');
const PROXIED = Symbol('proxied');
type TaggedSocket = Socket & { [OVER_CAP]?: boolean; [PROXIED]?: boolean };

/**
 * At most `max` open connections per client address (IPv6: per /64). A direct client is counted
 * when it connects; a connection past the cap gets a 429 to its first request and is closed, as a
 * mature server's connection limit does (the request's head is read, so the client learns why).
 * Behind a trusted proxy (TRUST_PROXY) the proxy's own connections are not counted: its clients'
 * requests in flight are, by the address it names. Each connection (or request) holds at most its
 * route's body limit, so this and the body deadlines bound what one client can make the process keep.
 */
export class ConnectionCap {
  private readonly open = new Map<string, number>();
  private readonly trusted: (address: string | undefined) => boolean;

  constructor(
    private readonly max: number,
    trustProxy: boolean | string[],
  ) {
    this.trusted = trustedPeer(trustProxy);
  }

  /** Counts a new connection (the server's 'connection' event). */
  connected(socket: TaggedSocket): void {
    const peer = socket.remoteAddress;
    if (!peer) return;
    if (this.trusted(peer)) {
      socket[PROXIED] = true;
      return;
    }
    const key = clientGroup(peer);
    if (this.take(key) > this.max) socket[OVER_CAP] = true;
    socket.once('close', () => this.release(key));
  }

  /** Whether a request may go on; otherwise it has been answered 429. Runs on every request. */
  admit(request: FastifyRequest, reply: FastifyReply): boolean {
    const socket = request.raw.socket as TaggedSocket;
    if (socket[OVER_CAP]) return this.refuse(reply, 'open connections');
    if (!socket[PROXIED]) return true;
    const key = clientGroup(request.ip);
    if (this.take(key) > this.max) {
      this.release(key);
      return this.refuse(reply, 'requests in progress');
    }
    reply.raw.once('close', () => this.release(key));
    return true;
  }

  private take(key: string): number {
    const count = (this.open.get(key) ?? 0) + 1;
    this.open.set(key, count);
    return count;
  }

  private release(key: string): void {
    const count = (this.open.get(key) ?? 1) - 1;
    if (count <= 0) this.open.delete(key);
    else this.open.set(key, count);
  }

  private refuse(reply: FastifyReply, what: string): false {
    // At once, without reading a body this client may be sending slowly on purpose.
    answerAndClose(
      reply,
      429,
      {
        error: `Too many ${what} from your address (at most ${this.max}); reuse connections (keep-alive) or wait for some to finish`,
      },
      { 'retry-after': 1 },
    );
    return false;
  }
}
