import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isAlive, launch, refused, spawnLogged } from '../helpers/launch.js';
import { holdsCompleteAnswer } from '../helpers/rawHttp.js';
import { eventually, serviceDatabase, serviceEnv } from '../helpers/serviceProcess.js';

/**
 * The service as operators run it, as real processes: started by `npm start` (what a process
 * manager runs) and stopped by signalling npm itself; drained on SIGTERM (GET /ready 503 at once,
 * requests still served for SHUTDOWN_DELAY_MS, then the close, where a request still arriving gets
 * 503 and those in flight finish); and a second instance on a busy
 * port, which must fail before it does any heavy work.
 */
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function launched(command: string, args: string[], env: Record<string, string>) {
  const service = await launch(command, args, env);
  cleanups.push(() => service.kill());
  return service;
}

async function freshDataDir(): Promise<string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'handoff-lifecycle-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function freshDatabase() {
  const database = await serviceDatabase('life');
  cleanups.push(() => database.drop());
  return database;
}

/** A raw keep-alive connection, so a test can hold it idle or send a request in parts. */
async function rawConnection(url: string) {
  const { port } = new URL(url);
  const socket = net.connect(Number(port), '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let received = '';
  socket.on('data', (d: Buffer) => {
    received += d.toString('utf8');
  });
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  cleanups.push(() => {
    socket.destroy();
  });
  return {
    socket,
    closed,
    /** Waits for one complete answer after the first `skip` characters; returns it. */
    async answer(skip = 0): Promise<{ status: number; head: string; body: string }> {
      await eventually(async () => holdsCompleteAnswer(received.slice(skip)), 'a complete answer');
      const text = received.slice(skip);
      const split = text.indexOf('\r\n\r\n');
      return {
        status: Number(/^HTTP\/1\.1 (\d+)/.exec(text)![1]),
        head: text.slice(0, split).toLowerCase(),
        body: text.slice(split + 4),
      };
    },
    received: () => received,
  };
}

describe('process lifecycle', () => {
  it('npm start: a SIGTERM sent to npm stops the server, which exits cleanly', async () => {
    const dataDir = await freshDataDir();
    const database = await freshDatabase();
    const npm = await launched('npm', ['start'], serviceEnv(dataDir, database));
    expect(npm.serverPid).not.toBe(npm.child.pid);
    expect((await fetch(`${npm.url}/health`)).status).toBe(200);

    npm.child.kill('SIGTERM'); // to npm only, as a process manager does
    expect(await npm.exited).toEqual({ code: 0, signal: null });
    // npm waits for its child, and the child is the server itself (no shell left between them).
    expect(isAlive(npm.serverPid), 'the server outlived npm').toBe(false);
    expect(npm.output()).toContain('"msg":"Closed cleanly"');
    expect(await refused(npm.url)).toBe(true);
  }, 120_000);

  it('SIGTERM: /ready is 503 at once, requests are served for SHUTDOWN_DELAY_MS, then the close finishes what is in flight', async () => {
    const dataDir = await freshDataDir();
    const database = await freshDatabase();
    // A delay far longer than the test: a SIGINT ends it (Ctrl-C, what an impatient operator does).
    const env = serviceEnv(dataDir, database, { SHUTDOWN_DELAY_MS: '60000' });
    const service = await launched(process.execPath, ['--import', 'tsx', 'src/main.ts'], env);
    const admin = { authorization: `Bearer ${env.ADMIN_TOKEN}`, 'content-type': 'application/json' };
    const created = (await (
      await fetch(`${service.url}/admin/agents`, {
        method: 'POST',
        headers: admin,
        body: JSON.stringify({ name: 'drain' }),
      })
    ).json()) as { apiKey: string; agent: { id: string } };
    const agent = { authorization: `Bearer ${created.apiKey}`, 'content-type': 'application/json' };
    const deposit = await fetch(`${service.url}/admin/agents/${created.agent.id}/deposits`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ amount: '100' }),
    });
    expect(deposit.status).toBe(201);
    const ready = await fetch(`${service.url}/ready`);
    expect([ready.status, await ready.json()]).toEqual([200, { status: 'ready' }]);

    // A kept-alive connection, idle once answered.
    const idle = await rawConnection(service.url);
    idle.socket.write('GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n');
    expect((await idle.answer()).status).toBe(200);
    // A request in flight: its headers and half its body are sent now, the rest after the close began.
    const body = JSON.stringify({ title: 'In flight', description: 'Sent across the close', reward: '1' });
    const slow = await rawConnection(service.url);
    slow.socket.write(
      `POST /tasks HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${agent.authorization}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 20)}`,
    );

    service.child.kill('SIGTERM');
    await eventually(async () => (await fetch(`${service.url}/ready`)).status === 503, '/ready goes 503');
    const draining = await fetch(`${service.url}/ready`);
    expect((await draining.json()) as { error: string }).toEqual({
      error: expect.stringMatching(/another instance/),
    });
    // Still serving, on new connections too, while the load balancer takes this instance out.
    expect((await fetch(`${service.url}/agents/me`, { headers: agent })).status).toBe(200);
    const during = await fetch(`${service.url}/tasks`, {
      method: 'POST',
      headers: agent,
      body: JSON.stringify({ title: 'During the delay', description: 'Still served', reward: '1' }),
    });
    expect(during.status).toBe(201);

    // A request still arriving when the close begins: its connection is open, its headers not
    // complete yet (so the server cannot close it as idle).
    const late = await rawConnection(service.url);
    late.socket.write(`GET /agents/me HTTP/1.1\r\nHost: localhost\r\n`);

    service.child.kill('SIGINT'); // ends the delay: the close begins
    await eventually(() => refused(service.url), 'new connections are refused');
    await idle.closed; // the idle kept-alive connection was closed by the server, not left to time out
    // Requests that reach the closing server on a connection it still has get 503, not a reset.
    late.socket.write(`Authorization: ${agent.authorization}\r\n\r\n`);
    const refusedLate = await late.answer();
    expect(refusedLate.status).toBe(503);
    expect(refusedLate.head).toContain('connection: close');
    expect(JSON.parse(refusedLate.body)).toMatchObject({ error: 'Service Unavailable' });
    slow.socket.write(body.slice(20));
    const answer = await slow.answer();
    expect(answer.status).toBe(201);
    expect(answer.head).toContain('connection: close');
    expect(JSON.parse(answer.body).task).toMatchObject({ title: 'In flight' });

    expect(await service.exited).toEqual({ code: 0, signal: null });
    expect(service.output()).toContain('"msg":"Closed cleanly"');
  }, 120_000);

  it('a busy port: exits 1 at once with the reason, before opening the database or the chain', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
    const port = (blocker.address() as net.AddressInfo).port;
    const dataDir = await freshDataDir();
    const database = await freshDatabase();
    const run = spawnLogged(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      ...serviceEnv(dataDir, database),
      PORT: String(port),
      SECRET_KEY: randomBytes(32).toString('hex'),
    });
    cleanups.push(async () => {
      if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
      await run.exited;
    });
    expect(await run.exited).toEqual({ code: 1, signal: null });
    expect(run.output().trim().split('\n')).toEqual([
      `Handoff could not start: port ${port} is in use. Stop the other process or set PORT to a free port.`,
    ]);
    // No sandbox chain (its state is what took 20 s under load) and no SQLite file were made.
    expect(existsSync(path.join(dataDir, 'chain')), 'the chain was created').toBe(false);
    expect(readdirSync(dataDir).filter((name) => name.startsWith('handoff.sqlite'))).toEqual([]);
  }, 120_000);
});
