import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, ok } from '../helpers/agentApi.js';
import { DIALECT, type TestApp } from '../helpers/app.js';
import { createAgent, createWorker, type TestAgent, type TestWorker } from '../helpers/fixtures.js';
import {
  agentMe,
  createUnthrottledTestApp,
  expectAgentBooks,
  expectAuditOk,
  expectedFee,
  listTransactions,
  statusCounts,
  toUnits,
} from '../helpers/moneyChecks.js';
import { submittedTask } from '../helpers/submissionApi.js';
import { taskEvents } from '../helpers/workerApi.js';

/**
 * Issue 40, bonuses: POST /tasks/:id/bonus pays a worker more than the reward, once per
 * Idempotency-Key, from the balance of the task's currency, with the fee on top; in both
 * currencies, with retries racing and different keys racing for a balance that covers only some.
 */
type Currency = 'TON' | 'USDT';
const REASON = 'Sharp photos, and the opening hours too';

describe(`bonuses on ${DIALECT}`, () => {
  let t: TestApp;
  let worker: TestWorker;
  beforeAll(async () => {
    t = await createUnthrottledTestApp({ pgPoolSize: 10 });
    worker = await createWorker(t);
  });
  afterAll(() => t.close());

  async function fundedAgent(ton: string, usdt = '0'): Promise<TestAgent> {
    const agent = await createAgent(t, { name: 'Generous', deposit: ton });
    if (usdt !== '0') {
      const res = await call(t, { headers: t.admin }, 'POST', `/admin/agents/${agent.id}/deposits`, {
        amount: usdt,
        currency: 'USDT',
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    return agent;
  }

  async function completedTask(agent: TestAgent, reward: string, currency: Currency) {
    const { taskId } = await submittedTask(t, agent, worker, { reward, currency });
    await ok(t, agent, 'POST', `/tasks/${taskId}/complete`);
    return taskId;
  }

  const bonus = (agent: TestAgent, taskId: string, body: unknown, key: string | null) =>
    t.app.inject({
      method: 'POST',
      url: `/tasks/${taskId}/bonus`,
      headers: { ...agent.headers, ...(key === null ? {} : { 'idempotency-key': key }) },
      payload: body as Record<string, unknown>,
    });

  const balanceOf = async (agent: TestAgent, currency: Currency) =>
    toUnits(
      ((await agentMe(t, agent)).balances as Record<Currency, { balance: string }>)[currency].balance,
      currency,
    );
  const chainBalance = (currency: Currency, address: string) =>
    currency === 'TON' ? t.services.chain.getBalance(address) : t.services.chain.jetton!.balance(address);

  for (const [currency, reward, amount] of [
    ['TON', '10', '2.5'],
    ['USDT', '10', '3.333333'],
  ] as const) {
    it(`${currency}: pays once per key, on chain, with its fee, event, note, earnings and settlement`, async () => {
      const agent = await fundedAgent('100', '100');
      const taskId = await completedTask(agent, reward, currency);
      const units = toUnits(amount, currency);
      const fee = expectedFee(units);
      const before = await balanceOf(agent, currency);
      const walletBefore = await chainBalance(currency, worker.wallet!);
      const earningsBefore = await ok(t, worker, 'GET', '/worker/payouts');

      // Ten copies of one request at once: one bonus.
      const key = `bonus-${currency}-${taskId}`;
      const answers = await Promise.all(
        Array.from({ length: 10 }, () => bonus(agent, taskId, { amount, reason: REASON }, key)),
      );
      const counts = statusCounts(answers);
      expect(counts[201] ?? 0, JSON.stringify(counts)).toBeGreaterThanOrEqual(1);
      expect(Object.keys(counts).every((s) => s === '201' || s === '409')).toBe(true);
      const first = answers.find((a) => a.statusCode === 201)!.json();
      expect(first.bonus).toMatchObject({ amount, currency, reason: REASON });
      expect(toUnits(first.bonus.fee, currency)).toBe(fee);
      expect(first.task).toEqual({ id: taskId, bonusCount: 1 });
      expect(first.payment).toMatchObject({ toAddress: worker.wallet, pending: false });
      // A retry afterwards, still with the key, answers the same bonus.
      const again = await bonus(agent, taskId, { amount, reason: REASON }, key);
      expect(again.statusCode, again.body).toBe(201);
      expect(again.json().bonus.id).toBe(first.bonus.id);

      expect(await balanceOf(agent, currency)).toBe(before - units - fee);
      expect((await chainBalance(currency, worker.wallet!)) - walletBefore).toBe(units);
      const rows = (await listTransactions(t, agent)).filter((r) => r.task?.id === taskId);
      expect(rows.filter((r) => r.type === 'BONUS').map((r) => toUnits(r.amount, currency))).toEqual([units]);
      expect(rows.filter((r) => r.type === 'BONUS_FEE').map((r) => toUnits(r.amount, currency))).toEqual([
        fee,
      ]);
      const task = (await ok(t, agent, 'GET', `/tasks/${taskId}`)).task;
      expect(task.settlement.bonuses).toEqual({ count: 1, amount, fee: first.bonus.fee });
      const mine = (await ok(t, worker, 'GET', `/worker/tasks/${taskId}`)).task;
      expect(mine.settlement.bonuses).toEqual({ count: 1, amount });
      const earnings = await ok(t, worker, 'GET', '/worker/payouts');
      expect(JSON.stringify(earnings)).not.toEqual(JSON.stringify(earningsBefore));
      const events = (await taskEvents(t, taskId)).filter((e) => e.type === 'task.bonus_paid');
      expect(events).toHaveLength(1);
      const notes = await t.ctx.db
        .selectFrom('notifications')
        .select('data_json')
        .where('task_id', '=', taskId)
        .where('kind', '=', 'bonus_paid')
        .execute();
      expect(notes).toHaveLength(1);
      expect(JSON.parse(notes[0]!.data_json)).toMatchObject({ amount, currency, reason: REASON });
      await expectAgentBooks(t, agent);
      await expectAuditOk(t);
    });
  }

  it('a key already used for a bonus answers it even once the HTTP layer forgot the key', async () => {
    const agent = await fundedAgent('100');
    const taskId = await completedTask(agent, '1', 'TON');
    const key = `forgotten-${taskId}`;
    const first = await bonus(agent, taskId, { amount: '1', reason: REASON }, key);
    expect(first.statusCode, first.body).toBe(201);
    await t.ctx.db.deleteFrom('idempotency_keys').execute();
    const again = await bonus(agent, taskId, { amount: '1', reason: REASON }, key);
    expect(again.statusCode, again.body).toBe(201);
    expect(again.json().bonus.id).toBe(first.json().bonus.id);
    const other = await bonus(agent, taskId, { amount: '2', reason: REASON }, key);
    expect(other.statusCode, other.body).toBe(422);
    const rows = (await listTransactions(t, agent)).filter((r) => r.type === 'BONUS');
    expect(rows).toHaveLength(1);
    await expectAgentBooks(t, agent);
  });

  it('different keys racing for a balance that covers three: exactly three are paid', async () => {
    // 1 TON task costs 1.3; left 3.9 + a bit: three bonuses of 1 TON (1.3 each) fit, not four.
    const agent = await fundedAgent('5.3');
    const taskId = await completedTask(agent, '1', 'TON');
    expect(await balanceOf(agent, 'TON')).toBe(4_000_000_000n);
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        bonus(agent, taskId, { amount: '1', reason: REASON }, `race-${taskId}-${i}`),
      ),
    );
    expect(statusCounts(answers)).toEqual({ 201: 3, 402: 2 });
    const refused = answers.find((a) => a.statusCode === 402)!.json();
    expect(refused.message).toContain('bonus 1\u00a0TON + 30% fee 0.3\u00a0TON');
    expect(await balanceOf(agent, 'TON')).toBe(100_000_000n);
    await expectAgentBooks(t, agent);
    await expectAuditOk(t);
  });

  it('at most 5 per task, under concurrency', async () => {
    const agent = await fundedAgent('100');
    const taskId = await completedTask(agent, '1', 'TON');
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        bonus(agent, taskId, { amount: '0.5', reason: REASON }, `max-${taskId}-${i}`),
      ),
    );
    expect(statusCounts(answers)).toEqual({ 201: 5, 409: 3 });
    expect((await ok(t, agent, 'GET', `/tasks/${taskId}`)).task.settlement.bonuses.count).toBe(5);
    await expectAgentBooks(t, agent);
  });

  it("counts toward the key's spend policy", async () => {
    const agent = await fundedAgent('100');
    const taskId = await completedTask(agent, '1', 'TON');
    const { keys } = await ok(t, { headers: t.admin }, 'GET', `/admin/agents/${agent.id}/keys`);
    const set = await call(t, { headers: t.admin }, 'PATCH', `/admin/agents/${agent.id}/keys/${keys[0].id}`, {
      spendPolicy: { TON: { maxTaskAmount: '2' } },
    });
    expect(set.statusCode, set.body).toBe(200);
    const dear = await bonus(agent, taskId, { amount: '2', reason: REASON }, 'dear');
    expect(dear.statusCode, dear.body).toBe(403);
    expect(dear.json()).toMatchObject({ limit: 'maxTaskAmount' });
    expect(dear.json().error).toContain("This bonus's total");
    const fine = await bonus(agent, taskId, { amount: '1.5', reason: REASON }, 'fine');
    expect(fine.statusCode, fine.body).toBe(201);
    await expectAgentBooks(t, agent);
  });
  it('refuses bad calls with a sentence and changes nothing', async () => {
    const agent = await fundedAgent('100');
    const other = await fundedAgent('100');
    const taskId = await completedTask(agent, '1', 'TON');
    const { taskId: open } = await submittedTask(t, agent, worker, { reward: '1' });
    const before = await balanceOf(agent, 'TON');
    const cases: [TestAgent, string, unknown, string | null, number, string][] = [
      [agent, taskId, { amount: '1', reason: REASON }, null, 400, 'Idempotency-Key'],
      [agent, taskId, { amount: '10.000000001', reason: REASON }, 'k1', 400, '10 times'],
      [agent, taskId, { amount: '0', reason: REASON }, 'k2', 400, 'at least'],
      [agent, taskId, { amount: '1', reason: ' ' }, 'k3', 400, 'blank'],
      [agent, taskId, { amount: '1', reason: 'x'.repeat(1001) }, 'k4', 400, ''],
      [agent, open, { amount: '1', reason: REASON }, 'k5', 409, 'completed'],
      [other, taskId, { amount: '1', reason: REASON }, 'k6', 403, ''],
      [agent, 'tsk_nope', { amount: '1', reason: REASON }, 'k7', 404, ''],
    ];
    for (const [who, id, body, key, status, words] of cases) {
      const res = await bonus(who, id, body, key);
      expect(res.statusCode, res.body).toBe(status);
      expect(res.body).toContain(words);
    }
    expect(await balanceOf(agent, 'TON')).toBe(before);
    // 30 days after completion, no more bonuses (last: the moved clock ages the worker's init data).
    t.clock.advance(31 * 86_400_000);
    const late = await bonus(agent, taskId, { amount: '1', reason: REASON }, 'late');
    expect(late.statusCode, late.body).toBe(409);
    expect(late.json().error).toContain('30 days');
    await expectAgentBooks(t, agent);
  });
});
