import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendDueJettonTransfers } from '../../src/domain/money/jettonTransfers.js';
import { sendDueTransfers } from '../../src/domain/money/payouts.js';
import { autoReleaseTask } from '../../src/domain/tasks/completion.js';
import { runReviewWindow } from '../../src/domain/trust/reviewWindow.js';
import { call, ok } from '../helpers/agentApi.js';
import { DIALECT, type TestApp } from '../helpers/app.js';
import { dispute, resolve } from '../helpers/disputeApi.js';
import { createAgent, createWorker, type TestAgent, type TestWorker } from '../helpers/fixtures.js';
import {
  createUnthrottledTestApp,
  expectAgentBooks,
  expectAuditOk,
  expectedFee,
  expectedSplit,
  listTransactions,
  toUnits,
} from '../helpers/moneyChecks.js';
import { submittedTask } from '../helpers/submissionApi.js';
import { taskEvents } from '../helpers/workerApi.js';

/**
 * Issue 40, graded approval: an agent offers part of the reward for submitted work; the worker
 * accepts, disputes, or stays silent until the review window ends. Each way is walked through
 * the API in both currencies, and the ledger, the chain and the recorded settlement are compared
 * with a split computed here (the fee in proportion, rounded down; the rest back to the agent).
 */
const HOUR = 3_600_000;
const REASON = 'Two of the five photos are of the wrong shelf';
type Currency = 'TON' | 'USDT';

describe(`graded approval on ${DIALECT}`, () => {
  let t: TestApp;
  let agent: TestAgent;
  let worker: TestWorker;
  beforeAll(async () => {
    t = await createUnthrottledTestApp({ pgPoolSize: 10 });
    agent = await createAgent(t, { name: 'Grader', deposit: '1000' });
    const usdt = await call(t, { headers: t.admin }, 'POST', `/admin/agents/${agent.id}/deposits`, {
      amount: '1000',
      currency: 'USDT',
    });
    expect(usdt.statusCode, usdt.body).toBe(201);
    worker = await createWorker(t);
  });
  afterAll(() => t.close());

  const offer = (taskId: string, body: Record<string, unknown>) =>
    call(t, agent, 'POST', `/tasks/${taskId}/complete`, body);
  const accept = (taskId: string, who: TestWorker = worker) =>
    call(t, who, 'POST', `/worker/tasks/${taskId}/partial/accept`);
  const taskOf = async (taskId: string) => (await ok(t, agent, 'GET', `/tasks/${taskId}`)).task;
  const ledgerOf = async (taskId: string, currency: Currency) => {
    const rows = (await listTransactions(t, agent)).filter((r) => r.task?.id === taskId);
    const part = (type: string) =>
      rows.filter((r) => r.type === type).map((r) => toUnits(r.amount, currency));
    return { PAYOUT: part('PAYOUT'), FEE: part('FEE'), REFUND: part('REFUND') };
  };
  const chainBalance = async (currency: Currency, address: string) =>
    currency === 'TON' ? t.services.chain.getBalance(address) : t.services.chain.jetton!.balance(address);

  /** The split this test expects for `amount` of `reward`, in smallest units. */
  function split(reward: string, amount: string, currency: Currency) {
    const rewardUnits = toUnits(reward, currency);
    const paid = toUnits(amount, currency);
    const fee = expectedFee(rewardUnits);
    const parts = expectedSplit(rewardUnits, fee, paid);
    return { paid, fee: parts.feeNano, refunded: parts.agentNano, total: rewardUnits + fee };
  }

  /** The ledger, the recorded settlement and the books say `expected`. */
  async function expectSettled(
    taskId: string,
    currency: Currency,
    expected: ReturnType<typeof split>,
    decidedBy: string,
  ) {
    const nonZero = (v: bigint) => (v === 0n ? [] : [v]);
    expect(await ledgerOf(taskId, currency)).toEqual({
      PAYOUT: [expected.paid],
      FEE: nonZero(expected.fee),
      REFUND: nonZero(expected.refunded),
    });
    expect(expected.paid + expected.fee + expected.refunded).toBe(expected.total);
    const task = await taskOf(taskId);
    expect(task.status).toBe('COMPLETED');
    expect(task).not.toHaveProperty('partialOffer');
    expect(task.settlement).toMatchObject({ decidedBy, currency });
    expect(toUnits(task.settlement.workerAmount, currency)).toBe(expected.paid);
    expect(toUnits(task.settlement.fee, currency)).toBe(expected.fee);
    expect(toUnits(task.settlement.refunded, currency)).toBe(expected.refunded);
    await expectAgentBooks(t, agent);
    await expectAuditOk(t);
  }

  // [currency, reward, offered]: round amounts, rounding down, the smallest unit, one short.
  const CASES: [Currency, string, string][] = [
    ['TON', '10', '3.333333333'],
    ['TON', '0.01', '0.000000001'],
    ['TON', '1.234567891', '1.23456789'],
    ['USDT', '10', '3.333333'],
    ['USDT', '0.01', '0.000001'],
    ['USDT', '7', '6.999999'],
  ];
  for (const [currency, reward, amount] of CASES) {
    it(`${currency}: ${amount} of ${reward} offered and accepted by the worker; exact split and transfers`, async () => {
      const { taskId } = await submittedTask(t, agent, worker, { reward, currency });
      const res = await offer(taskId, { amount, reason: REASON });
      expect(res.statusCode, res.body).toBe(202);
      const offered = res.json();
      expect(offered.task).toMatchObject({ id: taskId, status: 'REVIEW', paymentStatus: 'DEPOSITED' });
      expect(offered.partialOffer).toMatchObject({ amount, currency, reason: REASON });
      // Nothing moved yet; both sides see the offer; the worker is told in Telegram.
      expect(await ledgerOf(taskId, currency)).toEqual({ PAYOUT: [], FEE: [], REFUND: [] });
      expect((await taskOf(taskId)).partialOffer).toEqual(offered.partialOffer);
      const mine = (await ok(t, worker, 'GET', `/worker/tasks/${taskId}`)).task;
      expect(mine.partialOffer).toEqual(offered.partialOffer);
      const note = await t.ctx.db
        .selectFrom('notifications')
        .select(['kind', 'data_json'])
        .where('task_id', '=', taskId)
        .where('kind', '=', 'partial_offered')
        .executeTakeFirstOrThrow();
      expect(JSON.parse(note.data_json)).toMatchObject({ amount, reward, currency, reason: REASON });
      expect((await taskEvents(t, taskId)).map((e) => e.type)).toContain('task.partial_offered');

      const expected = split(reward, amount, currency);
      const [walletBefore, feeBefore] = [
        await chainBalance(currency, worker.wallet!),
        await chainBalance(currency, t.ctx.chain.feeAddress),
      ];
      const accepted = await accept(taskId);
      expect(accepted.statusCode, accepted.body).toBe(200);
      expect(accepted.json().payment).toMatchObject({ amount, currency });
      expect(accepted.json().task.settlement).toEqual({ workerAmount: amount, decidedBy: 'agent', currency });
      await sendDueTransfers(t.ctx);
      await sendDueJettonTransfers(t.ctx);
      expect((await chainBalance(currency, worker.wallet!)) - walletBefore).toBe(expected.paid);
      expect((await chainBalance(currency, t.ctx.chain.feeAddress)) - feeBefore).toBe(expected.fee);
      const completed = (await taskEvents(t, taskId)).filter((e) => e.type === 'task.completed');
      expect(completed).toEqual([
        expect.objectContaining({ data: expect.objectContaining({ partial: true }) }),
      ]);
      const submission = await t.ctx.db
        .selectFrom('submissions')
        .select('status')
        .where('task_id', '=', taskId)
        .executeTakeFirstOrThrow();
      expect(submission.status).toBe('ACCEPTED');
      await expectSettled(taskId, currency, expected, 'agent');
      // Accepting again changes nothing.
      expect((await accept(taskId)).statusCode).toBe(409);
    });
  }

  for (const currency of ['TON', 'USDT'] as const) {
    it(`${currency}: silence accepts the offer when the review window ends (auto-release of the part)`, async () => {
      const { taskId } = await submittedTask(t, agent, worker, { reward: '5', currency, reviewHours: 2 });
      t.clock.advance(HOUR);
      const res = await offer(taskId, { amount: '1.7', reason: REASON });
      expect(res.statusCode, res.body).toBe(202);
      // The window restarted for the worker: the old deadline passing releases nothing.
      t.clock.advance(HOUR + 60_000);
      await runReviewWindow(t.ctx, () => {});
      expect((await taskOf(taskId)).status).toBe('REVIEW');
      t.clock.advance(HOUR);
      await runReviewWindow(t.ctx, (_id, error) => {
        throw error;
      });
      const events = (await taskEvents(t, taskId)).filter((e) => e.type === 'task.completed');
      expect(events.map((e) => e.data)).toEqual([
        expect.objectContaining({ autoReleased: true, partial: true }),
      ]);
      const note = await t.ctx.db
        .selectFrom('notifications')
        .select('data_json')
        .where('task_id', '=', taskId)
        .where('kind', '=', 'auto_released')
        .executeTakeFirstOrThrow();
      expect(JSON.parse(note.data_json)).toMatchObject({ amount: '1.7', partial: true });
      await expectSettled(taskId, currency, split('5', '1.7', currency), 'auto');
    });

    it(`${currency}: the worker disputes the offer and the operator decides, as for any dispute`, async () => {
      // Signed in again: the clock moved past the init data's 24 hours in other tests.
      worker = await createWorker(t);
      const { taskId } = await submittedTask(t, agent, worker, { reward: '4', currency });
      // Before an offer the worker cannot dispute waiting work.
      expect((await dispute(t, worker, taskId)).statusCode).toBe(409);
      expect((await offer(taskId, { amount: '1', reason: REASON })).statusCode).toBe(202);
      const opened = await dispute(t, worker, taskId, 'All five photos are right');
      expect(opened.statusCode, opened.body).toBe(201);
      const held = await taskOf(taskId);
      expect(held).not.toHaveProperty('partialOffer');
      expect(held.reviewDeadline).toBeNull();
      expect((await accept(taskId)).statusCode).toBe(409);
      expect((await offer(taskId, { amount: '2', reason: REASON })).statusCode).toBe(409);
      const res = await resolve(t, opened.json().dispute.id, '3');
      expect(res.statusCode, res.body).toBe(200);
      await expectSettled(taskId, currency, split('4', '3', currency), 'operator');
    });
  }

  it('bad input is refused with a sentence and changes nothing', async () => {
    const { taskId } = await submittedTask(t, agent, worker, { reward: '2' });
    const refused: [Record<string, unknown>, string][] = [
      [{ amount: '2.5', reason: REASON }, 'amount'],
      [{ amount: '0', reason: REASON }, 'amount'],
      [{ amount: '1' }, 'reason'],
      [{ amount: '1', reason: '   ' }, 'reason'],
      [{ amount: '1', reason: 'x'.repeat(1001) }, 'reason'],
      [{ reason: REASON }, 'reason'],
      [{ amount: '0.0000000001', reason: REASON }, 'amount'],
      [{ amount: 'abc', reason: REASON }, 'amount'],
    ];
    for (const [body, field] of refused) {
      const res = await offer(taskId, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.body).toContain(field);
    }
    const task = await taskOf(taskId);
    expect(task.status).toBe('REVIEW');
    expect(task).not.toHaveProperty('partialOffer');
    // The whole reward as an amount is the approval it always was.
    const full = await offer(taskId, { amount: '2' });
    expect(full.statusCode, full.body).toBe(200);
    await expectSettled(taskId, 'TON', split('2', '2', 'TON'), 'agent');
  });

  it('one offer at a time; only for waiting work; the agent may still pay in full', async () => {
    worker = await createWorker(t);
    const { taskId } = await submittedTask(t, agent, worker, { reward: '3' });
    const offers = await Promise.all(
      ['1', '1.5', '2'].map((amount) => offer(taskId, { amount, reason: REASON })),
    );
    expect(offers.map((r) => r.statusCode).sort()).toEqual([202, 409, 409]);
    // A revision is refused while the worker's answer is awaited.
    expect((await call(t, agent, 'POST', `/tasks/${taskId}/revisions`, { reason: 'Again' })).statusCode).toBe(
      409,
    );
    const full = await call(t, agent, 'POST', `/tasks/${taskId}/complete`);
    expect(full.statusCode, full.body).toBe(200);
    await expectSettled(taskId, 'TON', split('3', '3', 'TON'), 'agent');
    expect((await accept(taskId)).statusCode).toBe(409);
  });

  it('races: accept vs auto-release vs dispute vs full approval; one wins, exact books', async () => {
    worker = await createWorker(t);
    const ROUNDS = 4;
    const tasks: string[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const { taskId } = await submittedTask(t, agent, worker, { reward: '10', reviewHours: 1 });
      expect((await offer(taskId, { amount: '4', reason: REASON })).statusCode).toBe(202);
      tasks.push(taskId);
    }
    t.clock.advance(HOUR);
    // The worker's init data stays valid: the clock moved an hour only.
    const results = await Promise.all(
      tasks.flatMap((id) => [
        accept(id).then((r) => ({ id, kind: 'accept', won: r.statusCode === 200 })),
        autoReleaseTask(t.ctx, id).then((done) => ({ id, kind: 'auto', won: done !== null })),
        dispute(t, worker, id).then((r) => ({ id, kind: 'dispute', won: r.statusCode === 201 })),
        call(t, agent, 'POST', `/tasks/${id}/complete`).then((r) => ({
          id,
          kind: 'full',
          won: r.statusCode === 200,
        })),
      ]),
    );
    for (const id of tasks) {
      const winners = results.filter((r) => r.id === id && r.won);
      expect(winners, id).toHaveLength(1);
      const kind = winners[0]!.kind;
      const ledger = await ledgerOf(id, 'TON');
      if (kind === 'dispute') {
        expect(ledger).toEqual({ PAYOUT: [], FEE: [], REFUND: [] });
        expect((await taskOf(id)).status).toBe('REVIEW');
      } else {
        const expected = split('10', kind === 'full' ? '10' : '4', 'TON');
        expect(ledger.PAYOUT).toEqual([expected.paid]);
        expect(ledger.FEE).toEqual([expected.fee]);
      }
    }
    await sendDueTransfers(t.ctx);
    await expectAgentBooks(t, agent);
    await expectAuditOk(t);
  });
});
