import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createAgent, type TestAgent } from '../helpers/fixtures.js';
import { connectHttp, listen, tool, toolError } from '../helpers/mcp.js';
import { call } from '../helpers/workerApi.js';

let t: TestApp;
let agent: TestAgent;
let client: Client;

beforeAll(async () => {
  // The sandbox takes USDT: its chain gateway deploys "USDT (sandbox)".
  t = await createTestApp();
  const baseUrl = await listen(t);
  agent = await createAgent(t, { name: 'Tool user', deposit: '10' });
  const credited = await call(t, 'POST', `/admin/agents/${agent.id}/deposits`, t.admin, {
    amount: '2',
    currency: 'USDT',
  });
  expect(credited.statusCode, credited.body).toBe(201);
  client = await connectHttp(baseUrl, agent.apiKey);
});
afterAll(async () => {
  await client?.close();
  await t?.close();
});

describe('MCP tools in USDT (issue 29)', () => {
  it('create_task takes currency and its result names it; get_agent_profile has balances per currency', async () => {
    const { tools } = await client.listTools();
    const create = tools.find((x) => x.name === 'create_task')!;
    expect((create.inputSchema.properties as Record<string, { enum?: string[] }>).currency?.enum).toEqual([
      'TON',
      'USDT',
    ]);
    const created = await tool(client, 'create_task', {
      title: 'Take a photo',
      description: 'Of the town hall',
      reward: '1.5',
      currency: 'USDT',
    });
    expect(created.task).toMatchObject({
      currency: 'USDT',
      reward: '1.5',
      platformFee: '0.45',
      totalAmount: '1.95',
    });
    const profile = await tool(client, 'get_agent_profile');
    expect(profile.agent.balances).toEqual({
      TON: { balance: '10', lockedByTasks: '0', lowBalanceThreshold: null },
      USDT: { balance: '0.05', lockedByTasks: '1.95', lowBalanceThreshold: null },
    });
    const refused = await toolError(client, 'create_task', {
      title: 'Another',
      description: 'Too dear',
      reward: '1',
      currency: 'USDT',
    });
    expect(refused).toMatchObject({ status: 402, currency: 'USDT', currentBalance: '0.05' });
  });

  it('get_deposit_info answers for the currency asked for', async () => {
    const master = t.services.chain.jetton!.masterAddress;
    const usdt = await tool(client, 'get_deposit_info', { currency: 'USDT' });
    expect(usdt.deposit).toMatchObject({
      currency: 'USDT',
      jettonMaster: master,
      minimum: '0.01',
    });
    expect(usdt.deposit.link).toContain(`?jetton=${master}&text=${agent.id}`);
    expect(usdt).toMatchObject({ balance: '0.05', lockedByTasks: '1.95' });
    const ton = await tool(client, 'get_deposit_info');
    expect(ton).toMatchObject({ deposit: { currency: 'TON' }, balance: '10', lockedByTasks: '0' });
  });
});
