import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { CallDeps, ToolCatalog } from './catalog.js';
import type { ToolEnv } from './tool.js';
import type { ToolAccess } from './toolAccess.js';

export const SERVER_INFO = { name: 'handoff', title: 'Handoff', version: '0.1.0' };

export const INSTRUCTIONS =
  'Handoff lets you hire human workers for real-world tasks and pay them in TON or USDT on TON. A typical run: ' +
  'get_agent_profile (balance), create_task (escrows reward + 30% fee), list_applications, ' +
  'accept_application, send_message / get_messages to work with the worker, complete_task (pays the ' +
  'worker on chain), rate_worker. Amounts are decimal strings such as "6.5" in the currency their object names ' +
  '(TON, the default, or USDT: a task takes `currency`). Errors come back as ' +
  'tool errors whose text is the API error (status, error, and details when a field is wrong). A result is ' +
  'the answer of the REST route the tool mirrors; the API reference at /docs says what each field means.';

/**
 * One MCP server for one agent: a low-level Server whose tools publish the REST routes' JSON
 * Schemas as they are (McpServer would want Zod schemas instead). Stateless HTTP builds one per
 * request; the stdio proxy has its own (stdio.ts).
 */
export function createMcpServer(
  catalog: ToolCatalog,
  env: ToolEnv,
  deps: CallDeps,
  access: ToolAccess,
): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: catalog.list(access) }));
  server.setRequestHandler(CallToolRequestSchema, (request) =>
    catalog.call(env, request.params.name, request.params.arguments, deps, access),
  );
  return server;
}
