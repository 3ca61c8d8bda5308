import { createdTask, Handoff, unwrap } from '@handoff/sdk';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listTaskEvents } from '../../src/db/repositories/events.js';
import type { Json } from '../helpers/agentApi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createAgent, createWorker } from '../helpers/fixtures.js';
import { connectHttp, listen, tool, toolError } from '../helpers/mcp.js';
import { call } from '../helpers/workerApi.js';

/**
 * Issue 29: every object of an agent's task life that carries an amount names its currency, TON
 * as well as USDT, through real HTTP (the response serializers drop a field their schema lacks),
 * MCP and the SDK, on the sandbox (which has its own USDT).
 */
let t: TestApp;
let client: Client;
let baseUrl: string;

beforeAll(async () => {
  t = await createTestApp();
  baseUrl = await listen(t);
});
afterAll(async () => {
  await client?.close();
  await t?.close();
});

describe('currency on every object with an amount', () => {
  it('names TON and USDT on tasks, lists, offers, ledger rows, completion, refund, 402, events', async () => {
    const agent = await createAgent(t, { name: 'Both', deposit: '10' });
    const faucet = await call(t, 'POST', `/admin/agents/${agent.id}/deposits`, t.admin, {
      amount: '10',
      currency: 'USDT',
    });
    expect(faucet.statusCode, faucet.body).toBe(201);
    const worker = await createWorker(t);
    client = await connectHttp(baseUrl, agent.apiKey);
    const sdk = new Handoff({ baseUrl, apiKey: agent.apiKey });
    const http = (method: string, url: string, body?: unknown) =>
      fetch(new URL(url, baseUrl), {
        method,
        headers: { authorization: `Bearer ${agent.apiKey}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });

    for (const currency of ['TON', 'USDT'] as const) {
      // Created through the SDK, the task names its currency; so does a direct offer (MCP).
      const created = createdTask(
        unwrap(
          await sdk.api.POST('/tasks', {
            body: { title: `Photo ${currency}`, description: 'Of the bridge', reward: '1', currency },
          }),
        ),
      );
      expect(created.task).toMatchObject({ currency, reward: '1', totalAmount: '1.3' });
      const offer = await tool(client, 'create_task', {
        title: 'Offer',
        description: 'To one worker',
        reward: '1',
        currency,
        assignToUserId: worker.id,
      });
      expect(offer.task).toMatchObject({ currency, status: 'OFFERED' });
      const taskId = created.task.id;

      // Lists and single reads, over HTTP and MCP.
      const list = (await (await http('GET', '/agents/tasks?limit=100')).json()) as Json;
      for (const x of list.tasks) expect(x.currency).toMatch(/^(TON|USDT)$/);
      expect(list.tasks.find((x: { id: string }) => x.id === taskId).currency).toBe(currency);
      expect(((await (await http('GET', `/tasks/${taskId}`)).json()) as Json).task.currency).toBe(currency);
      expect((await tool(client, 'get_task', { taskId })).task.currency).toBe(currency);
      const listed = await tool(client, 'list_tasks', { limit: 100 });
      expect(listed.tasks.find((x: { id: string }) => x.id === taskId).currency).toBe(currency);

      // Assigned, completed through MCP: payment and fee name it.
      const applied = await call(t, 'POST', `/worker/tasks/${taskId}/applications`, worker.headers, {
        message: 'Me',
      });
      expect(applied.statusCode, applied.body).toBe(201);
      await tool(client, 'accept_application', { applicationId: applied.json().application.id });
      const done = await tool(client, 'complete_task', { taskId });
      expect(done.payment).toMatchObject({ amount: '1', currency });
      expect(done.fee).toMatchObject({ amount: '0.3', currency });

      // The offer refunded over HTTP, cancelled tasks through MCP and the SDK alike.
      const refund = (await (await http('POST', `/tasks/${offer.task.id}/refund`, {})).json()) as Json;
      expect(refund.refund).toEqual({ amount: '1.3', destination: 'agent_balance', currency });
      const third = await tool(client, 'create_task', {
        title: 'C',
        description: 'D',
        reward: '1',
        currency,
      });
      expect((await tool(client, 'cancel_task', { taskId: third.task.id })).refund.currency).toBe(currency);

      // The 402 names it (HTTP and MCP).
      const dear = { title: 'Dear', description: 'Too dear', reward: '100', currency };
      const refused = await http('POST', '/tasks', dear);
      expect(refused.status).toBe(402);
      expect(await refused.json()).toMatchObject({ error: 'Insufficient balance', currency });
      expect(await toolError(client, 'create_task', dear)).toMatchObject({ status: 402, currency });

      // Events carry the task's currency.
      for (const e of await listTaskEvents(t.ctx.db, taskId)) {
        const data = JSON.parse(e.data_json);
        const money = data.deposit ?? data.payment ?? data.refund;
        if (money) expect(money.currency, e.type).toBe(currency);
      }

      const info = (await (await http('GET', `/agents/me/deposit?currency=${currency}`)).json()) as Json;
      expect(info.currency).toBe(currency);
    }

    // Every ledger row, through the SDK and MCP, names its currency; both occur.
    const rows = unwrap(await sdk.api.GET('/transactions', { params: { query: { limit: 100 } } }));
    expect(new Set(rows.transactions.map((r) => r.currency))).toEqual(new Set(['TON', 'USDT']));
    const viaTool = await tool(client, 'list_transactions', { limit: 100 });
    for (const r of viaTool.transactions) expect(r.currency).toMatch(/^(TON|USDT)$/);

    // The worker's earnings keep the currencies apart (the sandbox pays both at once).
    const earned = (await call(t, 'GET', '/worker/earnings', worker.headers)).json();
    expect(earned).toMatchObject({ paid: '1', onTheWay: '0', currency: 'TON' });
    expect(earned.byCurrency.USDT).toMatchObject({ paid: '1', onTheWay: '0' });

    // The OpenAPI document (and so the SDK types) declares it required, TON or USDT.
    const doc = (await (await fetch(new URL('/openapi.json', baseUrl))).json()) as Json;
    for (const name of ['Task', 'Transaction', 'InsufficientBalance']) {
      const schema = doc.components.schemas[name];
      expect(schema.required, name).toContain('currency');
      expect(schema.properties.currency.enum, name).toEqual(['TON', 'USDT']);
    }
  });
});
