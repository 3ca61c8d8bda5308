import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TEST_DATABASE_URL } from '../helpers/app.js';
import { launch } from '../helpers/launch.js';
import { Receiver } from '../helpers/receiver.js';
import { TcpProxy } from '../helpers/redis.js';
import { eventually, queryServiceDatabase, serviceDatabase, serviceEnv } from '../helpers/serviceProcess.js';

/**
 * PostgreSQL going away is a state of the service, not its end: the service runs as a real process
 * whose database connection passes through a TCP proxy, cut and restored while writes and the
 * outbox run. The process lives on, GET /ready is 503 while the database is away and 200 again
 * within seconds after, writes answer 503 with Retry-After (never hang), every acknowledged write
 * is kept and made once, and every webhook arrives once.
 */
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A write must be answered within this, whatever the database does. */
const ANSWER_DEADLINE_MS = 10_000;

describe.skipIf(!TEST_DATABASE_URL)('the database goes away and comes back (PostgreSQL)', () => {
  it('no exit, /ready 503 then 200, 503 with Retry-After meanwhile, nothing lost or done twice', async () => {
    const proxy = await TcpProxy.start(TEST_DATABASE_URL!);
    cleanups.push(() => proxy.cut());
    const database = await serviceDatabase('dbloss');
    cleanups.push(() => database.drop());
    const receiver = await Receiver.start();
    cleanups.push(() => receiver.close());
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'handoff-dbloss-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const env = serviceEnv(
      dataDir,
      { env: { DATABASE_URL: proxy.url(database.env.DATABASE_URL!) } },
      { WEBHOOK_ALLOW_PRIVATE: 'true' },
    );
    const service = await launch(process.execPath, ['--import', 'tsx', 'src/main.ts'], env);
    cleanups.push(() => service.kill());
    const get = (url: string) =>
      fetch(`${service.url}${url}`, { signal: AbortSignal.timeout(ANSWER_DEADLINE_MS) });

    const admin = { authorization: `Bearer ${env.ADMIN_TOKEN}`, 'content-type': 'application/json' };
    const created = (await (
      await fetch(`${service.url}/admin/agents`, { method: 'POST', headers: admin, body: '{"name":"cut"}' })
    ).json()) as { apiKey: string; agent: { id: string } };
    const agent = { authorization: `Bearer ${created.apiKey}`, 'content-type': 'application/json' };
    const deposit = await fetch(`${service.url}/admin/agents/${created.agent.id}/deposits`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ amount: '1000' }),
    });
    expect(deposit.status).toBe(201);
    const hook = await fetch(`${service.url}/agents/webhooks`, {
      method: 'PATCH',
      headers: agent,
      body: JSON.stringify({ url: receiver.url }),
    });
    expect(hook.status).toBe(200);

    // Writers: each creates tasks one after another, sending a refused one again with its key
    // (as a client told to retry does) until it is acknowledged.
    const acknowledged = new Map<string, string>(); // Idempotency-Key -> task id
    const unavailable: { retryAfter: string | null; body: unknown }[] = [];
    let stop = false;
    const writer = async () => {
      while (!stop) {
        const key = randomUUID();
        for (;;) {
          const started = Date.now();
          const res = await fetch(`${service.url}/tasks`, {
            method: 'POST',
            headers: { ...agent, 'idempotency-key': key },
            body: JSON.stringify({ title: 'Through a cut', description: 'Kept once', reward: '1' }),
            signal: AbortSignal.timeout(ANSWER_DEADLINE_MS),
          });
          const body = (await res.json()) as { task?: { id: string }; error?: string };
          expect(Date.now() - started).toBeLessThan(ANSWER_DEADLINE_MS);
          if (res.status === 201) {
            acknowledged.set(key, body.task!.id);
            break;
          }
          // 503 while the database is away; 409 while the key of a refused run is being released.
          expect([503, 409], JSON.stringify(body)).toContain(res.status);
          if (res.status === 503) unavailable.push({ retryAfter: res.headers.get('retry-after'), body });
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    };
    const writers = Array.from({ length: 3 }, writer);
    await eventually(async () => acknowledged.size >= 10, 'writes before the cut');

    await proxy.cut();
    await eventually(
      async () => (await get('/ready')).status === 503,
      '/ready 503 while the database is away',
    );
    expect((await get('/health')).status).toBe(200);
    await eventually(async () => unavailable.length >= 3, 'writes refused while the database is away');
    const during = acknowledged.size;
    await new Promise((r) => setTimeout(r, 1_500));

    await proxy.restore();
    const restored = Date.now();
    await eventually(
      async () => (await get('/ready')).status === 200,
      '/ready 200 once the database is back',
    );
    expect(Date.now() - restored).toBeLessThan(10_000);
    await eventually(async () => acknowledged.size >= during + 10, 'writes after the database came back');
    stop = true;
    await Promise.all(writers);

    expect(service.child.exitCode).toBeNull();
    expect(service.child.signalCode).toBeNull();
    for (const refused of unavailable) {
      expect(refused.retryAfter).toBe('5');
      expect(refused.body).toEqual({
        error: expect.stringMatching(/^The database is unavailable; nothing was changed/),
      });
    }
    // Every acknowledged task exists, once; nothing else was created.
    const rows = await queryServiceDatabase<{ id: string }>(
      { dataDir, schema: database.schema },
      'select id from tasks',
    );
    expect(new Set(rows.map((r) => r.id))).toEqual(new Set(acknowledged.values()));
    expect(rows).toHaveLength(acknowledged.size);
    // The outbox delivered each task's task.funded, each delivery once.
    const funded = () => receiver.webhooks().filter((w) => w.event === 'task.funded');
    await eventually(async () => funded().length >= acknowledged.size, 'every task.funded delivered', 600);
    expect(new Set(funded().map((w) => w.data.taskId))).toEqual(new Set(acknowledged.values()));
    const ids = receiver.requests.map((r) => r.headers['webhook-id']);
    expect(ids.length).toBe(new Set(ids).size);

    // One warn line for the lost connection, not a line per failure; the loops said they resumed.
    const lines = service.output().split('\n');
    const lost = lines.filter((l) => l.includes('"msg":"database connection failed'));
    expect(lost.length).toBeGreaterThanOrEqual(1);
    expect(lost.length).toBeLessThanOrEqual(5);
    expect(service.output()).not.toMatch(/Unhandled 'error' event|unhandled error/);
  }, 120_000);
});
