import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOLSETS } from '../../src/mcp/toolsets.js';
import { call } from '../helpers/agentApi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createAgent, createTask, createWorker, type TestAgent } from '../helpers/fixtures.js';
import { listen, REQUIRED_TOOLS, runWholeTask, toolError } from '../helpers/mcp.js';
import { serviceOf } from '../helpers/service.js';

const LAUNCHER = path.resolve('bin/handoff-mcp.mjs');

let t: TestApp;
let baseUrl: string;
let agent: TestAgent;

/** The stdio server as an MCP client config launches it: a child process, from another directory. */
function stdioTransport(env: Record<string, string>) {
  return new StdioClientTransport({
    command: process.execPath,
    args: [LAUNCHER],
    cwd: path.parse(process.cwd()).root,
    env: { ...getDefaultEnvironment(), ...env },
    stderr: 'pipe',
  });
}

async function connectStdio(apiKey: string): Promise<Client> {
  const client = new Client({ name: 'handoff-test-stdio', version: '1.0.0' });
  await client.connect(stdioTransport({ HANDOFF_URL: baseUrl, HANDOFF_API_KEY: apiKey }));
  return client;
}

beforeAll(async () => {
  t = await createTestApp();
  baseUrl = await listen(t);
  agent = await createAgent(t, { deposit: '100' });
});
afterAll(async () => {
  await t?.close();
});

describe('MCP over stdio (a separate process proxying to the running service)', () => {
  it('lists the tools and runs a whole task', async () => {
    const client = await connectStdio(agent.apiKey);
    try {
      expect(client.getServerVersion()?.name).toBe('handoff');
      const { tools } = await client.listTools();
      for (const name of REQUIRED_TOOLS) expect(tools.map((x) => x.name)).toContain(name);
      expect(tools.find((x) => x.name === 'complete_task')?.annotations?.destructiveHint).toBe(true);
      await runWholeTask(serviceOf(t, baseUrl), client, agent, await createWorker(t));

      const theirs = await createTask(t, await createAgent(t, { deposit: '20' }));
      const rest = await call(t, agent, 'GET', `/tasks/${theirs.id}`);
      expect(rest.statusCode).toBe(403);
      expect(await toolError(client, 'get_task', { taskId: theirs.id })).toEqual({
        status: 403,
        ...rest.json(),
      });
    } finally {
      await client.close();
    }
  });

  it('a wrong key is answered with an MCP error that says why, and on stderr', async () => {
    const transport = stdioTransport({ HANDOFF_URL: baseUrl, HANDOFF_API_KEY: `hr_${'x'.repeat(40)}` });
    let stderr = '';
    const client = new Client({ name: 'handoff-test-stdio', version: '1.0.0' });
    const connecting = client.connect(transport);
    transport.stderr?.on('data', (chunk) => {
      stderr += String(chunk);
    });
    const refused = await connecting.then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(McpError);
    expect((refused as McpError).message).toMatch(
      /Handoff MCP server could not start: Cannot connect to Handoff at .*HANDOFF_API_KEY was refused \(Unauthorized: .*\); check the key/,
    );
    expect(stderr).toContain('HANDOFF_API_KEY was refused');
  });

  it('a bad setting is answered the same way: HANDOFF_MCP_TOOLSETS names the toolsets there are', async () => {
    const client = new Client({ name: 'handoff-test-stdio', version: '1.0.0' });
    const transport = stdioTransport({
      HANDOFF_URL: baseUrl,
      HANDOFF_API_KEY: agent.apiKey,
      HANDOFF_MCP_TOOLSETS: 'tasks,everything',
    });
    await expect(client.connect(transport)).rejects.toThrow(
      /HANDOFF_MCP_TOOLSETS: Unknown toolset "everything"; choose from tasks, workers, /,
    );
  });

  it('HANDOFF_MCP_TOOLSETS=chat serves the chat tools only', async () => {
    const client = new Client({ name: 'handoff-test-stdio', version: '1.0.0' });
    await client.connect(
      stdioTransport({ HANDOFF_URL: baseUrl, HANDOFF_API_KEY: agent.apiKey, HANDOFF_MCP_TOOLSETS: 'chat' }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((x) => x.name).sort()).toEqual([...TOOLSETS.chat.tools].sort());
    } finally {
      await client.close();
    }
  });
});
