import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxGateway } from '../../src/chain/sandboxGateway.js';
import { signInitData } from '../../src/telegram/initData.js';
import { DIALECT } from '../helpers/app.js';
import { newWalletAddress } from '../helpers/fixtures.js';
import { type ApiTask, type ApiTransaction, checkBooks, toNano } from '../helpers/moneyChecks.js';
import { Receiver } from '../helpers/receiver.js';
import {
  eventually,
  queryServiceDatabase,
  type ServiceProcess,
  serviceDatabase,
  serviceEnv,
  startService,
} from '../helpers/serviceProcess.js';

/**
 * kill -9 under mixed load, then a restart on the same DATA_DIR and database. The real service
 * (`node --import tsx src/main.ts`, sandbox chain kept in DATA_DIR/chain) serves several lanes at
 * once: operator deposits, task creation, apply + accept, chat messages from both sides, and
 * completion with its payout, every agent with a webhook receiver configured. It is SIGKILLed
 * while requests are in flight, started again, and left to finish its background work. Then:
 * - no committed money is lost: every deposit, task and completion answered 2xx is there, each
 *   agent's books conserve money (test/helpers/moneyChecks.ts) and GET /admin/audit is clean;
 * - every payout and fee is paid exactly once on the sandbox chain: the chain's transfer record
 *   has each PAYOUT/FEE row under its id with the ledger's hash and nothing else, and each
 *   worker's wallet (one task per worker) holds exactly its reward, or nothing;
 * - no event is lost: every event row has its webhook delivery, delivered, and the receiver got
 *   every delivery id (duplicates only as the same id with the same body).
 * Runs on SQLite, or on a fresh PostgreSQL schema with TEST_DATABASE_URL.
 */

const AGENTS = 3;
const LANES = 6;
/** SIGKILL once this many completions were answered (the load keeps going meanwhile). */
const KILL_AFTER_COMPLETIONS = 6;
const REWARD = '1';
const REWARD_NANO = 1_000_000_000n;

interface Agent {
  id: string;
  headers: Record<string, string>;
}

interface Answered {
  deposits: { agent: number; id: string; nano: bigint }[];
  tasks: { agent: number; id: string }[];
  completed: string[];
  messages: number;
}

describe(`kill -9 under mixed load, then a restart, on ${DIALECT}`, () => {
  let dataDir: string;
  let database: Awaited<ReturnType<typeof serviceDatabase>> | undefined;
  let env: Record<string, string>;
  let receiver: Receiver;
  let service: ServiceProcess | undefined;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'handoff-kill-'));
    database = await serviceDatabase('kill');
    env = serviceEnv(dataDir, database, { RATE_LIMIT_CHAT: '100000' });
    receiver = await Receiver.start();
  });
  afterAll(async () => {
    await service?.stop();
    await receiver?.close();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function api(method: string, url: string, headers: Record<string, string>, body?: unknown) {
    const res = await fetch(`${service!.url}${url}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    // biome-ignore lint/suspicious/noExplicitAny: answers are checked by the assertions that use them
    return { status: res.status, json: (await res.json()) as any };
  }

  async function ok(method: string, url: string, headers: Record<string, string>, body?: unknown) {
    const res = await api(method, url, headers, body);
    expect(res.status, `${method} ${url}: ${JSON.stringify(res.json)}`).toBeLessThan(300);
    return res.json;
  }

  let nextTelegramId = 7_000_000;
  const workerHeaders = (telegramId: number) => ({
    authorization: `tma ${signInitData({ id: telegramId, first_name: `W${telegramId}` }, env.TELEGRAM_BOT_TOKEN!, new Date())}`,
  });

  async function newWorker() {
    const telegramId = nextTelegramId++;
    const headers = workerHeaders(telegramId);
    const me = await ok('GET', '/worker/me', headers);
    await ok('PATCH', '/worker/me', headers, { headline: 'Courier', skills: ['photo'], country: 'DE' });
    const wallet = newWalletAddress();
    await ok('PUT', '/worker/me/wallet', headers, { address: wallet });
    return { id: me.worker.id as string, headers, wallet };
  }

  async function listAll<T extends { id: string }>(
    headers: Record<string, string>,
    url: string,
    key: string,
  ) {
    const items: T[] = [];
    let cursor: string | null = null;
    do {
      const sep = url.includes('?') ? '&' : '?';
      const page = await ok(
        'GET',
        `${url}${sep}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        headers,
      );
      items.push(...(page[key] as T[]));
      cursor = page.nextCursor;
    } while (cursor);
    return items;
  }

  it('loses no committed money and no event, and pays every payout exactly once', async () => {
    service = await startService(env);
    const admin = { authorization: `Bearer ${env.ADMIN_TOKEN}` };
    const agents: Agent[] = [];
    for (let a = 0; a < AGENTS; a++) {
      const created = await ok('POST', '/admin/agents', admin, { name: `Kill ${a}` });
      const agent = {
        id: created.agent.id as string,
        headers: { authorization: `Bearer ${created.apiKey}` },
      };
      await ok('PATCH', '/agents/webhooks', agent.headers, { url: receiver.url });
      await ok('POST', `/admin/agents/${agent.id}/deposits`, admin, { amount: '100' });
      agents.push(agent);
    }
    // Workers are made before the load: each completed task gets its own worker, so each wallet
    // must end with exactly one reward.
    const workers: Awaited<ReturnType<typeof newWorker>>[] = [];
    for (let i = 0; i < 40; i++) workers.push(await newWorker());
    const wallets = new Map<string, string>(); // task id -> the wallet of its worker

    const answered: Answered = { deposits: [], tasks: [], completed: [], messages: 0 };
    let dead = false;
    let cut = 0;
    const failures: unknown[] = [];
    /** One lane: deposit, create, apply, accept, chat, complete, again, until the service dies. */
    const lane = async (n: number) => {
      for (let round = 0; !dead; round++) {
        const a = (n + round) % AGENTS;
        const agent = agents[a]!;
        const worker = workers.shift();
        if (!worker) return;
        try {
          const dep = await api('POST', `/admin/agents/${agent.id}/deposits`, admin, { amount: '2' });
          if (dep.status === 201)
            answered.deposits.push({ agent: a, id: dep.json.transaction.id, nano: 2n * REWARD_NANO });
          const task = await api('POST', '/tasks', agent.headers, {
            title: `Lane ${n} round ${round}`,
            description: 'Under kill -9',
            reward: REWARD,
          });
          if (task.status !== 201) throw new Error(`create: ${task.status}`);
          const taskId = task.json.task.id as string;
          answered.tasks.push({ agent: a, id: taskId });
          const applied = await ok('POST', `/worker/tasks/${taskId}/applications`, worker.headers, {
            message: 'Me',
          });
          await ok('PATCH', `/applications/${applied.application.id}`, agent.headers, { status: 'ACCEPTED' });
          wallets.set(taskId, worker.wallet);
          for (const [headers, prefix] of [
            [agent.headers, ''],
            [worker.headers, '/worker'],
          ] as const) {
            const sent = await api('POST', `${prefix}/chat/${taskId}/messages`, headers, {
              content: `hello ${round}`,
            });
            if (sent.status === 201) answered.messages++;
          }
          const done = await api('POST', `/tasks/${taskId}/complete`, agent.headers);
          if (done.status === 200) answered.completed.push(taskId);
        } catch (error) {
          // The service died under this request: not answered, so nothing is owed. Anything
          // else (a refusal or a 5xx answered before the kill) fails the test.
          if (error instanceof TypeError && error.message === 'fetch failed') cut++;
          else failures.push(error);
          return;
        }
      }
    };
    const lanes = Array.from({ length: LANES }, (_, n) => lane(n));
    await eventually(
      async () => answered.completed.length >= KILL_AFTER_COMPLETIONS || failures.length > 0,
      'completions answered',
    );
    expect(failures).toEqual([]);
    service.child.kill('SIGKILL');
    expect(await service.exited).toBe('SIGKILL');
    dead = true;
    await Promise.all(lanes);
    expect(failures).toEqual([]);
    expect(cut, 'the kill cut requests in flight').toBeGreaterThan(0);
    expect(answered.completed.length).toBeGreaterThanOrEqual(KILL_AFTER_COMPLETIONS);

    // Restarted on the same data, it finishes its background work: payouts and webhooks.
    service = await startService(env);
    const ledgerOf = (agent: Agent) =>
      listAll<ApiTransaction & { txHash: string | null }>(agent.headers, '/transactions', 'transactions');
    await eventually(
      async () => {
        for (const agent of agents) {
          const rows = await ledgerOf(agent);
          if (rows.some((r) => (r.type === 'PAYOUT' || r.type === 'FEE') && r.status !== 'confirmed'))
            return false;
          const pending = await ok('GET', '/agents/webhooks/deliveries?status=pending', agent.headers);
          if (pending.deliveries.length > 0) return false;
        }
        return true;
      },
      'payouts confirmed and webhooks delivered after the restart',
      600,
    );

    // No committed money lost.
    const paid: (ApiTransaction & { txHash: string | null })[] = [];
    for (const [a, agent] of agents.entries()) {
      const transactions = await ledgerOf(agent);
      const tasks = await listAll<ApiTask>(agent.headers, '/agents/tasks', 'tasks');
      const me = (await ok('GET', '/agents/me', agent.headers)).agent;
      const deposited = transactions
        .filter((r) => r.type === 'DEPOSIT')
        .reduce((s, r) => s + toNano(r.amount), 0n);
      checkBooks(
        {
          me,
          money: {
            balanceNano: toNano(me.balance),
            lockedNano: toNano(me.lockedByTasks),
            taskCount: me.taskCount,
          },
          tasks,
          transactions,
          depositedNano: deposited,
        },
        `agent ${a} after the restart`,
      );
      for (const d of answered.deposits.filter((x) => x.agent === a)) {
        expect(transactions.find((r) => r.id === d.id)?.amount, `deposit ${d.id} answered 201`).toBe('2');
      }
      const ids = new Set(tasks.map((k) => k.id));
      for (const k of answered.tasks.filter((x) => x.agent === a))
        expect(ids.has(k.id), `task ${k.id} answered 201`).toBe(true);
      for (const k of tasks) {
        if (answered.completed.includes(k.id))
          expect(k.status, `task ${k.id} completion answered 200`).toBe('COMPLETED');
      }
      paid.push(...transactions.filter((r) => r.type === 'PAYOUT' || r.type === 'FEE'));
    }
    const audit = await ok('GET', '/admin/audit', admin);
    expect(audit).toMatchObject({ ok: true, problems: [] });

    // Let the service save its chain and stop, then read the chain as it persisted in DATA_DIR.
    await service.stop();
    service = undefined;
    const state = JSON.parse(readFileSync(path.join(dataDir, 'chain', 'chain-state.json'), 'utf8')) as {
      transfers: Record<string, { txHash: string; toAddress: string }>;
    };
    expect(Object.keys(state.transfers).sort(), 'the chain sent exactly the PAYOUT and FEE rows').toEqual(
      paid.map((r) => r.id).sort(),
    );
    for (const row of paid) expect(state.transfers[row.id]!.txHash, `${row.type} ${row.id}`).toBe(row.txHash);
    const chain = await createSandboxGateway({ stateDir: path.join(dataDir, 'chain') });
    try {
      const payouts = new Map(paid.filter((r) => r.type === 'PAYOUT').map((r) => [r.task!.id, r]));
      for (const [taskId, wallet] of wallets) {
        const expected = payouts.has(taskId) ? REWARD_NANO : 0n;
        expect(await chain.getBalance(wallet), `worker wallet of task ${taskId}`).toBe(expected);
      }
      expect(payouts.size).toBeGreaterThanOrEqual(answered.completed.length);
    } finally {
      await chain.close();
    }

    // No event lost: every event has its delivery, delivered, and the receiver got each id.
    const events = await query<{ id: string }>('select id from events');
    const deliveries = await query<{ id: string; event_id: string; status: string }>(
      'select id, event_id, status from webhook_deliveries',
    );
    expect(events.length).toBeGreaterThan(0);
    const byEvent = new Map(deliveries.map((d) => [d.event_id, d]));
    for (const event of events) {
      const delivery = byEvent.get(event.id);
      expect(delivery?.status, `event ${event.id} delivered`).toBe('delivered');
    }
    expect(deliveries.length).toBe(events.length);
    const received = new Map<string, string>();
    for (const request of receiver.requests) {
      const id = String(request.headers['webhook-id']);
      const body = request.rawBody.toString('utf8');
      const before = received.get(id);
      if (before !== undefined)
        expect(body, `delivery ${id} received twice with different bodies`).toBe(before);
      received.set(id, body);
    }
    for (const d of deliveries)
      expect(received.has(d.id), `delivery ${d.id} reached the receiver`).toBe(true);
    expect(
      [...received.keys()].every((id) => byEvent.has(deliveries.find((d) => d.id === id)?.event_id ?? '')),
    ).toBe(true);
    expect(answered.messages).toBeGreaterThan(0);
  }, 600_000);

  /** Reads the service's database directly (after it stopped), SQLite file or PostgreSQL schema. */
  function query<T>(sql: string): Promise<T[]> {
    return queryServiceDatabase<T>({ dataDir, schema: database?.schema ?? null }, sql);
  }
});
