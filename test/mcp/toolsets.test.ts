import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_TOOLS } from '../../src/mcp/allTools.js';
import { TOOLSET_NAMES, TOOLSETS, toolsetOf } from '../../src/mcp/toolsets.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createAgent, createWorker, type TestAgent } from '../helpers/fixtures.js';
import { connectHttp, listen, runWholeTask, tool } from '../helpers/mcp.js';
import { serviceOf } from '../helpers/service.js';

/** What a model reads at the start of every conversation: tools/list for every tool. */
const LIST_BUDGET_BYTES = 40 * 1024;

let t: TestApp;
let baseUrl: string;
let agent: TestAgent;

beforeAll(async () => {
  t = await createTestApp();
  baseUrl = await listen(t);
  agent = await createAgent(t, { deposit: '100' });
});
afterAll(async () => {
  await t?.close();
});

async function connectWith(toolsets: string): Promise<Client> {
  const client = new Client({ name: 'handoff-test', version: '1.0.0' });
  const url = new URL(`/mcp?toolsets=${encodeURIComponent(toolsets)}`, baseUrl);
  await client.connect(
    new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { authorization: `Bearer ${agent.apiKey}` } },
    }),
  );
  return client;
}

describe('MCP tools fit a model’s context', () => {
  it('tools/list for every tool is at most 40 KB, and still runs a whole task with validated results', async () => {
    const client = await connectHttp(baseUrl, agent.apiKey);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((x) => x.name)).toEqual(ALL_TOOLS.map((d) => d.name));
      const bytes = Buffer.byteLength(JSON.stringify({ tools }));
      const heaviest = tools
        .map((x) => `${x.name} ${Buffer.byteLength(JSON.stringify(x))} B`)
        .sort((a, b) => Number(b.split(' ')[1]) - Number(a.split(' ')[1]))
        .slice(0, 5);
      expect(
        bytes,
        `tools/list is ${bytes} bytes, over ${LIST_BUDGET_BYTES}: trim descriptions and schemas (see src/mcp/compactTools.ts); heaviest: ${heaviest.join(', ')}`,
      ).toBeLessThanOrEqual(LIST_BUDGET_BYTES);
      // Every resource shape is described once: later tools name it instead.
      const text = JSON.stringify(tools);
      expect(text.match(/"title":"Task"/g)).toHaveLength(1);
      expect(text).toContain("Task: see create_task's output");
      // The client validates every structured result against these output schemas.
      await runWholeTask(serviceOf(t, baseUrl), client, agent, await createWorker(t));
    } finally {
      await client.close();
    }
  });

  it('?toolsets=tasks,chat lists those tools only; a tool of another toolset is refused with the reason', async () => {
    const client = await connectWith('tasks,chat');
    try {
      const { tools } = await client.listTools();
      expect(tools.map((x) => x.name).sort()).toEqual(
        [...TOOLSETS.tasks.tools, ...TOOLSETS.chat.tools].sort(),
      );
      await expect(client.callTool({ name: 'get_agent_profile', arguments: {} })).rejects.toThrow(
        /get_agent_profile is in the account toolset, which this connection did not choose/,
      );
      const created = await tool(client, 'list_tasks', {});
      expect(created).toMatchObject({ tasks: expect.any(Array) });
    } finally {
      await client.close();
    }
  });

  it('an unknown toolset is a 400 that names the choices; nothing is served', async () => {
    const res = await fetch(new URL('/mcp?toolsets=tasks,money', baseUrl), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${agent.apiKey}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: `Unknown toolset "money"; choose from ${TOOLSET_NAMES.join(', ')} (comma-separated), or leave it out for every tool`,
    });
    await expect(connectWith('nope')).rejects.toThrow(/Unknown toolset .*nope.*; choose from tasks, /);
  });

  it('every tool is in exactly one toolset, and every toolset names real tools', () => {
    const listed = TOOLSET_NAMES.flatMap((set) => TOOLSETS[set].tools as readonly string[]);
    expect([...listed].sort()).toEqual(ALL_TOOLS.map((d) => d.name).sort());
    for (const def of ALL_TOOLS) expect(toolsetOf(def.name), def.name).toBeDefined();
  });
});
