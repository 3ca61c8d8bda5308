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
 * kill -9 between a bonus's record and its send (issue 40). The real service pays a task, then is
 * started with HANDOFF_FAIL_AT=bonus-before-send: the bonus's transaction commits (bonus row,
 * BONUS and BONUS_FEE ledger rows, the debit, the Idempotency-Key with its answer) and the process
 * dies before it sends anything, the client's request cut off. Started again on the same DATA_DIR
 * and database, the outbox sends the pending transfers, and the client's retry with the same
 * Idempotency-Key answers the same bonus: the sandbox chain has exactly one transfer per ledger
 * row (PAYOUT, FEE, BONUS, BONUS_FEE), the worker's wallet holds reward + bonus, the books are
 * exact. Runs on SQLite, or on a fresh PostgreSQL schema with TEST_DATABASE_URL.
 */
const REWARD_NANO = 2_000_000_000n;
const BONUS = { amount: '1.5', reason: 'The photos were sharp and on time' };
const BONUS_NANO = 1_500_000_000n;
const KEY = 'bonus-crash-1';

describe(`kill -9 between a bonus's record and its send, on ${DIALECT}`, () => {
  let dataDir: string;
  let database: Awaited<ReturnType<typeof serviceDatabase>> | undefined;
  let env: Record<string, string>;
  let service: ServiceProcess | undefined;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'handoff-kill-bonus-'));
    database = await serviceDatabase('killbonus');
    env = serviceEnv(dataDir, database);
  });
  afterAll(async () => {
    await service?.stop();
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
    return { status: res.status, headers: res.headers, json: (await res.json()) as any };
  }

  async function ok(method: string, url: string, headers: Record<string, string>, body?: unknown) {
    const res = await api(method, url, headers, body);
    expect(res.status, `${method} ${url}: ${JSON.stringify(res.json)}`).toBeLessThan(300);
    return res.json;
  }

  const chainTransfers = () =>
    (
      JSON.parse(readFileSync(path.join(dataDir, 'chain', 'chain-state.json'), 'utf8')) as {
        transfers: Record<string, { txHash: string }>;
      }
    ).transfers;

  it('pays the bonus exactly once, and the retry with the same key answers the same bonus', async () => {
    service = await startService(env);
    const admin = { authorization: `Bearer ${env.ADMIN_TOKEN}` };
    const created = await ok('POST', '/admin/agents', admin, { name: 'Generous agent' });
    const agent = { authorization: `Bearer ${created.apiKey}` };
    await ok('POST', `/admin/agents/${created.agent.id}/deposits`, admin, { amount: '10' });
    const worker = {
      authorization: `tma ${signInitData({ id: 8_100_000, first_name: 'W' }, env.TELEGRAM_BOT_TOKEN!, new Date())}`,
    };
    await ok('GET', '/worker/me', worker);
    const wallet = newWalletAddress();
    await ok('PUT', '/worker/me/wallet', worker, { address: wallet });
    const task = await ok('POST', '/tasks', agent, {
      title: 'Menu',
      description: 'Photograph it',
      reward: '2',
    });
    const taskId = task.task.id as string;
    const applied = await ok('POST', `/worker/tasks/${taskId}/applications`, worker, { message: 'Me' });
    await ok('PATCH', `/applications/${applied.application.id}`, agent, { status: 'ACCEPTED' });
    await ok('POST', `/worker/tasks/${taskId}/submissions`, worker, { note: 'Done' });
    await ok('POST', `/tasks/${taskId}/complete`, agent);
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
    const paidRows = <T extends ApiTransaction>(rows: T[]) =>
      rows.filter((r) => r.type !== 'DEPOSIT' && r.type !== 'TASK_ESCROW');
    await eventually(
      async () => paidRows(await ledger()).every((r) => r.status === 'confirmed'),
      'the reward and its fee are confirmed',
    );
    await service.stop();

    service = await startService({ ...env, HANDOFF_FAIL_AT: 'bonus-before-send' });
    const cut = await api('POST', `/tasks/${taskId}/bonus`, { ...agent, 'idempotency-key': KEY }, BONUS).then(
      () => 'answered',
      () => 'cut off',
    );
    expect(cut, 'the request died with the process').toBe('cut off');
    expect(await service.exited).toBe('SIGKILL');
    // Killed where it should be: the bonus and its ledger rows committed, nothing on chain yet.
    const recorded = await query<{ id: string; payout_txn_id: string; fee_txn_id: string }>(
      'select id, payout_txn_id, fee_txn_id from task_bonuses',
    );
    expect(recorded).toHaveLength(1);
    const bonusRows = [recorded[0]!.payout_txn_id, recorded[0]!.fee_txn_id];
    expect(Object.keys(chainTransfers()).filter((id) => bonusRows.includes(id))).toEqual([]);

    service = await startService(env);
    const retry = await api('POST', `/tasks/${taskId}/bonus`, { ...agent, 'idempotency-key': KEY }, BONUS);
    expect(retry.status, JSON.stringify(retry.json)).toBe(201);
    expect(retry.json.bonus).toMatchObject({ id: recorded[0]!.id, amount: '1.5', fee: '0.45' });
    expect(retry.json.task).toEqual({ id: taskId, bonusCount: 1 });
    // Once more, after the outbox may have sent it: still that bonus.
    await eventually(
      async () => paidRows(await ledger()).every((r) => r.status === 'confirmed'),
      'the bonus and its fee are confirmed after the restart',
    );
    const again = await api('POST', `/tasks/${taskId}/bonus`, { ...agent, 'idempotency-key': KEY }, BONUS);
    expect(again.status, JSON.stringify(again.json)).toBe(201);
    expect(again.json.bonus.id).toBe(recorded[0]!.id);
    // Some more rounds of the background loops change nothing.
    await new Promise((r) => setTimeout(r, 1_000));

    const transactions = await ledger();
    const paid = paidRows(transactions);
    expect(paid.map((r) => r.type).sort()).toEqual(['BONUS', 'BONUS_FEE', 'FEE', 'PAYOUT']);
    expect(paid.find((r) => r.type === 'BONUS')!.amount).toBe('1.5');
    expect(paid.find((r) => r.type === 'BONUS_FEE')!.amount).toBe('0.45');
    const tasks = (await ok('GET', '/agents/tasks?limit=100', agent)).tasks as ApiTask[];
    const me = (await ok('GET', '/agents/me', agent)).agent;
    // 10 - 2.6 - 1.95
    expect(me.balance).toBe('5.45');
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
        depositedNano: toNano('10'),
      },
      'the agent after the restart',
    );
    expect(await ok('GET', '/admin/audit', admin)).toMatchObject({ ok: true, problems: [] });
    const shown = (await ok('GET', `/tasks/${taskId}`, agent)).task.settlement.bonuses;
    expect(shown).toEqual({ count: 1, amount: '1.5', fee: '0.45' });
    const events = await query<{ n: number }>(
      "select count(*) as n from events where type = 'task.bonus_paid'",
    );
    expect(Number(events[0]!.n)).toBe(1);

    await service.stop();
    service = undefined;
    const sent = chainTransfers();
    expect(Object.keys(sent).sort(), 'the chain sent exactly the four ledger rows').toEqual(
      paid.map((r) => r.id).sort(),
    );
    for (const row of paid) expect(sent[row.id]!.txHash, `${row.type} ${row.id}`).toBe(row.txHash);
    const chain = await createSandboxGateway({ stateDir: path.join(dataDir, 'chain') });
    try {
      // The reward and one bonus, less the storage fee the address paid between the two (a few
      // nanotons for the seconds the test takes; a second bonus would be 1.5 TON more).
      const short = REWARD_NANO + BONUS_NANO - (await chain.getBalance(wallet));
      expect(
        short >= 0n && short < 1_000n,
        `the worker got the reward and one bonus, short by ${short}`,
      ).toBe(true);
    } finally {
      await chain.close();
    }
  }, 600_000);

  /** Reads the service's database directly, SQLite file or PostgreSQL schema. */
  function query<T>(text: string): Promise<T[]> {
    return queryServiceDatabase<T>({ dataDir, schema: database?.schema ?? null }, text);
  }
});
