import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createAgent, type TestAgent } from '../helpers/fixtures.js';
import { holdsCompleteAnswer } from '../helpers/rawHttp.js';

interface RawAnswer {
  status: number;
  headers: string;
  body: string;
  /** What the socket reported while writing (EPIPE, ECONNRESET), if anything. */
  writeError: string | null;
}

/**
 * A client that writes the whole request before it reads anything, as simple clients (and
 * curl without Expect: 100-continue) do. It returns what it then reads from the socket.
 */
function sendWhole(port: number, head: string, bodyBytes: number, prefix = ''): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let writeError: string | null = null;
    // A complete answer (head and Content-Length body) is enough: a kept-alive socket never closes.
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      if (holdsCompleteAnswer(Buffer.concat(chunks).toString('utf8'))) socket.destroy();
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      writeError = error.code ?? error.message;
    });
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const match = /^HTTP\/1\.1 (\d{3})/.exec(text);
      if (!match) {
        resolve({ status: 0, headers: '', body: '', writeError: writeError ?? 'no answer' });
        return;
      }
      const split = text.indexOf('\r\n\r\n');
      resolve({
        status: Number(match[1]),
        headers: text.slice(0, split).toLowerCase(),
        body: text.slice(split + 4),
        writeError,
      });
    });
    socket.on('connect', async () => {
      try {
        socket.write(`${head}content-length: ${bodyBytes}\r\n\r\n${prefix}`);
        const chunk = Buffer.alloc(64 * 1024, 0x61);
        for (
          let sent = Buffer.byteLength(prefix);
          sent < bodyBytes && !socket.destroyed;
          sent += chunk.length
        ) {
          const piece = chunk.subarray(0, Math.min(chunk.length, bodyBytes - sent));
          if (!socket.write(piece)) await new Promise((r) => socket.once('drain', r).once('close', r));
        }
      } catch (error) {
        reject(error);
      }
    });
  });
}

describe('large refused bodies', () => {
  let t: TestApp;
  let agent: TestAgent;
  let port: number;

  beforeAll(async () => {
    t = await createTestApp();
    agent = await createAgent(t);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as net.AddressInfo).port;
  });
  afterAll(() => t.close());

  // Each size three times: before the fix, about one in four such requests failed to read the answer.
  const sizes = [2, 3, 8, 14, 25, 2, 3, 8, 14, 25, 2, 3, 8, 14, 25].map((mb) => mb * 1_000_000);

  it('answers 401 to a client that writes a whole large body first, and closes', async () => {
    for (const size of sizes) {
      const answer = await sendWhole(
        port,
        'POST /tasks HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nauthorization: Bearer hr_wrong\r\n',
        size,
      );
      expect(answer, `${size} bytes`).toMatchObject({ status: 401, writeError: null });
      expect(answer.headers).toContain('connection: close');
      expect(JSON.parse(answer.body).error).toBe('Unauthorized');
    }
  });

  it('answers 413 to a JSON body over the limit, and closes', async () => {
    for (const size of sizes) {
      const answer = await sendWhole(
        port,
        `POST /tasks HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nauthorization: ${agent.headers.authorization}\r\n`,
        size,
      );
      expect(answer, `${size} bytes`).toMatchObject({ status: 413, writeError: null });
      expect(answer.headers).toContain('connection: close');
      expect(JSON.parse(answer.body).error).toMatch(/too large/);
    }
  });

  it('answers 413 to an upload over 20 MiB, and closes', async () => {
    const boundary = 'b0undary';
    const size = 25_000_000;
    const answer = await sendWhole(
      port,
      `POST /upload HTTP/1.1\r\nhost: x\r\nauthorization: ${agent.headers.authorization}\r\ncontent-type: multipart/form-data; boundary=${boundary}\r\n`,
      size,
      `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="a.txt"\r\ncontent-type: text/plain\r\n\r\n`,
    );
    expect(answer).toMatchObject({ status: 413, writeError: null });
    expect(answer.headers).toContain('connection: close');
  });
});
