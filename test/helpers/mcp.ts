import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import type { Json } from './agentApi.js';
import type { TestApp } from './app.js';
import type { TestAgent, TestWorker } from './fixtures.js';
import { expectAudited, expectStatus, type Service, send } from './service.js';

/** The tools the issue asks for by name; the server may have more. */
export const REQUIRED_TOOLS = [
  'get_agent_profile',
  'search_workers',
  'get_worker',
  'create_task',
  'get_task',
  'list_tasks',
  'update_task_status',
  'complete_task',
  'cancel_task',
  'refund_task',
  'list_applications',
  'accept_application',
  'list_chats',
  'get_messages',
  'send_message',
  'upload_file',
  'configure_webhook',
  'test_webhook',
  'get_platform_stats',
  'list_transactions',
  'get_deposit_info',
  'rate_worker',
];

/** Starts the test app on an ephemeral loopback port; returns its base URL. */
export async function listen(t: TestApp): Promise<string> {
  return t.app.listen({ port: 0, host: '127.0.0.1' });
}

/**
 * An MCP client of the official SDK connected over Streamable HTTP with `apiKey`; `headers` go
 * with every request and `onResponse` sees every HTTP response.
 */
export async function connectHttp(
  baseUrl: string,
  apiKey: string,
  options: {
    headers?: Record<string, string>;
    onResponse?: (response: Response, method: string) => void;
  } = {},
): Promise<Client> {
  const client = new Client({ name: 'handoff-test', version: '1.0.0' });
  const { onResponse } = options;
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), {
    requestInit: { headers: { ...options.headers, authorization: `Bearer ${apiKey}` } },
    ...(onResponse
      ? {
          fetch: async (url: string | URL, init?: RequestInit) => {
            const response = await fetch(url, init);
            onResponse(response, init?.method ?? 'GET');
            return response;
          },
        }
      : {}),
  });
  await client.connect(transport);
  return client;
}

/** A tool call that must succeed; returns its structured content (validated by the client). */
export async function tool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Json> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
  expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(result.structuredContent);
  return result.structuredContent;
}

/** A tool call that must fail; returns the API error body from its text. */
export async function toolError(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<Json> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError, `${name} should fail: ${JSON.stringify(result.content)}`).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  return JSON.parse((result.content[0] as { text: string }).text);
}

/**
 * A whole task through the tools of `service` (in process or the built server): create, a worker
 * applies through the worker API, accept, chat both ways, complete (a real sandbox payout to the
 * worker's wallet), rate.
 */
export async function runWholeTask(service: Service, client: Client, agent: TestAgent, worker: TestWorker) {
  const before = (await tool(client, 'get_agent_profile')).agent;
  const created = await tool(client, 'create_task', {
    title: 'Photo of the town hall',
    description: 'Today, from the square',
    reward: '6.5',
  });
  expect(created.task).toMatchObject({ status: 'FUNDED', paymentStatus: 'DEPOSITED', totalAmount: '8.45' });
  const taskId = created.task.id as string;
  expect(Number((await tool(client, 'get_agent_profile')).agent.balance)).toBe(Number(before.balance) - 8.45);

  const applicationId = (
    await expectStatus(
      service,
      worker,
      'POST',
      `/worker/tasks/${taskId}/applications`,
      { message: 'On my way' },
      201,
    )
  ).application.id as string;
  const { applications } = await tool(client, 'list_applications', { taskId });
  expect(applications.map((a: Json) => a.id)).toEqual([applicationId]);
  const accepted = await tool(client, 'accept_application', { applicationId });
  expect(accepted.application).toMatchObject({
    id: applicationId,
    status: 'ACCEPTED',
    user: { id: worker.id },
  });

  await tool(client, 'send_message', { taskId, content: 'Please include the clock tower' });
  await expectStatus(
    service,
    worker,
    'POST',
    `/worker/chat/${taskId}/messages`,
    { content: 'Done, photo attached soon' },
    201,
  );
  const { messages } = await tool(client, 'get_messages', { taskId });
  expect(messages.map((m: Json) => [m.senderType, m.content])).toEqual([
    ['USER', 'Done, photo attached soon'],
    ['AGENT', 'Please include the clock tower'],
  ]);
  const { chats } = await tool(client, 'list_chats');
  expect(chats.map((c: Json) => c.id)).toEqual([accepted.chat.id]);
  expect((await tool(client, 'update_task_status', { taskId, status: 'REVIEW' })).task.status).toBe('REVIEW');

  const done = await tool(client, 'complete_task', { taskId });
  expect(done).toMatchObject({
    success: true,
    task: { id: taskId, status: 'COMPLETED', paymentStatus: 'RELEASED' },
    payment: { amount: '6.5', toAddress: worker.wallet, status: 'confirmed', recipient: { id: worker.id } },
    fee: { amount: '1.95', success: true },
  });
  expect(done.payment.txHash).toMatch(/^[0-9a-f]{64}$/);
  if (service.chainBalance)
    expect(await service.chainBalance(worker.wallet!)).toBeGreaterThan(6_000_000_000n);
  // Completing again pays nothing more: the REST answer, as a tool error.
  const again = await toolError(client, 'complete_task', { taskId });
  const rest = await send(service, agent, 'POST', `/tasks/${taskId}/complete`);
  expect(again).toEqual({ status: rest.status, ...rest.json });
  expect(again.status).toBe(409);

  const { rating } = await tool(client, 'rate_worker', { taskId, score: 5, comment: 'Great photo' });
  expect(rating).toMatchObject({ taskId, raterType: 'AGENT', score: 5, comment: 'Great photo' });
  const { transactions } = await tool(client, 'list_transactions', { type: 'PAYOUT' });
  expect(transactions.map((x: Json) => [x.amount, x.task.id])).toEqual([['6.5', taskId]]);
  await expectAudited(service);
  return { taskId, applicationId, chatId: accepted.chat.id as string };
}
