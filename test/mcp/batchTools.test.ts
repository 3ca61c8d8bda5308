import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, ok } from '../helpers/agentApi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createAgent, createWorker, type TestAgent } from '../helpers/fixtures.js';
import { connectHttp, listen, tool, toolError } from '../helpers/mcp.js';
import { agentMe } from '../helpers/moneyChecks.js';
import { submittedTask } from '../helpers/submissionApi.js';

/** Issue 40 through MCP: create_batch, get_batch, cancel_batch and pay_bonus answer as their REST routes. */
let t: TestApp;
let agent: TestAgent;
let client: Client;

beforeAll(async () => {
  t = await createTestApp();
  const baseUrl = await listen(t);
  agent = await createAgent(t, { deposit: '200' });
  client = await connectHttp(baseUrl, agent.apiKey);
});
afterAll(async () => {
  await client?.close();
  await t?.close();
});

const TEMPLATE = { title: 'Photo of a café menu', description: 'The whole menu, readable', reward: '1' };

describe('MCP batch and bonus tools', () => {
  it('lists them with the routes’ schemas; pay_bonus requires its idempotency key', async () => {
    const byName = new Map((await client.listTools()).tools.map((x) => [x.name, x]));
    expect(byName.get('create_batch')!.annotations).toMatchObject({
      readOnlyHint: false,
      idempotentHint: false,
    });
    expect(byName.get('get_batch')!.annotations?.readOnlyHint).toBe(true);
    expect(byName.get('cancel_batch')!.annotations).toMatchObject({
      destructiveHint: true,
      idempotentHint: true,
    });
    const pay = byName.get('pay_bonus')!;
    expect(pay.inputSchema.required).toEqual(['taskId', 'amount', 'reason', 'idempotencyKey']);
    expect(pay.annotations).toMatchObject({ destructiveHint: true, openWorldHint: true });
  });

  it('create_batch, get_batch and cancel_batch answer what REST answers', async () => {
    const created = await tool(client, 'create_batch', { template: TEMPLATE, count: 3, maxPerWorker: 1 });
    expect(created.batch).toMatchObject({ count: 3, totalAmount: '3.9', maxPerWorker: 1 });
    expect(created.tasks).toHaveLength(3);
    expect(created.tasks[0]).toMatchObject({ status: 'FUNDED', batchId: created.batch.id });
    const batchId = created.batch.id;
    const rest = await ok(t, agent, 'GET', `/batches/${batchId}`);
    expect(await tool(client, 'get_batch', { batchId })).toEqual(rest);
    expect(rest.batch).toEqual(created.batch);

    const cancelled = await tool(client, 'cancel_batch', { batchId, reason: 'Enough photos' });
    expect(cancelled).toMatchObject({ refundedAmount: '3.9', notRefunded: [] });
    expect(cancelled.refunded).toHaveLength(3);
    // A repeat refunds nothing more, through MCP and REST alike.
    const again = await tool(client, 'cancel_batch', { batchId });
    expect(again).toEqual(await ok(t, agent, 'POST', `/batches/${batchId}/cancel`));
    expect(again).toMatchObject({ refunded: [], refundedAmount: '0' });
  });

  it('errors are REST’s: a batch of 501 and an unknown batch', async () => {
    const body = { template: TEMPLATE, count: 501 };
    const rest = await call(t, agent, 'POST', '/batches', body);
    expect(rest.statusCode).toBe(400);
    expect(await toolError(client, 'create_batch', body)).toEqual({ status: 400, ...rest.json() });
    const missing = await call(t, agent, 'GET', '/batches/bat_nope');
    expect(missing.statusCode).toBe(404);
    expect(await toolError(client, 'get_batch', { batchId: 'bat_nope' })).toEqual({
      status: 404,
      ...missing.json(),
    });
  });

  it('pay_bonus pays once per key, as REST does, and refuses a call without a key with REST’s reason', async () => {
    const worker = await createWorker(t);
    const { taskId } = await submittedTask(t, agent, worker, { reward: '2' });
    await ok(t, agent, 'POST', `/tasks/${taskId}/complete`);
    const args = { taskId, amount: '1', reason: 'Sharp photos' };

    const noKey = await call(t, agent, 'POST', `/tasks/${taskId}/bonus`, args);
    expect(noKey.statusCode).toBe(400);
    const refused = await toolError(client, 'pay_bonus', args);
    expect(refused).toMatchObject({ status: 400, error: noKey.json().error });
    expect(refused.details).toEqual([{ path: 'idempotencyKey', message: noKey.json().details[0].message }]);

    const balance = async () =>
      ((await agentMe(t, agent)).balances as { TON: { balance: string } }).TON.balance;
    const before = await balance();
    const paid = await tool(client, 'pay_bonus', { ...args, idempotencyKey: 'bonus-mcp-1' });
    expect(paid).toMatchObject({
      bonus: { amount: '1', fee: '0.3', currency: 'TON', reason: 'Sharp photos' },
      task: { id: taskId, bonusCount: 1 },
      payment: { toAddress: expect.any(String) },
    });
    // The retry answers the same bonus and pays nothing more.
    const retried = await tool(client, 'pay_bonus', { ...args, idempotencyKey: 'bonus-mcp-1' });
    expect(retried.bonus).toEqual(paid.bonus);
    expect(retried.task.bonusCount).toBe(1);
    expect(Number(before) - Number(await balance())).toBeCloseTo(1.3, 9);

    // REST with its own key pays a second bonus, in the same shape.
    const byRest = await ok(
      t,
      { headers: { ...agent.headers, 'idempotency-key': 'bonus-rest-1' } },
      'POST',
      `/tasks/${taskId}/bonus`,
      args,
      201,
    );
    expect(Object.keys(byRest).sort()).toEqual(Object.keys(paid).sort());
    expect({ ...byRest.bonus, id: '', createdAt: '' }).toEqual({ ...paid.bonus, id: '', createdAt: '' });
    expect(byRest.task.bonusCount).toBe(2);

    // A bonus above 10 times the reward: the same refusal.
    const big = { ...args, amount: '21' };
    const restBig = await call(
      t,
      { headers: { ...agent.headers, 'idempotency-key': 'big-rest' } },
      'POST',
      `/tasks/${taskId}/bonus`,
      big,
    );
    expect(restBig.statusCode).toBe(400);
    expect(await toolError(client, 'pay_bonus', { ...big, idempotencyKey: 'big-mcp' })).toEqual({
      status: 400,
      ...restBig.json(),
    });
  });
});
