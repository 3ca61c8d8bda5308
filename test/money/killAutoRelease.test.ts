import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxGateway } from '../../src/chain/sandboxGateway.js';
import { signInitData } from '../../src/telegram/initData.js';
import { DIALECT } from '../helpers/app.js';
import { newWalletAddress } from '../helpers/fixtures.js';
import { type ApiTask, type ApiTransaction, checkBooks, toNano } from '../helpers/moneyChecks.js';
import {
  eventually,
  queryServiceDatabase,
  type ServiceProcess,
  serviceDatabase,
  serviceEnv,
  startService,
} from '../helpers/serviceProcess.js';

/**
 * kill -9 while auto-releases are due (issue 25), then a restart on the same DATA_DIR and
 * database. The real service holds TASKS submitted tasks, each with its own worker; their review
 * deadlines are moved into the past while it is stopped, it is started (the review job runs a
 * second after start) and SIGKILLed as soon as the first task is released. Started again, it
 * finishes: every task is COMPLETED once, with one task.completed (autoReleased) each, the books
 * conserve money, and the sandbox chain sent exactly the PAYOUT and FEE rows, each worker's wallet
 * holding exactly one reward. Runs on SQLite, or on a fresh PostgreSQL schema with TEST_DATABASE_URL.
 */
const TASKS = 12;
const REWARD_NANO = 1_000_000_000n;

describe(`kill -9 while auto-releases are due, on ${DIALECT}`, () => {
  let dataDir: string;
  let database: Awaited<ReturnType<typeof serviceDatabase>> | undefined;
  let env: Record<string, string>;
  let service: ServiceProcess | undefined;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'handoff-kill-release-'));
    database = await serviceDatabase('killrel');
    env = serviceEnv(dataDir, database);
  });
  afterAll(async () => {
    await service?.stop();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function ok(method: string, url: string, headers: Record<string, string>, body?: unknown) {
    const res = await fetch(`${service!.url}${url}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    // biome-ignore lint/suspicious/noExplicitAny: answers are checked by the assertions that use them
    const json = (await res.json()) as any;
    expect(res.status, `${method} ${url}: ${JSON.stringify(json)}`).toBeLessThan(300);
    return json;
  }

  it('pays each due auto-release exactly once across the kill', async () => {
    service = await startService(env);
    const admin = { authorization: `Bearer ${env.ADMIN_TOKEN}` };
    const created = await ok('POST', '/admin/agents', admin, { name: 'Silent agent' });
    const agent = { authorization: `Bearer ${created.apiKey}` };
    await ok('POST', `/admin/agents/${created.agent.id}/deposits`, admin, { amount: '100' });
    const wallets = new Map<string, string>();
    for (let i = 0; i < TASKS; i++) {
      const telegramId = 8_000_000 + i;
      const worker = {
        authorization: `tma ${signInitData({ id: telegramId, first_name: `W${i}` }, env.TELEGRAM_BOT_TOKEN!, new Date())}`,
      };
      await ok('GET', '/worker/me', worker);
      const wallet = newWalletAddress();
      await ok('PUT', '/worker/me/wallet', worker, { address: wallet });
      const task = await ok('POST', '/tasks', agent, {
        title: `Silent ${i}`,
        description: 'Nobody reviews this',
        reward: '1',
        reviewHours: 1,
      });
      const taskId = task.task.id as string;
      const applied = await ok('POST', `/worker/tasks/${taskId}/applications`, worker, { message: 'Me' });
      await ok('PATCH', `/applications/${applied.application.id}`, agent, { status: 'ACCEPTED' });
      await ok('POST', `/worker/tasks/${taskId}/submissions`, worker, { note: `Done ${i}` });
      wallets.set(taskId, wallet);
    }
    await service.stop();

    // The windows ended while it was down.
    await run("update tasks set review_deadline = '2000-01-01T00:00:00.000Z', review_reminder_at = null");
    service = await startService(env);
    let releasedAtKill = 0;
    for (let i = 0; i < 3000 && releasedAtKill === 0; i++) {
      releasedAtKill = (
        await query<{ n: number }>("select count(*) as n from tasks where status = 'COMPLETED'")
      ).map((r) => Number(r.n))[0]!;
      if (releasedAtKill === 0) await new Promise((r) => setTimeout(r, 5));
    }
    service.child.kill('SIGKILL');
    expect(await service.exited).toBe('SIGKILL');
    expect(releasedAtKill, 'released before the kill').toBeGreaterThan(0);
    expect(releasedAtKill, 'the kill cut the releases short').toBeLessThan(TASKS);

    service = await startService(env);
    const ledger = async () => {
      const rows: (ApiTransaction & { txHash: string | null })[] = [];
      let cursor: string | null = null;
      do {
        const page = await ok('GET', `/transactions?limit=100${cursor ? `&cursor=${cursor}` : ''}`, agent);
        rows.push(...page.transactions);
        cursor = page.nextCursor;
      } while (cursor);
      return rows;
    };
    await eventually(
      async () => {
        const tasks = (await ok('GET', '/agents/tasks?limit=100', agent)).tasks as ApiTask[];
        if (tasks.some((k) => k.status !== 'COMPLETED')) return false;
        return (await ledger()).every(
          (r) => (r.type !== 'PAYOUT' && r.type !== 'FEE') || r.status === 'confirmed',
        );
      },
      'every due review released and paid after the restart',
      600,
    );
    const transactions = await ledger();
    const tasks = (await ok('GET', '/agents/tasks?limit=100', agent)).tasks as ApiTask[];
    const me = (await ok('GET', '/agents/me', agent)).agent;
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
        depositedNano: transactions
          .filter((r) => r.type === 'DEPOSIT')
          .reduce((s, r) => s + toNano(r.amount), 0n),
      },
      'the silent agent after the restart',
    );
    expect(await ok('GET', '/admin/audit', admin)).toMatchObject({ ok: true, problems: [] });
    const completedEvents = await query<{ task_id: string; data_json: string }>(
      "select task_id, data_json from events where type = 'task.completed'",
    );
    expect(completedEvents.map((e) => e.task_id).sort()).toEqual([...wallets.keys()].sort());
    for (const e of completedEvents) expect(JSON.parse(e.data_json).autoReleased).toBe(true);
    const paid = transactions.filter((r) => r.type === 'PAYOUT' || r.type === 'FEE');
    expect(paid).toHaveLength(2 * TASKS);

    await service.stop();
    service = undefined;
    const state = JSON.parse(readFileSync(path.join(dataDir, 'chain', 'chain-state.json'), 'utf8')) as {
      transfers: Record<string, { txHash: string }>;
    };
    expect(Object.keys(state.transfers).sort(), 'the chain sent exactly the PAYOUT and FEE rows').toEqual(
      paid.map((r) => r.id).sort(),
    );
    for (const row of paid) expect(state.transfers[row.id]!.txHash, `${row.type} ${row.id}`).toBe(row.txHash);
    const chain = await createSandboxGateway({ stateDir: path.join(dataDir, 'chain') });
    try {
      for (const [taskId, wallet] of wallets) {
        expect(await chain.getBalance(wallet), `worker wallet of task ${taskId}`).toBe(REWARD_NANO);
      }
    } finally {
      await chain.close();
    }
  }, 600_000);

  /** Reads the service's database directly, SQLite file or PostgreSQL schema. */
  function query<T>(text: string): Promise<T[]> {
    return queryServiceDatabase<T>({ dataDir, schema: database?.schema ?? null }, text);
  }

  /** Writes to the service's database while it is stopped. */
  async function run(text: string): Promise<void> {
    await queryServiceDatabase({ dataDir, schema: database?.schema ?? null }, text, true);
  }
});
