import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createAgent, createWorker, type TestAgent, type TestWorker } from '../helpers/fixtures.js';
import { connectHttp, listen, tool, toolError } from '../helpers/mcp.js';
import { submitOk, submittedTask } from '../helpers/submissionApi.js';
import { call } from '../helpers/workerApi.js';

let t: TestApp;
let agent: TestAgent;
let worker: TestWorker;
let client: Client;

beforeAll(async () => {
  t = await createTestApp();
  const baseUrl = await listen(t);
  agent = await createAgent(t, { name: 'Tool user', deposit: '100' });
  worker = await createWorker(t);
  client = await connectHttp(baseUrl, agent.apiKey);
});
afterAll(async () => {
  await client?.close();
  await t?.close();
});

describe('MCP review tools', () => {
  it('lists submissions, requests a revision and approves with complete_task, like REST', async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((x) => [x.name, x]));
    expect(byName.get('request_revision')!.inputSchema.required?.sort()).toEqual(['reason', 'taskId']);
    expect(byName.get('complete_task')!.description).toMatch(/^Approve the PENDING submission/);
    expect(byName.get('list_submissions')!.annotations?.readOnlyHint).toBe(true);

    const { taskId, submission } = await submittedTask(t, agent, worker);
    const listed = await tool(client, 'list_submissions', { taskId });
    expect(listed).toEqual((await call(t, 'GET', `/tasks/${taskId}/submissions`, agent.headers)).json());
    expect(listed.submissions[0].id).toBe(submission.id);

    const revised = await tool(client, 'request_revision', { taskId, reason: 'Closer, please' });
    expect(revised.submission).toMatchObject({ id: submission.id, status: 'REVISION_REQUESTED' });
    expect(revised.task).toMatchObject({ id: taskId, status: 'IN_PROGRESS', revisionCount: 1 });
    expect(await toolError(client, 'request_revision', { taskId, reason: 'Again' })).toMatchObject({
      status: 409,
    });

    await submitOk(t, worker, taskId);
    const done = await tool(client, 'complete_task', { taskId });
    expect(done.task.status).toBe('COMPLETED');
    const after = await tool(client, 'list_submissions', { taskId });
    expect(after.submissions.map((s: { status: string }) => s.status)).toEqual([
      'ACCEPTED',
      'REVISION_REQUESTED',
    ]);
  });

  it('refuses another agent’s task as REST does', async () => {
    const other = await createAgent(t, { name: 'Other', deposit: '100' });
    const { taskId } = await submittedTask(t, other, worker);
    expect(await toolError(client, 'list_submissions', { taskId })).toMatchObject({ status: 403 });
    expect(await toolError(client, 'request_revision', { taskId, reason: 'x' })).toMatchObject({
      status: 403,
    });
  });
});
