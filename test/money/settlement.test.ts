import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runReviewWindow } from '../../src/domain/trust/reviewWindow.js';
import { call, ok } from '../helpers/agentApi.js';
import { DIALECT, type TestApp } from '../helpers/app.js';
import { disputedTask, resolve } from '../helpers/disputeApi.js';
import {
  assignedTask,
  createAgent,
  createTask,
  createWorker,
  type TestAgent,
  type TestWorker,
} from '../helpers/fixtures.js';
import { createUnthrottledTestApp, expectAuditOk, listTransactions } from '../helpers/moneyChecks.js';
import { submittedTask } from '../helpers/submissionApi.js';

/**
 * Issue 36: a task's money outcome is recorded once, by the move that ends it, and every view
 * reads it. Each ending path is walked through the agent API, and the `settlement` it answers is
 * compared with the amounts the case decides and with the task's own ledger rows.
 */
const HOUR = 3_600_000;

describe(`task settlement on ${DIALECT}`, () => {
  let t: TestApp;
  let agent: TestAgent;
  let worker: TestWorker;
  beforeAll(async () => {
    t = await createUnthrottledTestApp();
    agent = await createAgent(t, { name: 'Payer', deposit: '1000' });
    const usdt = await call(t, { headers: t.admin }, 'POST', `/admin/agents/${agent.id}/deposits`, {
      amount: '1000',
      currency: 'USDT',
    });
    expect(usdt.statusCode, usdt.body).toBe(201);
    worker = await createWorker(t);
  });
  afterAll(() => t.close());

  const taskOf = async (taskId: string) => (await ok(t, agent, 'GET', `/tasks/${taskId}`)).task;
  const listed = async (taskId: string) => {
    const page = await ok<{ tasks: { id: string }[] }>(t, agent, 'GET', '/agents/tasks?limit=100');
    return page.tasks.find((x) => x.id === taskId);
  };
  const workerView = async (taskId: string) => (await ok(t, worker, 'GET', `/worker/tasks/${taskId}`)).task;
  /** The task's ledger rows as the outcome's three parts. */
  const booked = async (taskId: string) => {
    const rows = (await listTransactions(t, agent)).filter((r) => r.task?.id === taskId);
    const part = (type: string) => rows.filter((r) => r.type === type).map((r) => r.amount);
    return { PAYOUT: part('PAYOUT'), FEE: part('FEE'), REFUND: part('REFUND') };
  };
  /** GET /tasks/:id, the list and the ledger all say `expected`; the worker sees their part. */
  interface Expected {
    workerAmount: string;
    fee: string;
    refunded: string;
    decidedBy: string;
    currency: string;
  }
  async function expectSettled(taskId: string, expected: Expected, workerSees = true) {
    const task = await taskOf(taskId);
    expect(task.settlement).toEqual(expected);
    expect((await listed(taskId)) as unknown).toMatchObject({ settlement: expected });
    const nonZero = (v: string) => (v === '0' ? [] : [v]);
    expect(await booked(taskId)).toEqual({
      PAYOUT: nonZero(expected.workerAmount),
      FEE: nonZero(expected.fee),
      REFUND: nonZero(expected.refunded),
    });
    if (workerSees) {
      expect((await workerView(taskId)).settlement).toEqual({
        workerAmount: expected.workerAmount,
        decidedBy: expected.decidedBy,
        currency: expected.currency,
      });
    }
    await expectAuditOk(t);
  }

  it('an open task has no settlement, in its view, the list or the worker’s view', async () => {
    const { taskId } = await assignedTask(t, agent, worker, { reward: '3' });
    expect(await taskOf(taskId)).not.toHaveProperty('settlement');
    expect(await listed(taskId)).not.toHaveProperty('settlement');
    expect(await workerView(taskId)).not.toHaveProperty('settlement');
  });

  it('the agent’s approval: the whole reward, the whole fee, nothing back, decided by the agent', async () => {
    const { taskId } = await submittedTask(t, agent, worker, { reward: '3' });
    await ok(t, agent, 'POST', `/tasks/${taskId}/complete`);
    await expectSettled(taskId, {
      workerAmount: '3',
      fee: '0.9',
      refunded: '0',
      decidedBy: 'agent',
      currency: 'TON',
    });
  });

  it('an auto-release: paid in full, decided by the review clock', async () => {
    const { taskId } = await submittedTask(t, agent, worker, { reward: '2', reviewHours: 1 });
    t.clock.advance(2 * HOUR);
    await runReviewWindow(t.ctx, () => {});
    expect((await taskOf(taskId)).status).toBe('COMPLETED');
    await expectSettled(taskId, {
      workerAmount: '2',
      fee: '0.6',
      refunded: '0',
      decidedBy: 'auto',
      currency: 'TON',
    });
  });

  it('an operator’s 60/40 split of 3 TON: 1.8 paid, 0.54 fee taken, 1.56 back', async () => {
    const { taskId, dispute } = await disputedTask(t, agent, worker, { reward: '3' });
    const res = await resolve(t, dispute.id, '1.8');
    expect(res.statusCode, res.body).toBe(200);
    expect((await taskOf(taskId)).status).toBe('COMPLETED');
    await expectSettled(taskId, {
      workerAmount: '1.8',
      fee: '0.54',
      refunded: '1.56',
      decidedBy: 'operator',
      currency: 'TON',
    });
  });

  it('a dispute the worker lost: nothing paid, no fee, the total back, decided by an operator', async () => {
    const { taskId, dispute } = await disputedTask(t, agent, worker, { reward: '3' });
    expect((await resolve(t, dispute.id, '0')).statusCode).toBe(200);
    expect((await taskOf(taskId)).status).toBe('CANCELLED');
    await expectSettled(taskId, {
      workerAmount: '0',
      fee: '0',
      refunded: '3.9',
      decidedBy: 'operator',
      currency: 'TON',
    });
  });

  it('a USDT split in USDT: 6 decimals, the fee in proportion, rounded for the agent', async () => {
    const { taskId, dispute } = await disputedTask(t, agent, worker, { reward: '10', currency: 'USDT' });
    expect((await resolve(t, dispute.id, '3.333333')).statusCode).toBe(200);
    // 3 x 3.333333 / 10 = 0.9999999, rounded down to the micro-USDT: 0.999999.
    await expectSettled(taskId, {
      workerAmount: '3.333333',
      fee: '0.999999',
      refunded: '8.666668',
      decidedBy: 'operator',
      currency: 'USDT',
    });
  });

  it('a refund of an assigned task and a DELETE of a funded one: all back, decided by the agent', async () => {
    const { taskId } = await assignedTask(t, agent, worker, { reward: '1', currency: 'USDT' });
    await ok(t, agent, 'POST', `/tasks/${taskId}/refund`, { reason: 'Plans changed' });
    await expectSettled(taskId, {
      workerAmount: '0',
      fee: '0',
      refunded: '1.3',
      decidedBy: 'agent',
      currency: 'USDT',
    });
    const funded = await createTask(t, agent, { reward: '0.5' });
    const deleted = await call(t, agent, 'DELETE', `/tasks/${funded.id}`);
    expect(deleted.statusCode, deleted.body).toBe(200);
    // Never the worker's task: they were never assigned, so only the agent's views carry it.
    await expectSettled(
      funded.id,
      { workerAmount: '0', fee: '0', refunded: '0.65', decidedBy: 'agent', currency: 'TON' },
      false,
    );
  });

  it('the database refuses an ended task without an outcome, and an outcome that does not add up', async () => {
    const funded = await createTask(t, agent, { reward: '1' });
    await expect(
      sql`update tasks set status = 'CANCELLED' where id = ${funded.id}`.execute(t.ctx.db),
    ).rejects.toThrow(/check|constraint/i);
    const { taskId } = await submittedTask(t, agent, worker, { reward: '1' });
    await ok(t, agent, 'POST', `/tasks/${taskId}/complete`);
    await expect(
      sql`update tasks set settlement_fee_nano = settlement_fee_nano + 1 where id = ${taskId}`.execute(
        t.ctx.db,
      ),
    ).rejects.toThrow(/check|constraint/i);
    await expect(
      sql`update tasks set settled_by = null where id = ${taskId}`.execute(t.ctx.db),
    ).rejects.toThrow(/check|constraint/i);
    await expect(
      sql`update tasks set settled_by = 'worker' where id = ${taskId}`.execute(t.ctx.db),
    ).rejects.toThrow(/check|constraint/i);
    expect((await taskOf(taskId)).settlement).toMatchObject({ workerAmount: '1', fee: '0.3' });
  });

  it('the audit finds an outcome that adds up but differs from the ledger', async () => {
    const { taskId } = await submittedTask(t, agent, worker, { reward: '1' });
    await ok(t, agent, 'POST', `/tasks/${taskId}/complete`);
    // Still adds up to the total (the CHECK passes), but says the agent got 1 nanoton back.
    await sql`update tasks set settlement_worker_nano = settlement_worker_nano - 1,
        settlement_refunded_nano = 1 where id = ${taskId}`.execute(t.ctx.db);
    const audit = await ok<{ ok: boolean; problems: { problems: string[] }[] }>(
      t,
      { headers: t.admin },
      'GET',
      '/admin/audit',
    );
    expect(audit.ok).toBe(false);
    expect(audit.problems.flatMap((p) => p.problems)).toEqual([
      `task ${taskId}: its recorded outcome (worker 999999999, fee 300000000, refunded 1) differs from its ledger rows (1000000000, 300000000, 0)`,
    ]);
    await sql`update tasks set settlement_worker_nano = settlement_worker_nano + 1,
        settlement_refunded_nano = 0 where id = ${taskId}`.execute(t.ctx.db);
    await expectAuditOk(t);
  });
});
