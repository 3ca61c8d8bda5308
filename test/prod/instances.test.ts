import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Address, toNano } from '@ton/core';
import { keyPairFromSeed, mnemonicNew } from '@ton/crypto';
import { WalletContractV4 } from '@ton/ton';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInitData } from '../../src/telegram/initData.js';
import { TEST_DATABASE_URL } from '../helpers/app.js';
import { Balancer, type Instance, serverBuild, startInstance, stopInstance } from '../helpers/cluster.js';
import { FakeTelegram } from '../helpers/fakeTelegram.js';
import { type FakeToncenter, startFakeToncenter } from '../helpers/fakeToncenter.js';
import { Receiver } from '../helpers/receiver.js';
import { dropPrefix, TEST_REDIS_URL } from '../helpers/redis.js';
import { type LocalS3, startLocalS3 } from '../helpers/s3.js';
import { eventually, serviceDatabase } from '../helpers/serviceProcess.js';
import { SseClient } from '../helpers/sse.js';
import { newTonWallet, signTonProof, unixSeconds } from '../helpers/tonConnect.js';

/**
 * The several-instance deployment as docs/operating.md describes it, for real: three built instances
 * (`node <build>/main.js`, each with its own DATA_DIR) on one PostgreSQL database, sharing Redis
 * and an S3-compatible store (s3rver). The chain is TON_NETWORK=testnet against the toncenter
 * fake in this process: the sandbox is one process by nature and refuses a second instance.
 * PostgreSQL only: SQLite is one file of one instance.
 */
// The public URL the instances are reached by (the load balancer's); tests rewrite it to an instance.
const PUBLIC = 'http://handoff.test';
const INSTANCES = 3;
const J = { 'content-type': 'application/json' };

interface Json {
  // biome-ignore lint/suspicious/noExplicitAny: answers are checked by assertions
  [key: string]: any;
}
interface Reply {
  status: number;
  json: Json;
  headers: Headers;
}
interface Agent {
  id: string;
  headers: Record<string, string>;
}
interface Worker {
  id: string;
  telegramId: number;
  headers: Record<string, string>;
}

describe.skipIf(!TEST_DATABASE_URL)('three instances on one PostgreSQL database, Redis and S3', () => {
  let main: string;
  /** The instances' data directories, one each. */
  let root: string;
  let database: Awaited<ReturnType<typeof serviceDatabase>>;
  let s3: LocalS3;
  let chain: FakeToncenter;
  let telegram: FakeTelegram;
  let receiver: Receiver;
  let env: Record<string, string>;
  const instances: Instance[] = [];
  let lb: Balancer;
  let admin: Record<string, string>;
  let nextTelegramId = 900_000 + Math.floor(Math.random() * 50_000);

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'handoff-proof-'));
    main = await serverBuild();
    [database, s3, chain, telegram, receiver] = await Promise.all([
      serviceDatabase('proof'),
      startLocalS3('handoff-proof'),
      startFakeToncenter({ blockMs: 50 }),
      FakeTelegram.start(),
      Receiver.start(),
    ]);
    const feeAddress = WalletContractV4.create({
      workchain: 0,
      publicKey: keyPairFromSeed(randomBytes(32)).publicKey,
    }).address;
    env = {
      ...database.env,
      PUBLIC_URL: PUBLIC,
      // The secrets every instance shares.
      ADMIN_TOKEN: randomBytes(16).toString('hex'),
      SECRET_KEY: randomBytes(32).toString('hex'),
      TELEGRAM_BOT_TOKEN: `100000:${randomBytes(16).toString('hex')}`,
      TELEGRAM_API_ROOT: telegram.apiRoot,
      TON_NETWORK: 'testnet',
      TON_API_URL: chain.url,
      TON_WALLET_MNEMONIC: (await mnemonicNew()).join(' '),
      TON_FEE_ADDRESS: feeAddress.toString(),
      TON_API_RPS: '1000',
      TON_POLL_MS: '200',
      TON_PROOF_DOMAINS: 'handoff.test',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      S3_BUCKET: s3.settings.bucket,
      S3_ENDPOINT: s3.settings.endpoint,
      AWS_ACCESS_KEY_ID: s3.settings.credentials!.accessKeyId,
      AWS_SECRET_ACCESS_KEY: s3.settings.credentials!.secretAccessKey,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: `proof-${randomBytes(5).toString('hex')}:`,
      SHUTDOWN_DELAY_MS: '300',
      RATE_LIMIT_STANDARD: '100000',
      RATE_LIMIT_CHAT: '100000',
      RATE_LIMIT_UPLOAD: '10',
      AUTH_FAILURE_LIMIT: '6',
      SSE_MAX_STREAMS_PER_KEY: '4',
    };
    admin = { authorization: `Bearer ${env.ADMIN_TOKEN}` };
    for (let i = 0; i < INSTANCES; i++) instances.push(await startInstance(main, `i${i}`, instanceEnv(i)));
    lb = new Balancer(() => instances.map((i) => i.url));
  }, 300_000);

  afterAll(async () => {
    await Promise.all(instances.map((i) => i.kill()));
    await Promise.all([s3?.close(), chain?.close(), telegram?.close(), receiver?.close()]);
    await database?.drop();
    if (env?.REDIS_PREFIX) await dropPrefix(env.REDIS_PREFIX);
    if (root) rmSync(root, { recursive: true, force: true });
  });

  /** Instance `i`'s settings: the shared ones and a data directory of its own (nothing shared on disk). */
  function instanceEnv(i: number): Record<string, string> {
    return { ...env, DATA_DIR: path.join(root, `i${i}`) };
  }

  /** One request to instance `i` (not through the balancer). */
  async function call(
    i: number,
    method: string,
    url: string,
    headers: Record<string, string>,
    body?: unknown,
  ) {
    const res = await fetch(`${instances[i]!.url}${url}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : J) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : null } as Reply;
  }

  async function ok(i: number, method: string, url: string, headers: Record<string, string>, body?: unknown) {
    const reply = await call(i, method, url, headers, body);
    expect(reply.status, `${method} ${url} on i${i}: ${JSON.stringify(reply.json)}`).toBeLessThan(300);
    return reply.json;
  }

  /** A PUBLIC_URL link (a file URL) as served by instance `i`. */
  const via = (i: number, url: string) => {
    expect(url.startsWith(`${PUBLIC}/`), url).toBe(true);
    return instances[i]!.url + url.slice(PUBLIC.length);
  };

  /** An agent made on one instance and funded by a real deposit that another instance's watcher saw. */
  async function newAgent(deposit: string): Promise<Agent> {
    const made = await ok(0, 'POST', '/admin/agents', admin, { name: 'Proof agent' });
    const agent = { id: made.agent.id as string, headers: { authorization: `Bearer ${made.apiKey}` } };
    const how = await ok(1, 'GET', '/agents/me/deposit', agent.headers);
    await chain.sendFromFaucet(Address.parse(how.address), toNano(deposit), how.memo);
    await eventually(
      async () => (await ok(2, 'GET', '/agents/me', agent.headers)).agent.balance === deposit,
      `the deposit of ${deposit} TON credited`,
    );
    return agent;
  }

  /** A worker signed in on one instance whose wallet proof is asked on another and given on a third. */
  async function newWorker(): Promise<Worker> {
    const telegramId = nextTelegramId++;
    const initData = signInitData(
      { id: telegramId, first_name: `W${telegramId}` },
      env.TELEGRAM_BOT_TOKEN!,
      new Date(),
    );
    const headers = { authorization: `tma ${initData}` };
    const { worker } = await ok(0, 'GET', '/worker/me', headers);
    await ok(1, 'PATCH', '/worker/me', headers, { headline: 'Courier', skills: ['photo'], country: 'DE' });
    const challenge = await ok(1, 'POST', '/worker/me/wallet/challenge', headers);
    const wallet = newTonWallet();
    const proof = signTonProof(wallet, { payload: challenge.payload, timestamp: unixSeconds(new Date()) });
    await ok(2, 'PUT', '/worker/me/wallet', headers, proof);
    return { id: worker.id, telegramId, headers };
  }

  /** Every message of a task's chat, oldest first, read through instance `i`. */
  async function chatMessages(who: { headers: Record<string, string> }, taskId: string, i = 0) {
    const all: { id: string; content: string }[] = [];
    let cursor: string | undefined;
    do {
      const query = `limit=100${cursor ? `&cursor=${cursor}` : ''}`;
      const page = await ok(i, 'GET', `/chat/${taskId}/messages?${query}`, who.headers);
      all.push(...page.messages);
      cursor = page.hasMore ? page.nextCursor : undefined;
    } while (cursor);
    return all;
  }

  /** A task of `agent` created, applied for, accepted and chatted in, each step on another instance. */
  async function assignedTask(agent: Agent, worker: Worker, title: string, first = 0) {
    const on = (k: number) => (first + k) % INSTANCES;
    const { task } = await ok(on(0), 'POST', '/tasks', agent.headers, {
      title,
      description: 'Proof',
      reward: '1',
    });
    const { application } = await ok(on(1), 'POST', `/worker/tasks/${task.id}/applications`, worker.headers, {
      message: 'Mine',
    });
    await ok(on(2), 'PATCH', `/applications/${application.id}`, agent.headers, { status: 'ACCEPTED' });
    return { taskId: task.id as string, applicationId: application.id as string };
  }

  it('a file uploaded through one instance downloads through the others; a lost file is 404 on all', async () => {
    const agent = await newAgent('5');
    const bytes = randomBytes(7 * 1024 * 1024); // two parts on S3
    const digest = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
    const form = new FormData();
    form.append('file', new Blob([bytes], { type: 'application/pdf' }), 'scan.pdf');
    const res = await fetch(`${instances[0]!.url}/upload`, {
      method: 'POST',
      headers: agent.headers,
      body: form,
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const { fileUrl } = (await res.json()) as { fileUrl: string };

    const signed = await ok(1, 'POST', '/upload', agent.headers, {
      filename: 'pic.png',
      contentType: 'image/png',
    });
    const small = randomBytes(1000);
    const put = await fetch(via(2, signed.uploadUrl), { method: 'PUT', body: small });
    expect(put.status, await put.text()).toBe(200);

    for (let i = 0; i < INSTANCES; i++) {
      const big = await fetch(via(i, fileUrl));
      expect(big.status).toBe(200);
      expect(digest(new Uint8Array(await big.arrayBuffer())), `i${i}`).toBe(digest(bytes));
      const png = await fetch(via(i, signed.fileUrl));
      expect(png.headers.get('content-type')).toBe('image/png');
      expect(Buffer.from(await png.arrayBuffer()).equals(small), `i${i}`).toBe(true);
    }
    // The object is lost behind the service's back: every instance answers 404, none a 500.
    const key = (await s3.keys()).find((k) => k.startsWith(`uploads/${signed.fileUrl.split('/')[4]}_`));
    expect(key).toBeDefined();
    await s3.remove(key!);
    for (let i = 0; i < INSTANCES; i++) {
      const gone = await fetch(via(i, signed.fileUrl));
      expect(gone.status, `i${i}`).toBe(404);
      expect(await gone.json()).toEqual({ error: 'File not found' });
    }
  }, 120_000);

  it('webhooks and Telegram notifications go out once, whichever instance made them', async () => {
    const agent = await newAgent('20');
    await ok(1, 'PATCH', '/agents/webhooks', agent.headers, { url: receiver.url });
    const worker = await newWorker();
    const tasks: string[] = [];
    for (let k = 0; k < INSTANCES; k++) {
      const title = `Once ${k} ${randomUUID().slice(0, 8)}`;
      const { taskId } = await assignedTask(agent, worker, title, k);
      await ok((k + 1) % INSTANCES, 'POST', `/worker/chat/${taskId}/messages`, worker.headers, {
        content: `hi ${k}`,
      });
      tasks.push(taskId);
    }
    const expected = ['task.funded', 'application.received', 'application.accepted', 'message.received'];
    const ofTasks = () => receiver.webhooks().filter((w) => tasks.includes(w.data.taskId));
    await eventually(
      async () => ofTasks().length >= tasks.length * expected.length,
      'every webhook delivered',
    );
    const accepted = () =>
      telegram.sent().filter((m) => m.chatId === worker.telegramId && /accepted/.test(m.text));
    await eventually(async () => accepted().length >= tasks.length, 'every acceptance notified');
    // Three instances poll the same outbox: a few more rounds would show a second delivery.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const seen = ofTasks()
      .map((w) => `${w.data.taskId} ${w.event}`)
      .sort();
    expect(seen).toEqual(tasks.flatMap((id) => expected.map((event) => `${id} ${event}`)).sort());
    const ids = receiver.requests.map((r) => r.headers['webhook-id']);
    expect(new Set(ids).size).toBe(ids.length);
    expect(accepted()).toHaveLength(tasks.length);
  }, 120_000);

  /** A chat stream on instance `i`: the agent's at /chat, the worker's at /worker/chat. */
  function stream(i: number, who: Agent | Worker, taskId: string, lastEventId?: string) {
    const path = 'telegramId' in who ? `/worker/chat/${taskId}/stream` : `/chat/${taskId}/stream`;
    return SseClient.open(`${instances[i]!.url}${path}`, {
      headers: who.headers,
      ...(lastEventId === undefined ? {} : { lastEventId }),
    });
  }

  it('chat messages posted to any instance reach streams on every instance in order; resume anywhere loses nothing', async () => {
    const agent = await newAgent('5');
    const worker = await newWorker();
    const { taskId } = await assignedTask(agent, worker, 'Live chat');
    const listeners = await Promise.all([
      stream(0, agent, taskId),
      stream(1, worker, taskId),
      stream(2, agent, taskId),
    ]);
    const resumer = await stream(1, agent, taskId);
    for (const s of [...listeners, resumer]) expect(s.status).toBe(200);
    const post = (i: number, who: Agent | Worker, content: string) =>
      ok(i, 'POST', `${'telegramId' in who ? '/worker' : ''}/chat/${taskId}/messages`, who.headers, {
        content,
      });
    // Rounds of three messages sent at once through the three instances, from both sides.
    const rounds = 8;
    let sent = 0;
    for (let round = 0; round < rounds; round++) {
      await Promise.all(
        [0, 1, 2].map((i) => post(i, (round + i) % 2 ? worker : agent, `r${round} via i${i}`)),
      );
      sent += 3;
      // The resuming client drops its connection after the third round, as a phone going into a tunnel.
      if (round === 2) {
        await resumer.waitForEvents(sent, 10_000);
        await resumer.close();
      }
    }
    const order = (await chatMessages(agent, taskId)).reverse().map((m) => m.id);
    expect(order).toHaveLength(sent);
    for (const [k, s] of listeners.entries()) {
      await s.waitForEvents(sent, 10_000);
      expect(
        s.messages().map((m) => m.id),
        `stream ${k}`,
      ).toEqual(order);
    }
    // It comes back on another instance with the last id it saw, and gets exactly the rest.
    const seen = resumer.messages().map((m) => m.id);
    expect(seen).toEqual(order.slice(0, seen.length));
    const resumed = await stream(2, agent, taskId, resumer.parser.lastEventId);
    await resumed.waitForEvents(sent - seen.length, 10_000);
    expect([...seen, ...resumed.messages().map((m) => m.id)]).toEqual(order);
    for (const s of [...listeners, resumed]) await s.close();
  }, 120_000);

  it('limits hold across instances: uploads per key, open streams per key, failed authentications per address', async () => {
    const agent = await newAgent('5');
    const worker = await newWorker();
    const { taskId } = await assignedTask(agent, worker, 'Limits');
    // RATE_LIMIT_UPLOAD=10 a minute for the key, whichever instance counts it.
    const statuses: number[] = [];
    for (let k = 0; k < 14; k++) {
      const reply = await call(k % INSTANCES, 'POST', '/upload', agent.headers, {
        filename: 'a.png',
        contentType: 'image/png',
      });
      statuses.push(reply.status);
    }
    expect(statuses).toEqual([...Array(10).fill(200), ...Array(4).fill(429)]);

    // SSE_MAX_STREAMS_PER_KEY=4: the fifth stream of the key is refused wherever it is opened,
    // and a closed one frees its slot for another instance.
    const open = await Promise.all([0, 1, 2, 0].map((i) => stream(i, agent, taskId)));
    for (const s of open) expect(s.status).toBe(200);
    const fifth = await stream(1, agent, taskId);
    expect(fifth.status).toBe(429);
    await open[0]!.close();
    await eventually(async () => {
      const again = await stream(2, agent, taskId);
      if (again.status === 200) open.push(again);
      else await again.close();
      return again.status === 200;
    }, 'a freed stream slot');
    for (const s of open) await s.close();

    // AUTH_FAILURE_LIMIT=6 failed authentications from this address, counted once for all.
    const bad = { authorization: `Bearer hr_${'x'.repeat(61)}` };
    const failures: number[] = [];
    for (let k = 0; k < 9; k++) failures.push((await call(k % INSTANCES, 'GET', '/agents/me', bad)).status);
    expect(failures).toEqual([...Array(6).fill(401), ...Array(3).fill(429)]);
    // A credential that verifies still goes through from the same address.
    expect((await call(0, 'GET', '/agents/me', agent.headers)).status).toBe(200);
  }, 120_000);

  it('a rolling restart under load (SIGTERM one instance at a time) loses no acknowledged request', async () => {
    const agent = await newAgent('100');
    const worker = await newWorker();
    const { taskId } = await assignedTask(agent, worker, 'Rolling');
    const acknowledged = { messages: new Set<string>(), tasks: new Set<string>() };
    let retried = 0;
    let running = true;
    // Clients send writes with an Idempotency-Key, so a retry on another instance cannot act twice.
    const client = async (n: number) => {
      for (let k = 0; running; k++) {
        const headers = { ...agent.headers, 'idempotency-key': `roll-${n}-${k}` };
        const message = k % 4 !== 3;
        const answer = message
          ? await lb.request('POST', `/chat/${taskId}/messages`, {
              headers,
              body: { content: `m ${n} ${k}` },
            })
          : await lb.request('POST', '/tasks', {
              headers,
              body: { title: `R ${n} ${k}`, description: 'x', reward: '0.1' },
            });
        expect(answer.status, answer.text).toBe(201);
        retried += answer.retries;
        const body = JSON.parse(answer.text);
        if (message) acknowledged.messages.add(body.message.id);
        else acknowledged.tasks.add(body.task.id);
      }
    };
    const clients = Array.from({ length: 4 }, (_, n) => client(n));
    for (let i = 0; i < INSTANCES; i++) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const before = instances[i]!;
      expect(await stopInstance(before)).toEqual({ code: 0, signal: null });
      instances[i] = await startInstance(main, before.name, before.env);
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    running = false;
    await Promise.all(clients);

    expect(acknowledged.messages.size).toBeGreaterThan(20);
    // The balancer met stopped instances (503 or refused connections) and went elsewhere.
    expect(retried).toBeGreaterThan(0);
    // Every acknowledged message is stored, once, and nothing else was (no retry acted twice).
    const stored = (await chatMessages(agent, taskId))
      .filter((m) => m.content.startsWith('m '))
      .map((m) => m.id);
    expect(stored.sort()).toEqual([...acknowledged.messages].sort());
    for (const id of acknowledged.tasks)
      expect((await call(1, 'GET', `/tasks/${id}`, agent.headers)).status).toBe(200);
    expect(await ok(2, 'GET', '/admin/audit', admin)).toMatchObject({ ok: true, problems: [] });
    // The chain lease moved with the restarts and one instance holds it; every instance agrees which.
    await eventually(async () => {
      const views = await Promise.all(instances.map((_, i) => ok(i, 'GET', '/admin/chain', admin)));
      const holders = new Set(views.map((v) => v.lease?.holder));
      return holders.size === 1 && views.filter((v) => v.lease?.heldByThisInstance).length === 1;
    }, 'one chain lease holder after the restarts');
  }, 240_000);

  it('a second sandbox instance on the same database, or on the same DATA_DIR, refuses to start', async () => {
    const shared = await serviceDatabase('proofsb');
    const other = await serviceDatabase('proofsb');
    const sandbox = {
      ADMIN_TOKEN: env.ADMIN_TOKEN!,
      SECRET_KEY: env.SECRET_KEY!,
      TELEGRAM_BOT_TOKEN: env.TELEGRAM_BOT_TOKEN!,
      TELEGRAM_API_ROOT: telegram.apiRoot,
    };
    const dir = (name: string) => path.join(root, name);
    const first = await startInstance(main, 'sb1', { ...sandbox, ...shared.env, DATA_DIR: dir('sb1') });
    try {
      await expect(
        startInstance(main, 'sb2', { ...sandbox, ...shared.env, DATA_DIR: dir('sb2') }),
      ).rejects.toThrow(/another sandbox instance, sb1 .* is running on this database/);
      await expect(
        startInstance(main, 'sb3', { ...sandbox, ...other.env, DATA_DIR: dir('sb1') }),
      ).rejects.toThrow(/DATA_DIR/);
      // The first one was not disturbed.
      expect((await fetch(`${first.url}/ready`)).status).toBe(200);
    } finally {
      await stopInstance(first);
      await Promise.all([shared.drop(), other.drop()]);
    }
  }, 180_000);
});
