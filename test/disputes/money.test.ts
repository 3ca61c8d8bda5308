import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendDueTransfers } from '../../src/domain/money/payouts.js';
import { autoReleaseTask } from '../../src/domain/tasks/completion.js';
import { runReviewWindow } from '../../src/domain/trust/reviewWindow.js';
import { eventsOfType } from '../helpers/agentApi.js';
import { DIALECT, type TestApp } from '../helpers/app.js';
import { dispute, disputedTask, resolve } from '../helpers/disputeApi.js';
import { FaultyChain } from '../helpers/faultyChain.js';
import { createAgent, createWorker, type TestAgent, type TestWorker } from '../helpers/fixtures.js';
import {
  createUnthrottledTestApp,
  expectAgentBooks,
  expectAuditOk,
  expectedFee,
  expectedSplit,
  listTransactions,
  statusCounts,
  toNano,
} from '../helpers/moneyChecks.js';
import { requestRevision, submittedTask } from '../helpers/submissionApi.js';

/**
 * Disputes and money on whichever database the run uses (PostgreSQL: a pool of 20 connections
 * runs the races truly in parallel): the split's exact ledger rows and chain transfers, and the
 * races of issue 25 that involve disputes, each with one winner and exact books.
 */
const HOUR = 3_600_000;
const ROUNDS = 5;

describe(`dispute money on ${DIALECT}`, () => {
  let t: TestApp;
  let chain: FaultyChain;
  let agent: TestAgent;
  let worker: TestWorker;
  beforeAll(async () => {
    t = await createUnthrottledTestApp({
      pgPoolSize: 20,
      wrapChain: (inner) => {
        chain = new FaultyChain(inner);
        return chain;
      },
    });
    agent = await createAgent(t, { name: 'Payer', deposit: '1000' });
    worker = await createWorker(t);
  });
  afterAll(() => t.close());

  const ledgerOf = async (taskId: string) =>
    (await listTransactions(t, agent))
      .filter((r) => r.task?.id === taskId)
      .map((r) => ({ type: r.type, amount: toNano(r.amount), status: r.status }))
      .sort((a, b) => a.type.localeCompare(b.type));
  const statusOf = async (taskId: string) =>
    await t.ctx.db
      .selectFrom('tasks')
      .select(['status', 'payment_status'])
      .where('id', '=', taskId)
      .executeTakeFirstOrThrow();
  const wallet = () => t.services.chain.getBalance(worker.wallet!);
  const feeWallet = () => t.services.chain.getBalance(t.ctx.chain.feeAddress);

  // [reward, what the worker gets]: round amounts, rounding down, the smallest reward and the
  // smallest payout (0.01 TON: below it a payout costs more in gas than it pays, issue #35).
  const CASES: [string, string][] = [
    ['10', '3.333333333'],
    ['0.01', '0.01'],
    ['0.02', '0.01'],
    ['0.03', '0.010000001'],
    ['1.234567891', '0.617283945'],
    ['7', '6.999999999'],
    ['2.5', '0.010000004'],
  ];
  for (const [reward, paid] of CASES) {
    it(`a split of ${paid} of ${reward} TON: exact ledger rows, chain transfers and books`, async () => {
      const { taskId, dispute: opened } = await disputedTask(t, agent, worker, { reward });
      const rewardNano = toNano(reward);
      const feeNano = expectedFee(rewardNano);
      const paidNano = toNano(paid);
      const split = expectedSplit(rewardNano, feeNano, paidNano);
      expect(split.feeNano).toBe((feeNano * paidNano) / rewardNano);
      const [walletBefore, feeBefore] = [await wallet(), await feeWallet()];
      const res = await resolve(t, opened.id, paid);
      expect(res.statusCode, res.body).toBe(200);
      expect(await statusOf(taskId)).toEqual({ status: 'COMPLETED', payment_status: 'RELEASED' });
      const expected = [
        ...(split.feeNano > 0n ? [{ type: 'FEE', amount: split.feeNano, status: 'confirmed' }] : []),
        { type: 'PAYOUT', amount: paidNano, status: 'confirmed' },
        ...(split.agentNano > 0n ? [{ type: 'REFUND', amount: split.agentNano, status: 'confirmed' }] : []),
        { type: 'TASK_ESCROW', amount: rewardNano + feeNano, status: 'confirmed' },
      ];
      expect(await ledgerOf(taskId)).toEqual(expected);
      expect(paidNano + split.feeNano + split.agentNano).toBe(rewardNano + feeNano);
      expect((await wallet()) - walletBefore).toBe(paidNano);
      expect((await feeWallet()) - feeBefore).toBe(split.feeNano);
      expect(res.json().dispute.resolution).toMatchObject({
        workerAmount: paid,
        platformFee: res.json().fee?.amount ?? '0',
      });
      await expectAgentBooks(t, agent);
      await expectAuditOk(t);
    });
  }

  it('two resolutions at once: one wins, the books and the chain hold the winner’s split only', async () => {
    worker = await createWorker(t);
    const disputes = [];
    for (let i = 0; i < ROUNDS; i++) disputes.push(await disputedTask(t, agent, worker, { reward: '10' }));
    const before = await wallet();
    const amounts = ['0', '2.5', '10'];
    const results = await Promise.all(
      disputes.flatMap(({ dispute: d }) => amounts.map((a) => resolve(t, d.id, a))),
    );
    let paid = 0n;
    for (const [i, { taskId }] of disputes.entries()) {
      const mine = results.slice(i * amounts.length, (i + 1) * amounts.length);
      expect(statusCounts(mine)).toEqual({ 200: 1, 409: amounts.length - 1 });
      const winner = amounts[mine.findIndex((r) => r.statusCode === 200)]!;
      const state = await statusOf(taskId);
      expect(state.status).toBe(winner === '0' ? 'CANCELLED' : 'COMPLETED');
      const payouts = (await ledgerOf(taskId)).filter((r) => r.type === 'PAYOUT');
      expect(payouts.map((r) => r.amount)).toEqual(winner === '0' ? [] : [toNano(winner)]);
      paid += toNano(winner);
    }
    await sendDueTransfers(t.ctx);
    expect((await wallet()) - before).toBe(paid);
    await expectAgentBooks(t, agent);
    await expectAuditOk(t);
  });

  it('a partial payout is sent exactly once through a chain outage and two runner passes', async () => {
    // A fresh wallet: an address that held coins while chain time passed pays storage fees.
    worker = await createWorker(t);
    const { taskId, dispute: opened } = await disputedTask(t, agent, worker, { reward: '10' });
    const before = await wallet();
    chain.down = true;
    const res = await resolve(t, opened.id, '3.7');
    chain.down = false;
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().payout).toMatchObject({ amount: '3.7', status: 'pending', txHash: null });
    expect(await wallet()).toBe(before);
    t.clock.advance(6_000);
    await Promise.all([sendDueTransfers(t.ctx), sendDueTransfers(t.ctx)]);
    await sendDueTransfers(t.ctx);
    expect((await wallet()) - before).toBe(toNano('3.7'));
    const sent = await eventsOfType(t, taskId, 'payment.sent');
    expect(sent).toEqual([expect.objectContaining({ payment: expect.objectContaining({ amount: '3.7' }) })]);
    expect((await ledgerOf(taskId)).filter((r) => r.status === 'pending')).toEqual([]);
    // A send whose answer was lost (the chain paid) is recognised, not paid again.
    worker = await createWorker(t);
    const second = await disputedTask(t, agent, worker, { reward: '10' });
    const before2 = await wallet();
    chain.crashAfterSend = true;
    expect((await resolve(t, second.dispute.id, '1.1')).statusCode).toBe(200);
    chain.crashAfterSend = false;
    t.clock.advance(6_000);
    await sendDueTransfers(t.ctx);
    expect((await wallet()) - before2).toBe(toNano('1.1'));
    expect(await eventsOfType(t, second.taskId, 'payment.sent')).toHaveLength(1);
    await expectAgentBooks(t, agent);
    await expectAuditOk(t);
  });

  it('dispute vs auto-release: either the work is paid in full or the dispute holds it, never both', async () => {
    const tasks: string[] = [];
    for (let i = 0; i < ROUNDS; i++)
      tasks.push((await submittedTask(t, agent, worker, { reviewHours: 1 })).taskId);
    t.clock.advance(HOUR);
    const noError = (id: string, error: unknown) => {
      throw new Error(`${id}: ${String(error)}`);
    };
    const results = await Promise.all(
      tasks.flatMap((id) => [
        dispute(t, agent, id).then((r) => ({ kind: 'dispute', id, statusCode: r.statusCode })),
        autoReleaseTask(t.ctx, id).then((done) => ({ kind: 'release', id, statusCode: done ? 200 : 409 })),
        runReviewWindow(t.ctx, noError).then(() => ({ kind: 'job', id, statusCode: 0 })),
      ]),
    );
    const rows = await listTransactions(t, agent);
    for (const id of tasks) {
      const disputed = results.some((r) => r.id === id && r.kind === 'dispute' && r.statusCode === 201);
      const state = await statusOf(id);
      const payouts = rows.filter((r) => r.task?.id === id && r.type === 'PAYOUT');
      const submission = await t.ctx.db
        .selectFrom('submissions')
        .select('status')
        .where('task_id', '=', id)
        .executeTakeFirstOrThrow();
      if (disputed) {
        expect(state.status).toBe('REVIEW');
        expect(payouts).toHaveLength(0);
        expect(submission.status).toBe('DISPUTED');
      } else {
        expect(state.status).toBe('COMPLETED');
        expect(payouts).toHaveLength(1);
        expect(submission.status).toBe('ACCEPTED');
      }
    }
    // The held ones stay held: later runs of the review job release nothing.
    t.clock.advance(100 * HOUR);
    await runReviewWindow(t.ctx, noError);
    for (const r of results.filter((x) => x.kind === 'dispute' && x.statusCode === 201)) {
      expect((await statusOf(r.id)).status).toBe('REVIEW');
    }
    await expectAgentBooks(t, agent);
    await expectAuditOk(t);
  });

  it('dispute vs complete, and dispute vs revision: one wins', async () => {
    // Signed in again: the test before moved the clock past the init data's 24 hours.
    worker = await createWorker(t);
    for (const rival of ['complete', 'revision'] as const) {
      const tasks: string[] = [];
      for (let i = 0; i < ROUNDS; i++) tasks.push((await submittedTask(t, agent, worker)).taskId);
      const results = await Promise.all(
        tasks.flatMap((id) => [
          dispute(t, agent, id),
          rival === 'complete'
            ? t.app.inject({ method: 'POST', url: `/tasks/${id}/complete`, headers: agent.headers })
            : requestRevision(t, agent, id),
        ]),
      );
      for (const [i, id] of tasks.entries()) {
        const [opened, other] = [results[2 * i]!, results[2 * i + 1]!];
        const dispute201 = opened.statusCode === 201;
        const submission = await t.ctx.db
          .selectFrom('submissions')
          .select('status')
          .where('task_id', '=', id)
          .executeTakeFirstOrThrow();
        const task = await statusOf(id);
        if (rival === 'complete') {
          // A dispute after an approval is refused (settled); an approval after a dispute too.
          expect([opened.statusCode, other.statusCode]).toEqual(dispute201 ? [201, 409] : [409, 200]);
          expect(task.status).toBe(dispute201 ? 'REVIEW' : 'COMPLETED');
          expect(submission.status).toBe(dispute201 ? 'DISPUTED' : 'ACCEPTED');
        } else if (dispute201) {
          // A revision after the dispute is refused; a dispute after the revision is allowed.
          expect(submission.status).toBe('DISPUTED');
          if (other.statusCode === 201) expect(task.status).toBe('IN_PROGRESS');
          else expect(other.statusCode).toBe(409);
        } else {
          // The dispute lost only to a refusal of its own: never both refused.
          expect(other.statusCode).toBe(201);
          expect(submission.status).toBe('REVISION_REQUESTED');
        }
      }
    }
    await expectAgentBooks(t, agent);
    await expectAuditOk(t);
  });
});
