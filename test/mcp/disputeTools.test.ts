import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { resolve } from '../helpers/disputeApi.js';
import { createAgent, createWorker, type TestAgent } from '../helpers/fixtures.js';
import { connectHttp, listen, tool, toolError } from '../helpers/mcp.js';
import { submittedTask, uploadFile } from '../helpers/submissionApi.js';

let t: TestApp;
let agent: TestAgent;
let client: Client;

beforeAll(async () => {
  t = await createTestApp();
  const baseUrl = await listen(t);
  agent = await createAgent(t, { deposit: '100' });
  client = await connectHttp(baseUrl, agent.apiKey);
});
afterAll(async () => {
  await client?.close();
  await t?.close();
});

describe('MCP dispute tools', () => {
  it('lists open_dispute and add_dispute_statement with the routes’ schemas and an idempotency key', async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((x) => [x.name, x]));
    const open = byName.get('open_dispute')!;
    expect(open.inputSchema.required).toEqual(expect.arrayContaining(['taskId', 'reason']));
    expect(open.inputSchema.properties).toHaveProperty('idempotencyKey');
    expect(open.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    const add = byName.get('add_dispute_statement')!;
    expect(Object.keys(add.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['taskId', 'text', 'attachments', 'idempotencyKey']),
    );
    expect(add.annotations).toMatchObject({ idempotentHint: false });
  });

  it('opens a dispute, adds evidence, and get_task shows the resolution', async () => {
    const worker = await createWorker(t);
    const { taskId } = await submittedTask(t, agent, worker);
    const opened = await tool(client, 'open_dispute', {
      taskId,
      reason: 'Wrong place',
      idempotencyKey: 'open-1',
    });
    expect(opened.dispute).toMatchObject({ status: 'OPEN', openedBy: 'AGENT', reason: 'Wrong place' });
    const again = await tool(client, 'open_dispute', {
      taskId,
      reason: 'Wrong place',
      idempotencyKey: 'open-1',
    });
    expect(again.dispute.id).toBe(opened.dispute.id);
    expect(await toolError(client, 'open_dispute', { taskId, reason: 'Again' })).toMatchObject({
      status: 409,
    });
    const file = await uploadFile(t, agent, 'map.png', 'image/png');
    const added = await tool(client, 'add_dispute_statement', {
      taskId,
      text: 'See the map',
      attachments: [file],
    });
    expect(added.statement).toMatchObject({
      by: 'AGENT',
      text: 'See the map',
      attachments: [{ fileUrl: file }],
    });
    expect(await toolError(client, 'add_dispute_statement', { taskId, text: '' })).toMatchObject({
      status: 400,
    });
    expect((await resolve(t, opened.dispute.id, '1.5', 'Partly done')).statusCode).toBe(200);
    const { task } = await tool(client, 'get_task', { taskId });
    expect(task.dispute).toMatchObject({
      status: 'RESOLVED',
      statements: [{ by: 'AGENT', text: 'See the map' }],
      resolution: { workerAmount: '1.5', platformFee: '0.45', agentAmount: '11.05', note: 'Partly done' },
    });
    expect(task).toMatchObject({ status: 'COMPLETED', paymentStatus: 'RELEASED' });
  });

  it('refuses another agent’s task as REST does', async () => {
    const other = await createAgent(t, { deposit: '50' });
    const worker = await createWorker(t);
    const { taskId } = await submittedTask(t, other, worker);
    expect(await toolError(client, 'open_dispute', { taskId, reason: 'Mine?' })).toMatchObject({
      status: 403,
    });
    expect(await toolError(client, 'add_dispute_statement', { taskId, text: 'x' })).toMatchObject({
      status: 403,
    });
  });
});
