import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accept, apply, type Json, ok } from '../helpers/agentApi.js';
import { DIALECT, type TestApp } from '../helpers/app.js';
import { consoleCall, consoleOk, signInOwner, type TestOwner } from '../helpers/consoleApi.js';
import { createWorker, type TestAgent } from '../helpers/fixtures.js';
import { createUnthrottledTestApp, expectAgentBooks, toUnits } from '../helpers/moneyChecks.js';
import { submitOk } from '../helpers/submissionApi.js';

/**
 * Issue 40 in the console: the owner's batches and bonuses through the session API (the agent
 * API mounted under /console/api/agents/:agentId/api, and the bonus preview), only for the
 * owner's own agents; a double submit of the bonus dialog pays once.
 */
describe(`console batches and bonuses on ${DIALECT}`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createUnthrottledTestApp();
  }, 120_000);
  afterAll(() => t?.close());

  /** An agent the owner made in the console, topped up by the operator, with its first key. */
  async function ownedAgent(owner: TestOwner, amount: string): Promise<TestAgent> {
    const { agent, apiKey } = await consoleOk(t, owner, 'POST', '/agents', { name: 'Menus' }, 201);
    await ok(t, { headers: t.admin }, 'POST', `/admin/agents/${agent.id}/deposits`, { amount }, 201);
    return { id: agent.id, apiKey, headers: { authorization: `Bearer ${apiKey}` } };
  }

  const template = { title: 'Photograph a café menu', description: 'The whole menu', reward: '1' };

  it("another owner's batch and task are not found; their preview and cancel change nothing", async () => {
    const alice = await signInOwner(t);
    const bob = await signInOwner(t);
    const agent = await ownedAgent(alice, '10');
    const mine = await ownedAgent(bob, '10');
    const created = await consoleOk(
      t,
      alice,
      'POST',
      `/agents/${agent.id}/api/batches`,
      { template, count: 2 },
      201,
    );
    const batchId = created.batch.id as string;
    const taskId = created.tasks[0].id as string;
    const listed = await consoleOk(t, alice, 'GET', `/agents/${agent.id}/api/batches`);
    expect(listed.batches.map((b: Json) => b.id)).toEqual([batchId]);
    expect(listed.batches[0]).toMatchObject({ count: 2, totalAmount: '2.6', counts: { FUNDED: 2 } });

    for (const [method, url] of [
      ['GET', `/agents/${agent.id}/api/batches/${batchId}`],
      ['GET', `/agents/${agent.id}/api/batches`],
      ['GET', `/agents/${agent.id}/api/agents/tasks?batchId=${batchId}`],
      ['POST', `/agents/${agent.id}/api/batches/${batchId}/cancel`],
      ['GET', `/agents/${agent.id}/tasks/${taskId}/bonuses`],
    ] as const) {
      const res = await consoleCall(t, bob, method, url, method === 'POST' ? {} : undefined);
      expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(404);
      expect(res.body).not.toContain(batchId);
    }
    // Through Bob's own agent, Alice's batch is not his: refused, and nothing about it is told.
    for (const [method, url] of [
      ['GET', `/agents/${mine.id}/api/batches/${batchId}`],
      ['POST', `/agents/${mine.id}/api/batches/${batchId}/cancel`],
      ['GET', `/agents/${mine.id}/tasks/${taskId}/bonuses`],
    ] as const) {
      const res = await consoleCall(t, bob, method, url, method === 'POST' ? {} : undefined);
      expect([403, 404], `${method} ${url}: ${res.body}`).toContain(res.statusCode);
      expect(res.body).not.toContain('2.6');
    }
    const after = await consoleOk(t, alice, 'GET', `/agents/${agent.id}/api/batches/${batchId}`);
    expect(after.batch.counts).toMatchObject({ FUNDED: 2, CANCELLED: 0 });
  });

  it('cancel from the console refunds exactly the open tasks and names the ones it left', async () => {
    const owner = await signInOwner(t);
    const agent = await ownedAgent(owner, '100');
    const created = await consoleOk(
      t,
      owner,
      'POST',
      `/agents/${agent.id}/api/batches`,
      { template, count: 4 },
      201,
    );
    const batchId = created.batch.id as string;
    const [assigned, submitted, completed, open] = created.tasks.map((task: Json) => task.id as string);
    const worker = await createWorker(t);
    const take = async (id: string) => accept(t, agent, await apply(t, worker, id));
    await take(assigned);
    await take(submitted);
    await submitOk(t, worker, submitted);
    await take(completed);
    await ok(t, agent, 'POST', `/tasks/${completed}/complete`);
    const before = await consoleOk(t, owner, 'GET', `/agents/${agent.id}`);

    const result = await consoleOk(t, owner, 'POST', `/agents/${agent.id}/api/batches/${batchId}/cancel`, {});
    expect([...result.refunded].sort()).toEqual([assigned, open].sort());
    expect(result.refundedAmount).toBe('2.6');
    expect(result.notRefunded).toEqual([
      { id: submitted, status: 'REVIEW', reason: expect.stringContaining('Work was submitted') },
      { id: completed, status: 'COMPLETED', reason: 'The task is already COMPLETED' },
    ]);
    const afterCancel = await consoleOk(t, owner, 'GET', `/agents/${agent.id}`);
    expect(toUnits(afterCancel.agent.balance, 'TON') - toUnits(before.agent.balance, 'TON')).toBe(
      toUnits('2.6', 'TON'),
    );
    const tasks = await consoleOk(t, owner, 'GET', `/agents/${agent.id}/api/agents/tasks?batchId=${batchId}`);
    const statusOf = new Map(tasks.tasks.map((task: Json) => [task.id, task.status]));
    expect(Object.fromEntries(statusOf)).toEqual({
      [assigned]: 'CANCELLED',
      [submitted]: 'REVIEW',
      [completed]: 'COMPLETED',
      [open]: 'CANCELLED',
    });
    await expectAgentBooks(t, agent);
  }, 60_000);

  it('the bonus preview names the fee and total; a double submit of one dialog pays once', async () => {
    const owner = await signInOwner(t);
    const agent = await ownedAgent(owner, '100');
    const created = await consoleOk(
      t,
      owner,
      'POST',
      `/agents/${agent.id}/api/batches`,
      { template: { ...template, reward: '2' }, count: 1 },
      201,
    );
    const taskId = created.tasks[0].id as string;
    const worker = await createWorker(t);
    await accept(t, agent, await apply(t, worker, taskId));
    await submitOk(t, worker, taskId);
    await ok(t, agent, 'POST', `/tasks/${taskId}/complete`);

    const preview = await consoleOk(
      t,
      owner,
      'GET',
      `/agents/${agent.id}/tasks/${taskId}/bonuses?amount=1.5`,
    );
    expect(preview).toMatchObject({
      currency: 'TON',
      bonuses: [],
      left: 5,
      maxAmount: '20',
      quote: { amount: '1.5', fee: '0.45', total: '1.95', enough: true },
    });
    const tooLarge = await consoleCall(
      t,
      owner,
      'GET',
      `/agents/${agent.id}/tasks/${taskId}/bonuses?amount=21`,
    );
    expect(tooLarge.statusCode).toBe(400);
    expect(tooLarge.body).toContain('10 times');

    const before = (await consoleOk(t, owner, 'GET', `/agents/${agent.id}`)).agent.balance;
    const pay = () =>
      t.app.inject({
        method: 'POST',
        url: `/console/api/agents/${agent.id}/api/tasks/${taskId}/bonus`,
        headers: { cookie: owner.cookie, 'x-csrf-token': owner.csrfToken, 'idempotency-key': 'dialog-1' },
        payload: { amount: '1.5', reason: 'Every dish legible' },
      });
    const answers = await Promise.all([pay(), pay()]);
    const statuses = answers.map((a) => a.statusCode);
    expect(statuses, answers.map((a) => a.body).join('\n')).toContain(201);
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    // A later retry of the same dialog answers with the same bonus.
    const retry = await pay();
    expect(retry.statusCode, retry.body).toBe(201);
    expect(retry.json().bonus.id).toBe(answers.find((a) => a.statusCode === 201)!.json().bonus.id);

    const after = await consoleOk(t, owner, 'GET', `/agents/${agent.id}/tasks/${taskId}/bonuses`);
    expect(after.bonuses).toEqual([
      expect.objectContaining({ amount: '1.5', fee: '0.45', reason: 'Every dish legible' }),
    ]);
    expect(after.left).toBe(4);
    expect(after.quote).toBeNull();
    expect(toUnits(before, 'TON') - toUnits(after.balance, 'TON')).toBe(toUnits('1.95', 'TON'));
    const task = await consoleOk(t, owner, 'GET', `/agents/${agent.id}/api/tasks/${taskId}`);
    expect(task.task.settlement.bonuses).toEqual({ count: 1, amount: '1.5', fee: '0.45' });
    await expectAgentBooks(t, agent);
  }, 60_000);
});
