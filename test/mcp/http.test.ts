import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateTaskBody } from '../../src/http/schemas/task.js';
import { call, type Json, ok } from '../helpers/agentApi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createAgent, createTask, createWorker, type TestAgent } from '../helpers/fixtures.js';
import { connectHttp, listen, REQUIRED_TOOLS, runWholeTask, tool, toolError } from '../helpers/mcp.js';
import { serviceOf } from '../helpers/service.js';

let t: TestApp;
let baseUrl: string;
let agent: TestAgent;
let client: Client;

beforeAll(async () => {
  t = await createTestApp();
  baseUrl = await listen(t);
  agent = await createAgent(t, { deposit: '100' });
  client = await connectHttp(baseUrl, agent.apiKey);
});
afterAll(async () => {
  await client?.close();
  await t?.close();
});

describe('MCP over Streamable HTTP', () => {
  it('lists every agent tool with input and output schemas and truthful annotations', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((x) => x.name);
    for (const name of REQUIRED_TOOLS) expect(names).toContain(name);
    for (const x of tools) {
      expect(x.inputSchema.type, x.name).toBe('object');
      expect(x.outputSchema?.type, x.name).toBe('object');
      expect(JSON.stringify([x.inputSchema, x.outputSchema]), x.name).not.toContain('$ref');
      expect(x.description?.length, x.name).toBeGreaterThan(20);
      const readOnly = x.name.startsWith('get_') || x.name.startsWith('list_') || x.name === 'search_workers';
      expect(x.annotations?.readOnlyHint, x.name).toBe(readOnly);
      if (!readOnly) expect(typeof x.annotations?.destructiveHint, x.name).toBe('boolean');
    }
    const byName = new Map(tools.map((x) => [x.name, x]));
    // The REST route's body schema, field for field.
    const { idempotencyKey, ...create } = byName.get('create_task')!.inputSchema.properties as Record<
      string,
      unknown
    >;
    expect(create).toEqual(asListed(JSON.parse(JSON.stringify(CreateTaskBody.properties)), true));
    // Tools that create something or move money take the REST routes' Idempotency-Key.
    expect(idempotencyKey).toMatchObject({ type: 'string' });
    expect(byName.get('get_task')!.inputSchema.properties).not.toHaveProperty('idempotencyKey');
    expect(byName.get('complete_task')!.annotations).toMatchObject({
      destructiveHint: true,
      openWorldHint: true,
    });
    expect(byName.get('create_task')!.annotations).toMatchObject({
      destructiveHint: false,
      idempotentHint: false,
    });
    expect(byName.get('get_task')!.inputSchema.required).toEqual(['taskId']);
  });

  it('runs a whole task through the tools', async () => {
    const worker = await createWorker(t);
    await runWholeTask(serviceOf(t, baseUrl), client, agent, worker);
  });

  it('runs a keyed tool once per idempotency key: a repeat returns the first result', async () => {
    const payer = await createAgent(t, { deposit: '10' });
    const keyed = await connectHttp(baseUrl, payer.apiKey);
    try {
      const args = { title: 'Once', description: 'Only once', reward: '5', idempotencyKey: 'mcp-key-1' };
      const first = await tool(keyed, 'create_task', args);
      const again = await tool(keyed, 'create_task', args);
      expect(again.task.id).toBe(first.task.id);
      const profile = await tool(keyed, 'get_agent_profile');
      expect(profile.agent.balance).toBe('3.5');
      const other = await toolError(keyed, 'create_task', { ...args, reward: '1' });
      expect(other.status).toBe(422);
    } finally {
      await keyed.close();
    }
  });

  it('answers bad input with the API validation error', async () => {
    const error = await toolError(client, 'create_task', { title: 'No reward', description: 'x' });
    expect(error).toMatchObject({ status: 400, error: 'Validation failed', details: [{ path: 'reward' }] });
    const tooMuch = await toolError(client, 'create_task', {
      title: 'Big',
      description: 'x',
      reward: '1000',
    });
    expect(tooMuch).toMatchObject({ status: 402, error: 'Insufficient balance' });
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(
      /^MCP error -32602: Unknown tool no_such_tool; list the tools/,
    );
  });

  it('refuses another agent’s task as REST does', async () => {
    const other = await createAgent(t, { deposit: '50' });
    const theirs = await createTask(t, other);
    for (const [name, args, method, url] of [
      ['get_task', { taskId: theirs.id }, 'GET', `/tasks/${theirs.id}`],
      ['complete_task', { taskId: theirs.id }, 'POST', `/tasks/${theirs.id}/complete`],
      ['cancel_task', { taskId: theirs.id }, 'DELETE', `/tasks/${theirs.id}`],
      ['list_applications', { taskId: theirs.id }, 'GET', `/tasks/${theirs.id}/applications`],
      ['get_messages', { taskId: theirs.id }, 'GET', `/chat/${theirs.id}/messages`],
    ] as const) {
      const rest = await call(t, agent, method, url);
      expect(rest.statusCode, `${url}: ${rest.body}`).toBeGreaterThanOrEqual(403);
      expect(await toolError(client, name, args)).toEqual({ status: rest.statusCode, ...rest.json() });
    }
    expect((await ok(t, other, 'GET', `/tasks/${theirs.id}`)).task.status).toBe('FUNDED');
  });

  it('refuses a wrong or missing key', async () => {
    await expect(connectHttp(baseUrl, `hr_${'x'.repeat(40)}`)).rejects.toMatchObject({
      code: 401,
      message: expect.stringMatching(/Bearer hr_/),
    });
    const res = await t.app.inject({
      method: 'POST',
      url: '/mcp',
      payload: { jsonrpc: '2.0', id: 1, method: 'ping' },
    });
    expect(res.statusCode).toBe(401);
    expect(res.json().message).toMatch(/Bearer hr_/);
  });

  it('refuses a foreign Host or Origin (DNS rebinding)', async () => {
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    const headers = { ...agent.headers, accept: 'application/json, text/event-stream' };
    const evilHost = await t.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...headers, host: 'evil.example' },
      payload: ping,
    });
    expect(evilHost.statusCode, evilHost.body).toBe(403);
    const evilOrigin = await t.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...headers, host: 'localhost:3000', origin: 'http://evil.example' },
      payload: ping,
    });
    expect(evilOrigin.statusCode, evilOrigin.body).toBe(403);
    const local = await fetch(new URL('/mcp', baseUrl), {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', origin: 'http://localhost:5173' },
      body: JSON.stringify(ping),
    });
    expect(local.status).toBe(200);
    expect(((await local.json()) as Json).result).toEqual({});
    const get = await t.app.inject({ method: 'GET', url: '/mcp', headers });
    expect(get.statusCode).toBe(405);
  });

  it('counts tool calls against the REST buckets', async () => {
    const limited = await createAgent(t, { deposit: '20' });
    const worker = await createWorker(t);
    const task = await createTask(t, limited, { reward: '1' });
    const applicationId = (
      await ok(t, worker, 'POST', `/worker/tasks/${task.id}/applications`, { message: 'Me' }, 201)
    ).application.id;
    await ok(t, limited, 'PATCH', `/applications/${applicationId}`, { status: 'ACCEPTED' });
    const mcp = await connectHttp(baseUrl, limited.apiKey);
    try {
      for (let i = 0; i < t.config.rateLimitChat; i++) {
        await ok(t, limited, 'POST', `/chat/${task.id}/messages`, { content: `m${i}` }, 201);
      }
      const refused = await toolError(mcp, 'send_message', { taskId: task.id, content: 'one too many' });
      expect(refused).toMatchObject({ status: 429, error: 'Rate limit exceeded' });
      expect(refused.retryAfter).toBeGreaterThan(0);
      // Other buckets are untouched.
      expect((await tool(mcp, 'get_task', { taskId: task.id })).task.id).toBe(task.id);
    } finally {
      await mcp.close();
    }
  });

  it('answers every request with X-Request-Id and the rate-limit headers of the bucket it counted in', async () => {
    const limited = await createAgent(t, { deposit: '20' });
    const worker = await createWorker(t);
    const task = await createTask(t, limited, { reward: '1' });
    const applicationId = (
      await ok(t, worker, 'POST', `/worker/tasks/${task.id}/applications`, { message: 'Me' }, 201)
    ).application.id;
    await ok(t, limited, 'PATCH', `/applications/${applicationId}`, { status: 'ACCEPTED' });
    const seen: { method: string; headers: Headers; status: number }[] = [];
    let first = 0;
    const mcp = await connectHttp(baseUrl, limited.apiKey, {
      headers: { 'x-request-id': 'trace-mcp.7' },
      onResponse: (response, method) =>
        seen.push({ method, headers: response.headers, status: response.status }),
    });
    try {
      await tool(mcp, 'get_task', { taskId: task.id });
      await tool(mcp, 'send_message', { taskId: task.id, content: 'Hello' });
      // initialize, notifications/initialized, the two calls, and the client's GET for a
      // server stream (405: stateless) at some point after initialized.
      expect(seen.map((x) => [x.method, x.status]).sort()).toEqual(
        [
          ['GET', 405],
          ['POST', 200],
          ['POST', 200],
          ['POST', 200],
          ['POST', 202],
        ].sort(),
      );
      for (const { headers } of seen) {
        expect(headers.get('x-request-id')).toBe('trace-mcp.7');
        expect(Number(headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
      }
      const posts = seen.filter((x) => x.method === 'POST');
      const limits = posts.map(({ headers: h }) => [
        h.get('x-ratelimit-limit'),
        Number(h.get('x-ratelimit-remaining')),
      ]);
      const standard = t.config.rateLimitStandard;
      const chat = t.config.rateLimitChat;
      // initialize, initialized, get_task count as standard requests (and so does the GET,
      // wherever it fell); send_message in the chat bucket, as its REST route.
      first = limits[0]![1] as number;
      expect(limits[0]![0]).toBe(String(standard));
      expect(first).toBeLessThan(standard);
      expect(limits[1]).toEqual([String(standard), first - 1]);
      expect(limits[2]![0]).toBe(String(standard));
      expect([first - 2, first - 3]).toContain(limits[2]![1]);
      expect(limits[3]).toEqual([String(chat), chat - 1]);
      const get = seen.find((x) => x.method === 'GET')!.headers;
      expect(get.get('x-ratelimit-limit')).toBe(String(standard));
    } finally {
      await mcp.close();
    }

    // A caller's id that is not well-formed is replaced; a refusal carries the headers too.
    const ping = (requestId: string) =>
      fetch(new URL('/mcp', baseUrl), {
        method: 'POST',
        headers: {
          ...limited.headers,
          'x-request-id': requestId,
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
    const replaced = await ping('not well formed');
    expect(replaced.status).toBe(200);
    expect(replaced.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{16}$/);
    const left = Number(replaced.headers.get('x-ratelimit-remaining'));
    expect(left).toBe(first - 4);
    for (let i = 0; i < left; i++) await ok(t, limited, 'GET', '/agents/me');
    const refused = await ping('trace-429');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-request-id')).toBe('trace-429');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('uploads a file inline and attaches it to a message', async () => {
    const worker = await createWorker(t);
    const task = (await tool(client, 'create_task', { title: 'Scan', description: 'A receipt', reward: '1' }))
      .task;
    const applicationId = (
      await ok(t, worker, 'POST', `/worker/tasks/${task.id}/applications`, { message: 'Me' }, 201)
    ).application.id;
    await tool(client, 'accept_application', { applicationId });
    const bytes = Buffer.from('%PDF-1.4 receipt');
    const file = await tool(client, 'upload_file', {
      filename: 'receipt.pdf',
      contentType: 'application/pdf',
      contentBase64: bytes.toString('base64'),
    });
    expect(file).toMatchObject({
      fileName: 'receipt.pdf',
      fileSize: bytes.length,
      mimeType: 'application/pdf',
    });
    const sent = await tool(client, 'send_message', {
      taskId: task.id,
      content: 'Here',
      fileUrl: file.fileUrl,
    });
    expect(sent.message).toMatchObject({ fileName: 'receipt.pdf', fileSize: bytes.length });
    const signed = await tool(client, 'upload_file', { filename: 'big.png', contentType: 'image/png' });
    expect(signed.uploadUrl).toContain('/uploads/');
    const bad = await toolError(client, 'upload_file', {
      filename: 'x.exe',
      contentType: 'application/x-msdownload',
    });
    expect(bad.status).toBe(415);
  });

  it('tells where to deposit and reports stats and webhooks', async () => {
    const info = await tool(client, 'get_deposit_info');
    expect(info.deposit).toEqual({
      address: t.ctx.chain.depositAddress,
      memo: agent.id,
      network: 'sandbox',
      link: `ton://transfer/${t.ctx.chain.depositAddress}?text=${agent.id}`,
      minimum: expect.any(String),
      currency: 'TON',
    });
    const stats = await tool(client, 'get_platform_stats');
    expect(stats.agent.id).toBe(agent.id);
    const noHook = await toolError(client, 'test_webhook');
    expect(noHook.status).toBe(409);
    const set = await tool(client, 'configure_webhook', { url: 'http://127.0.0.1:9/hook' });
    expect(set.webhook).toMatchObject({ url: 'http://127.0.0.1:9/hook', configured: true });
    const tested = await tool(client, 'test_webhook');
    expect(tested.success).toBe(false);
    expect((await tool(client, 'configure_webhook', { url: null })).webhook.configured).toBe(false);
    const found = await tool(client, 'search_workers', {});
    expect(found.total).toBeGreaterThan(0);
    const worker = await tool(client, 'get_worker', { workerId: found.workers[0].id });
    expect(worker.worker.id).toBe(found.workers[0].id);
  });
});

/**
 * A route's schema as tools/list shows it (src/mcp/compactTools.ts): without shape titles,
 * `additionalProperties: false` and empty `required`; `properties` maps keep their field names.
 */
function asListed(schema: unknown, fields = false): unknown {
  if (Array.isArray(schema)) return schema.map((item) => asListed(item));
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (!fields && key === 'title') continue;
    if (!fields && key === 'additionalProperties' && value === false) continue;
    if (!fields && key === 'required' && Array.isArray(value) && value.length === 0) continue;
    out[key] = asListed(value, !fields && key === 'properties');
  }
  return out;
}
