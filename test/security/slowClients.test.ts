import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';

/** A raw client: writes `text`, then holds the socket; `answer` is all it read once the server closed it. */
function rawClient(port: number, text: string): { socket: net.Socket; answer: Promise<string> } {
  const socket = net.connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  socket.on('data', (chunk) => chunks.push(chunk));
  socket.on('error', () => {});
  socket.on('connect', () => socket.write(text));
  const answer = new Promise<string>((resolve) =>
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8'))),
  );
  return { socket, answer };
}

const connected = (socket: net.Socket) =>
  new Promise<void>((resolve) => (socket.connecting ? socket.once('connect', () => resolve()) : resolve()));

/** Headers and all but the last byte of a JSON body, then nothing. */
const halfSentLogin = (extraHeaders = '') =>
  `POST /console/api/auth/login HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\n${extraHeaders}content-length: 1000\r\n\r\n${'{'.padEnd(999, ' ')}`;

const healthOnce = 'GET /health HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n\r\n';

describe('slow clients', () => {
  let t: TestApp;
  let port: number;
  const CAP = 12;
  beforeAll(async () => {
    t = await createTestApp({
      httpLimits: { bodyTimeoutMs: 400, uploadTimeoutMs: 400, maxConnectionsPerClient: CAP },
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as net.AddressInfo).port;
  });
  afterAll(() => t.close());

  it('are answered 408 and closed after the body deadline, while /health still answers', async () => {
    // Half-sent bodies were held forever (50 such connections were open after 391 s).
    const clients = Array.from({ length: CAP - 2 }, () => rawClient(port, halfSentLogin()));
    await Promise.all(clients.map((c) => connected(c.socket)));
    const health = await rawClient(port, healthOnce).answer;
    expect(health).toMatch(/^HTTP\/1\.1 200/);
    for (const answer of await Promise.all(clients.map((c) => c.answer))) {
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
      expect(answer.toLowerCase()).toContain('connection: close');
      expect(answer).toMatch(/did not arrive within 0\.4 s/);
    }
  });

  it(`hold at most ${CAP} connections per address: the next is refused, and served once one closes`, async () => {
    const idle = Array.from({ length: CAP }, () => rawClient(port, ''));
    await Promise.all(idle.map((c) => connected(c.socket)));
    // The server counts a connection when it accepts it: wait until all are counted.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const refused = await rawClient(port, healthOnce).answer;
    expect(refused).toMatch(/^HTTP\/1\.1 429/);
    expect(refused).toMatch(/at most 12/);
    idle[0]!.socket.destroy();
    await idle[0]!.answer;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await rawClient(port, healthOnce).answer).toMatch(/^HTTP\/1\.1 200/);
    for (const c of idle) c.socket.destroy();
    await Promise.all(idle.map((c) => c.answer));
  });
});

describe('slow clients behind a trusted proxy', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp({
      trustProxy: ['127.0.0.1'],
      httpLimits: { bodyTimeoutMs: 400, maxConnectionsPerClient: 3 },
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as net.AddressInfo).port;
  });
  afterAll(() => t.close());

  it("are counted by the address the proxy names, IPv6 by /64; the proxy's own connections are not capped", async () => {
    const sameNet = ['2001:db8:1:2::1', '2001:db8:1:2::2', '2001:db8:1:2:ffff::3'].map((ip) =>
      rawClient(port, halfSentLogin(`x-forwarded-for: ${ip}\r\n`)),
    );
    await Promise.all(sameNet.map((c) => connected(c.socket)));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const fourth = await rawClient(port, halfSentLogin('x-forwarded-for: 2001:db8:1:2::4\r\n')).answer;
    expect(fourth).toMatch(/^HTTP\/1\.1 429/);
    const otherNet = rawClient(port, halfSentLogin('x-forwarded-for: 2001:db8:1:3::1\r\n'));
    for (const answer of await Promise.all([...sameNet, otherNet].map((c) => c.answer))) {
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
    }
  });
});
