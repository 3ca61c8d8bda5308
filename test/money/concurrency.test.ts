import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GroupCommitSqliteAdapter } from '../../src/db/sqliteDriver.js';
import { creditChainDeposit } from '../../src/domain/agents/agents.js';
import { DIALECT, type TestApp, workerAuth } from '../helpers/app.js';
import {
  assignedTask,
  createAgent,
  createTask,
  createWorker,
  type TestAgent,
  type TestWorker,
} from '../helpers/fixtures.js';
import {
  agentMoney,
  createUnthrottledTestApp,
  expectAgentBooks,
  expectAuditOk,
  ledgerOfTask,
  listTransactions,
  statusCounts,
  toNano,
} from '../helpers/moneyChecks.js';

/**
 * Races through the HTTP app (Promise.all of app.inject) on whichever database the run uses.
 * On SQLite the single connection serializes transactions, so these prove the logic under any
 * interleaving of whole requests; on PostgreSQL a pool of 20 connections runs them truly in
 * parallel, so they also prove the compare-and-set UPDATEs and the row locks.
 */

interface Inject {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  url: string;
  headers: Record<string, string>;
  payload?: Record<string, unknown>;
}

/** Fisher-Yates with a seeded generator: a different but reproducible interleaving per seed. */
function shuffled<T>(items: T[], seed: number): T[] {
  const out = [...items];
  let s = seed >>> 0 || 1;
  for (let i = out.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1_103_515_245) + 12_345) >>> 0;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

describe(`concurrency on ${DIALECT}`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createUnthrottledTestApp({ pgPoolSize: 20 });
  });
  afterAll(() => t.close());

  const fire = (requests: Inject[]) => Promise.all(requests.map((r) => t.app.inject(r)));

  /** Commit groups SQLite's driver undid so far (0 on PostgreSQL, which has none). */
  const undoneGroups = () => {
    const { adapter } = t.ctx.db.getExecutor();
    return adapter instanceof GroupCommitSqliteAdapter ? adapter.dialect.stats.undoneGroups : 0;
  };

  async function getTask(agent: TestAgent, taskId: string) {
    const res = await t.app.inject({ method: 'GET', url: `/tasks/${taskId}`, headers: agent.headers });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().task;
  }

  const chatsOf = (taskId: string) =>
    t.ctx.db.selectFrom('chats').selectAll().where('task_id', '=', taskId).execute();

  it('200 simultaneous task creations on a balance for exactly 10: 10 created, 190 refused with 402', async () => {
    // reward 10 + fee 3 = 13 per task; 130 covers exactly ten.
    const agent = await createAgent(t, { deposit: '130' });
    const undoneBefore = undoneGroups();
    const body = { title: 'Race', description: 'Who gets the money?', reward: '10' };
    const responses = await fire(
      Array.from({ length: 200 }, () => ({
        method: 'POST' as const,
        url: '/tasks',
        headers: agent.headers,
        payload: body,
      })),
    );
    expect(statusCounts(responses)).toEqual({ 201: 10, 402: 190 });
    for (const res of responses.filter((r) => r.statusCode === 402)) {
      expect(res.json()).toMatchObject({ error: 'Insufficient balance', requiredAmount: '13' });
      expect(toNano(res.json().currentBalance)).toBeLessThan(13_000_000_000n);
    }
    const createdIds = responses.filter((r) => r.statusCode === 201).map((r) => r.json().task.id);
    expect(new Set(createdIds).size).toBe(10);

    expect(await agentMoney(t, agent)).toEqual({
      balanceNano: 0n,
      lockedNano: 130_000_000_000n,
      taskCount: 10,
    });
    const books = await expectAgentBooks(t, agent);
    expect(books.transactions.filter((r) => r.type === 'TASK_ESCROW')).toHaveLength(10);
    expect(books.tasks.map((task) => task.id).sort()).toEqual([...createdIds].sort());
    await expectAuditOk(t);
    // On SQLite each refusal came before its transaction wrote anything (the balance read
    // first), so none of them undid the commit group of the creations around it.
    expect(undoneGroups()).toBe(undoneBefore);
  });

  it('complete, refund and delete racing on assigned tasks: exactly one wins per task, money moves once', async () => {
    const TASKS = 6;
    const EACH = 5;
    const agent = await createAgent(t, { deposit: '1000' });
    const workers: TestWorker[] = [];
    const taskIds: string[] = [];
    for (let i = 0; i < TASKS; i++) {
      const worker = await createWorker(t);
      const reward = `${i + 1}.5`;
      const { taskId } = await assignedTask(t, agent, worker, { reward });
      // Race from every status a completion or a refund accepts.
      const status = ['ASSIGNED', 'IN_PROGRESS', 'REVIEW'][i % 3];
      if (status !== 'ASSIGNED') {
        const moved = await t.app.inject({
          method: 'PATCH',
          url: `/tasks/${taskId}`,
          headers: agent.headers,
          payload: { status },
        });
        expect(moved.statusCode, moved.body).toBe(200);
      }
      workers.push(worker);
      taskIds.push(taskId);
    }
    const before = await agentMoney(t, agent);
    const chainBefore = await Promise.all(workers.map((w) => t.services.chain.getBalance(w.wallet!)));
    const feeBefore = await t.services.chain.getBalance(t.services.chain.feeAddress);

    const requests: (Inject & { taskIndex: number; kind: string })[] = [];
    taskIds.forEach((taskId, taskIndex) => {
      for (let k = 0; k < EACH; k++) {
        const headers = agent.headers;
        requests.push(
          { taskIndex, kind: 'complete', method: 'POST', url: `/tasks/${taskId}/complete`, headers },
          { taskIndex, kind: 'refund', method: 'POST', url: `/tasks/${taskId}/refund`, headers, payload: {} },
          { taskIndex, kind: 'delete', method: 'DELETE', url: `/tasks/${taskId}`, headers },
        );
      }
    });
    // A seeded shuffle mixes the kinds in the queue; the next test makes each kind win in turn.
    const order = shuffled(requests, 7);
    const responses = await fire(order);
    expect(statusCounts(responses)).toEqual({ 200: TASKS, 409: TASKS * (3 * EACH - 1) });

    const ledger = await listTransactions(t, agent);
    let refundedNano = 0n;
    let lockedNano = 0n;
    let feesNano = 0n;
    for (let i = 0; i < TASKS; i++) {
      const mine = order.map((r, n) => ({ r, res: responses[n]! })).filter((x) => x.r.taskIndex === i);
      const winners = mine.filter((x) => x.res.statusCode === 200);
      expect(winners, `task ${i}`).toHaveLength(1);
      const winner = winners[0]!.r.kind;
      expect(winner, 'an assigned task cannot be deleted').not.toBe('delete');
      const task = await getTask(agent, taskIds[i]!);
      const total = toNano(task.totalAmount);
      const reward = toNano(task.reward);
      lockedNano += total;
      const rows = ledgerOfTask(ledger, taskIds[i]!);
      const chainGrowth = (await t.services.chain.getBalance(workers[i]!.wallet!)) - chainBefore[i]!;
      if (winner === 'complete') {
        expect(task).toMatchObject({ status: 'COMPLETED', paymentStatus: 'RELEASED' });
        expect(rows).toEqual({ escrow: 1, payout: 1, fee: 1, refund: 0 });
        expect(chainGrowth, `worker ${i} paid exactly once`).toBe(reward);
        feesNano += toNano(task.platformFee);
      } else {
        expect(task).toMatchObject({ status: 'CANCELLED', paymentStatus: 'REFUNDED' });
        expect(rows).toEqual({ escrow: 1, payout: 0, fee: 0, refund: 1 });
        expect(chainGrowth, `worker ${i} not paid`).toBe(0n);
        refundedNano += total;
      }
      for (const loser of mine.filter((x) => x.res.statusCode === 409)) {
        expect(loser.res.json().error, loser.res.body).toEqual(expect.any(String));
      }
    }
    expect(await agentMoney(t, agent)).toEqual({
      balanceNano: before.balanceNano + refundedNano,
      lockedNano: before.lockedNano - lockedNano,
      taskCount: TASKS,
    });
    expect((await t.services.chain.getBalance(t.services.chain.feeAddress)) - feeBefore).toBe(feesNano);
    await expectAgentBooks(t, agent);
    await expectAuditOk(t);
  });

  it('the same race with completion first or refund first in the queue: each can win and the other loses', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    for (const first of ['complete', 'refund'] as const) {
      const worker = await createWorker(t);
      const { taskId } = await assignedTask(t, agent, worker, { reward: '2' });
      const chainBefore = await t.services.chain.getBalance(worker.wallet!);
      const complete = { method: 'POST' as const, url: `/tasks/${taskId}/complete`, headers: agent.headers };
      const refund = { method: 'POST' as const, url: `/tasks/${taskId}/refund`, headers: agent.headers };
      const responses = await fire(
        first === 'complete' ? [complete, refund, complete] : [refund, complete, refund],
      );
      expect(statusCounts(responses)).toEqual({ 200: 1, 409: 2 });
      const task = await getTask(agent, taskId);
      const paid = (await t.services.chain.getBalance(worker.wallet!)) - chainBefore;
      if (task.status === 'COMPLETED') expect(paid).toBe(2_000_000_000n);
      else expect(paid).toBe(0n);
      if (DIALECT === 'sqlite') {
        // One connection: the first request in the queue wins deterministically. (On PostgreSQL
        // the requests truly overlap and either may win.)
        expect(responses[0]!.statusCode, `${first} was first in the queue`).toBe(200);
        expect(task.status).toBe(first === 'complete' ? 'COMPLETED' : 'CANCELLED');
      }
    }
    await expectAgentBooks(t, agent);
    await expectAuditOk(t);
  });

  it('DELETE and refund racing on funded and offered tasks: exactly one refund each', async () => {
    const agent = await createAgent(t, { deposit: '500' });
    const worker = await createWorker(t);
    const taskIds: string[] = [];
    for (let i = 0; i < 4; i++) taskIds.push((await createTask(t, agent, { reward: '3' })).id);
    for (let i = 0; i < 2; i++) {
      taskIds.push((await createTask(t, agent, { reward: '3', assignToUserId: worker.id })).id);
    }
    const before = await agentMoney(t, agent);
    const requests = taskIds.flatMap((taskId) =>
      Array.from({ length: 4 }, () => [
        { method: 'DELETE' as const, url: `/tasks/${taskId}`, headers: agent.headers },
        {
          method: 'POST' as const,
          url: `/tasks/${taskId}/refund`,
          headers: agent.headers,
          payload: { reason: 'x' },
        },
      ]).flat(),
    );
    const order = shuffled(requests, 11);
    const responses = await fire(order);
    expect(statusCounts(responses)).toEqual({ 200: taskIds.length, 409: taskIds.length * 7 });
    const ledger = await listTransactions(t, agent);
    for (const taskId of taskIds) {
      const wins = order.filter((r, n) => r.url.includes(taskId) && responses[n]!.statusCode === 200);
      expect(wins, taskId).toHaveLength(1);
      expect(ledgerOfTask(ledger, taskId)).toEqual({ escrow: 1, payout: 0, fee: 0, refund: 1 });
      expect(await getTask(agent, taskId)).toMatchObject({ status: 'CANCELLED', paymentStatus: 'REFUNDED' });
    }
    expect(await agentMoney(t, agent)).toEqual({
      balanceNano: before.balanceNano + before.lockedNano,
      lockedNano: 0n,
      taskCount: taskIds.length,
    });
    await expectAgentBooks(t, agent);
    await expectAuditOk(t);
  });

  it('a worker accepting a direct offer while the agent cancels it: one cancellation, at most one acceptance', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    for (let round = 0; round < 4; round++) {
      const worker = await createWorker(t);
      const task = await createTask(t, agent, { reward: '1', assignToUserId: worker.id });
      const accept = {
        method: 'POST' as const,
        url: `/worker/offers/${task.id}/accept`,
        headers: worker.headers,
      };
      const del = { method: 'DELETE' as const, url: `/tasks/${task.id}`, headers: agent.headers };
      const responses = await fire(shuffled([accept, accept, accept, del, del, del], round + 1));
      // Either the offer was accepted (and DELETE, refused for an assigned task, lost) or it was
      // cancelled (and every acceptance lost): exactly one success either way.
      expect(statusCounts(responses)).toEqual({ 200: 1, 409: 5 });
      const after = await getTask(agent, task.id);
      const chats = await chatsOf(task.id);
      if (after.status === 'ASSIGNED') {
        expect(after.worker?.id).toBe(worker.id);
        expect(chats).toHaveLength(1);
      } else {
        expect(after.status).toBe('CANCELLED');
        expect(chats).toHaveLength(0);
      }
    }
    await expectAgentBooks(t, agent);
    await expectAuditOk(t);
  });

  it('accepting several different applications of one task at once: exactly one wins, one chat, one worker', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    for (let round = 0; round < 3; round++) {
      const task = await createTask(t, agent, { reward: '1' });
      const applications: { id: string; workerId: string }[] = [];
      for (let i = 0; i < 5; i++) {
        const worker = await createWorker(t);
        const res = await t.app.inject({
          method: 'POST',
          url: `/worker/tasks/${task.id}/applications`,
          headers: worker.headers,
          payload: { message: `applicant ${i}` },
        });
        expect(res.statusCode, res.body).toBe(201);
        applications.push({ id: res.json().application.id, workerId: worker.id });
      }
      const requests = applications.flatMap((a) =>
        [0, 1].map(() => ({
          method: 'PATCH' as const,
          url: `/applications/${a.id}`,
          headers: agent.headers,
          payload: { status: 'ACCEPTED' },
        })),
      );
      const order = shuffled(requests, round + 3);
      const responses = await fire(order);
      expect(statusCounts(responses)).toEqual({ 200: 1, 409: 9 });
      const winnerUrl = order[responses.findIndex((r) => r.statusCode === 200)]!.url;
      const winner = applications.find((a) => winnerUrl.endsWith(a.id))!;
      const after = await getTask(agent, task.id);
      expect(after).toMatchObject({ status: 'ASSIGNED', worker: { id: winner.workerId } });
      const statuses = Object.fromEntries(
        (after.applications as { id: string; status: string }[]).map((a) => [a.id, a.status]),
      );
      for (const a of applications) expect(statuses[a.id]).toBe(a === winner ? 'ACCEPTED' : 'REJECTED');
      const chats = await chatsOf(task.id);
      expect(chats).toHaveLength(1);
      expect(chats[0]!.worker_id).toBe(winner.workerId);
    }
    await expectAgentBooks(t, agent);
    await expectAuditOk(t);
  });

  it('accepting an application while the agent deletes the task: exactly one of them succeeds', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    for (let round = 0; round < 4; round++) {
      const worker = await createWorker(t);
      const task = await createTask(t, agent, { reward: '1' });
      const applied = await t.app.inject({
        method: 'POST',
        url: `/worker/tasks/${task.id}/applications`,
        headers: worker.headers,
        payload: { message: 'me' },
      });
      expect(applied.statusCode, applied.body).toBe(201);
      const accept = {
        method: 'PATCH' as const,
        url: `/applications/${applied.json().application.id}`,
        headers: agent.headers,
        payload: { status: 'ACCEPTED' },
      };
      const del = { method: 'DELETE' as const, url: `/tasks/${task.id}`, headers: agent.headers };
      const responses = await fire(shuffled([accept, del, accept, del], round + 5));
      expect(statusCounts(responses)).toEqual({ 200: 1, 409: 3 });
      const after = await getTask(agent, task.id);
      expect(['ASSIGNED', 'CANCELLED']).toContain(after.status);
      expect(await chatsOf(task.id)).toHaveLength(after.status === 'ASSIGNED' ? 1 : 0);
    }
    await expectAgentBooks(t, agent);
    await expectAuditOk(t);
  });

  it('applications racing an acceptance: none is left PENDING on an assigned task', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const first = await createWorker(t);
    const others = [];
    for (let i = 0; i < 8; i++) others.push(await createWorker(t));
    // Several rounds: on PostgreSQL the window the row lock closes is narrow.
    for (let round = 0; round < 4; round++) {
      const task = await createTask(t, agent, { reward: '1' });
      const applied = await t.app.inject({
        method: 'POST',
        url: `/worker/tasks/${task.id}/applications`,
        headers: first.headers,
        payload: { message: 'first' },
      });
      expect(applied.statusCode, applied.body).toBe(201);
      const requests: Inject[] = others.map((w) => ({
        method: 'POST',
        url: `/worker/tasks/${task.id}/applications`,
        headers: w.headers,
        payload: { message: 'late' },
      }));
      const at = round * 2 + 1;
      requests.splice(at, 0, {
        method: 'PATCH',
        url: `/applications/${applied.json().application.id}`,
        headers: agent.headers,
        payload: { status: 'ACCEPTED' },
      });
      const responses = await fire(requests);
      expect(responses[at]!.statusCode, responses[at]!.body).toBe(200);
      for (const res of responses) expect([200, 201, 409], res.body).toContain(res.statusCode);
      const after = await getTask(agent, task.id);
      expect(after).toMatchObject({ status: 'ASSIGNED', worker: { id: first.id } });
      const statuses = (after.applications as { status: string }[]).map((a) => a.status).sort();
      expect(statuses.filter((s) => s === 'ACCEPTED')).toHaveLength(1);
      expect(
        statuses.filter((s) => s === 'PENDING'),
        JSON.stringify(statuses),
      ).toHaveLength(0);
      expect(statuses).toHaveLength(1 + responses.filter((r) => r.statusCode === 201).length);
    }
  });

  it('one worker applying to one task many times at once: one 201, the rest 409', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const worker = await createWorker(t);
    const task = await createTask(t, agent, { reward: '1' });
    const responses = await fire(
      Array.from({ length: 12 }, () => ({
        method: 'POST' as const,
        url: `/worker/tasks/${task.id}/applications`,
        headers: worker.headers,
        payload: { message: 'again' },
      })),
    );
    expect(statusCounts(responses)).toEqual({ 201: 1, 409: 11 });
    for (const res of responses.filter((r) => r.statusCode === 409)) {
      expect(res.json()).toMatchObject({ error: 'You have already applied to this task' });
    }
    const after = await getTask(agent, task.id);
    expect(after.applications).toHaveLength(1);
  });

  it('rating a completed task twice at once: one 201, one 409, for each side', async () => {
    const agent = await createAgent(t, { deposit: '100' });
    const worker = await createWorker(t);
    const { taskId } = await assignedTask(t, agent, worker, { reward: '1' });
    const done = await t.app.inject({
      method: 'POST',
      url: `/tasks/${taskId}/complete`,
      headers: agent.headers,
    });
    expect(done.statusCode, done.body).toBe(200);
    const responses = await fire([
      ...[1, 2, 3].map((score) => ({
        method: 'POST' as const,
        url: `/tasks/${taskId}/rate`,
        headers: agent.headers,
        payload: { score },
      })),
      ...[4, 5, 1].map((score) => ({
        method: 'POST' as const,
        url: `/worker/tasks/${taskId}/rate`,
        headers: worker.headers,
        payload: { score },
      })),
    ]);
    expect(statusCounts(responses.slice(0, 3))).toEqual({ 201: 1, 409: 2 });
    expect(statusCounts(responses.slice(3))).toEqual({ 201: 1, 409: 2 });
  });

  it('a new worker signing in from several requests at once is registered once', async () => {
    const headers = workerAuth(t, 900_001, 'Racer');
    const responses = await fire(
      Array.from({ length: 8 }, () => ({ method: 'GET' as const, url: '/worker/me', headers })),
    );
    expect(statusCounts(responses)).toEqual({ 200: 8 });
    expect(new Set(responses.map((r) => r.json().worker.id)).size).toBe(1);
    const rows = await t.ctx.db
      .selectFrom('workers')
      .select('id')
      .where('telegram_id', '=', '900001')
      .execute();
    expect(rows).toHaveLength(1);
  });

  it('deposits and task creations at the same time keep every agent’s books and the audit right', async () => {
    const agents = [await createAgent(t, { deposit: '10' }), await createAgent(t, { deposit: '10' })];
    const requests: Inject[] = [];
    for (const agent of agents) {
      for (let i = 0; i < 6; i++) {
        requests.push({
          method: 'POST',
          url: `/admin/agents/${agent.id}/deposits`,
          headers: t.admin,
          payload: { amount: '2.6' },
        });
      }
      for (let i = 0; i < 25; i++) {
        requests.push({
          method: 'POST',
          url: '/tasks',
          headers: agent.headers,
          payload: { title: 'Mixed', description: 'race', reward: '1' },
        });
      }
    }
    const order = shuffled(requests, 5);
    const responses = await fire(order);
    for (const res of responses) expect([201, 402], res.body).toContain(res.statusCode);
    for (const agent of agents) {
      // 10 + 6 x 2.6 = 25.6 deposited; each task locks 1.3, so at most 19 fit.
      const created = order.filter(
        (r, n) => r.url === '/tasks' && r.headers === agent.headers && responses[n]!.statusCode === 201,
      ).length;
      const money = await agentMoney(t, agent);
      expect(money.taskCount).toBe(created);
      expect(money.lockedNano).toBe(BigInt(created) * 1_300_000_000n);
      expect(created).toBeLessThanOrEqual(19);
      expect(money.balanceNano + money.lockedNano).toBe(25_600_000_000n);
      const books = await expectAgentBooks(t, agent);
      expect(books.depositedNano).toBe(25_600_000_000n);
    }
    await expectAuditOk(t, 2);
  });

  it('one chain deposit credited from several places at once is credited once', async () => {
    const agent = await createAgent(t);
    const chainDeposit = {
      txHash: 'ab'.repeat(32),
      fromAddress: t.services.chain.hotWalletAddress,
      toAddress: t.services.chain.depositAddress,
      amountNano: 4_000_000_000n,
    };
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, () => creditChainDeposit(t.ctx, agent.id, chainDeposit)),
    );
    // A replay may answer with the existing row or fail (and be retried); it must never credit twice.
    const credited = results.filter((r) => r.status === 'fulfilled').map((r) => r.value.id);
    expect(credited.length).toBeGreaterThanOrEqual(1);
    expect(new Set(credited).size).toBe(1);
    expect((await agentMoney(t, agent)).balanceNano).toBe(4_000_000_000n);
    const books = await expectAgentBooks(t, agent);
    expect(books.transactions).toHaveLength(1);
    await expectAuditOk(t);
  });
});
