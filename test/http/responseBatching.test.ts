import net from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerResponseBatching } from '../../src/http/responseBatching.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { holdsCompleteAnswer } from '../helpers/rawHttp.js';

/**
 * Opens `count` keep-alive connections and waits until the server has accepted every one: a
 * request written before its connection was accepted is read in a later turn than the others.
 */
async function connect(server: FastifyInstance, port: number, count: number): Promise<net.Socket[]> {
  let accepted = 0;
  const allAccepted = new Promise<void>((resolve) => {
    const onConnection = () => {
      if (++accepted < count) return;
      server.server.off('connection', onConnection);
      resolve();
    };
    server.server.on('connection', onConnection);
  });
  const sockets = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<net.Socket>((resolve, reject) => {
          const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
          socket.once('error', reject);
        }),
    ),
  );
  await allAccepted;
  return sockets;
}

/**
 * Resolves with the first complete answer's status line once the socket has read it, or with
 * "closed" when the server closed the connection without a complete answer.
 */
function firstAnswer(socket: net.Socket): Promise<string> {
  return new Promise((resolve) => {
    socket.once('close', () => resolve('closed'));
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (holdsCompleteAnswer(text)) resolve(text.slice(0, text.indexOf('\r\n')));
    });
  });
}

/**
 * Sends one GET on each connection in the same tick, so the server reads all of them in one turn
 * of its event loop, and returns the order in which the server saw each request arrive and each
 * answer finish (written to its socket).
 */
async function serverOrder(server: FastifyInstance, port: number, path: string, count: number) {
  const order: string[] = [];
  let seen = 0;
  const onRequest = (_req: unknown, res: NodeJS.EventEmitter) => {
    const n = ++seen;
    order.push(`request ${n}`);
    res.once('finish', () => order.push(`answer ${n}`));
  };
  server.server.on('request', onRequest);
  const sockets = await connect(server, port, count);
  try {
    const answers = sockets.map(firstAnswer);
    for (const socket of sockets) socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    expect(await Promise.all(answers)).toEqual(sockets.map(() => 'HTTP/1.1 200 OK'));
    return order;
  } finally {
    server.server.off('request', onRequest);
    for (const socket of sockets) socket.destroy();
  }
}

const ONE_TURN = ['request 1', 'request 2', 'request 3', 'answer 1', 'answer 2', 'answer 3'];

describe('answers of one event-loop turn are written together, at its end', () => {
  let bare: FastifyInstance;
  let port: number;
  beforeAll(async () => {
    bare = Fastify({ logger: false });
    registerResponseBatching(bare);
    bare.get('/', () => ({ ok: true }));
    // The first request to /fault finds its answer's write failing once (an injected fault).
    let faults = 0;
    bare.get('/fault', (_request, reply) => {
      if (faults++ === 0) {
        const end = reply.raw.end.bind(reply.raw);
        let failed = false;
        reply.raw.end = ((...args: Parameters<typeof end>) => {
          if (failed) return end(...args);
          failed = true;
          throw new Error('injected write fault');
        }) as typeof reply.raw.end;
      }
      return { ok: true };
    });
    bare.get('/later', async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return { ok: true };
    });
    await bare.listen({ port: 0, host: '127.0.0.1' });
    port = (bare.server.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    await bare.close();
  });

  it('holds an answer made while the turn reads requests until all of them were handled', async () => {
    expect(await serverOrder(bare, port, '/', 3)).toEqual(ONE_TURN);
  });

  it('writes an answer made after the turn at once, and the next turn holds again', async () => {
    // Made in a timer, after the turn that read the requests: nothing holds them.
    const later = await serverOrder(bare, port, '/later', 2);
    expect(later.slice(0, 2)).toEqual(['request 1', 'request 2']);
    expect(later.slice(2).sort()).toEqual(['answer 1', 'answer 2']);
    expect(await serverOrder(bare, port, '/', 3)).toEqual(ONE_TURN);
  });

  // Fastify's own handling of such an error (as without the batching): it logs it and, the
  // answer's head being already set, closes that connection.
  it("turns an error thrown while writing one answer into that request's error, and writes the others", async () => {
    const sockets = await connect(bare, port, 3);
    try {
      const answers = sockets.map(firstAnswer);
      for (const socket of sockets) socket.write('GET /fault HTTP/1.1\r\nHost: localhost\r\n\r\n');
      expect((await Promise.all(answers)).sort()).toEqual(['HTTP/1.1 200 OK', 'HTTP/1.1 200 OK', 'closed']);
    } finally {
      for (const socket of sockets) socket.destroy();
    }
    // The server is still serving.
    expect(await serverOrder(bare, port, '/', 3)).toEqual(ONE_TURN);
  });

  it('answers one request of a turn of its own without waiting for anything', async () => {
    const started = performance.now();
    expect(await serverOrder(bare, port, '/', 1)).toEqual(['request 1', 'answer 1']);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('the app batches its answers', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    await t.close();
  });

  it('writes the answers to requests read in one turn after all of them were handled', async () => {
    expect(await serverOrder(t.app, port, '/health', 3)).toEqual(ONE_TURN);
  });
});
