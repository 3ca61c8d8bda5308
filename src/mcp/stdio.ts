import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode } from './jsonRpcCodes.js';
import { protocolError } from './protocolError.js';
import { parseToolsets, ToolsetError } from './toolsets.js';

/**
 * The stdio MCP server an MCP client config launches (`node bin/handoff-mcp.mjs`): a separate
 * process that serves the tools of a running Handoff service by forwarding each request to its
 * /mcp endpoint with the agent's API key. Tools, schemas, annotations, results and errors are the
 * service's own, so the two transports cannot drift apart. Nothing but MCP goes to stdout.
 */

export interface StdioSettings {
  url: URL;
  apiKey: string;
}

/**
 * HANDOFF_URL (default http://localhost:3000), HANDOFF_API_KEY and HANDOFF_MCP_TOOLSETS (optional:
 * `tasks,chat` serves those toolsets only, as `/mcp?toolsets=` does); throws with what to fix.
 */
export function stdioSettings(env: NodeJS.ProcessEnv): StdioSettings {
  const apiKey = env.HANDOFF_API_KEY?.trim();
  if (!apiKey) throw new Error('Set HANDOFF_API_KEY to your agent API key (hr_...)');
  if (!apiKey.startsWith('hr_'))
    throw new Error('HANDOFF_API_KEY must be an agent API key starting with hr_');
  let url: URL;
  try {
    url = new URL('/mcp', env.HANDOFF_URL || 'http://localhost:3000');
  } catch {
    throw new Error(
      `HANDOFF_URL is not a URL: ${env.HANDOFF_URL}; set it to the service, e.g. http://localhost:3000`,
    );
  }
  try {
    const toolsets = parseToolsets(env.HANDOFF_MCP_TOOLSETS);
    if (toolsets !== 'all') url.searchParams.set('toolsets', [...toolsets].join(','));
  } catch (error) {
    if (error instanceof ToolsetError) throw new Error(`HANDOFF_MCP_TOOLSETS: ${error.message}`);
    throw error;
  }
  return { url, apiKey };
}

/** Connects to the service's /mcp and serves the same tools on stdin/stdout. */
export async function serveStdio(settings: StdioSettings): Promise<void> {
  const upstream = new Client({ name: 'handoff-mcp-stdio', version: '0.1.0' });
  try {
    await upstream.connect(
      new StreamableHTTPClientTransport(settings.url, {
        requestInit: { headers: { authorization: `Bearer ${settings.apiKey}` } },
      }),
    );
  } catch (error) {
    throw new Error(`Cannot connect to Handoff at ${settings.url}: ${refusedBecause(error)}`);
  }
  const info = upstream.getServerVersion() ?? { name: 'handoff', version: '0.1.0' };
  const instructions = upstream.getInstructions();
  const server = new Server(info, { capabilities: { tools: {} }, ...(instructions ? { instructions } : {}) });
  server.setRequestHandler(ListToolsRequestSchema, (request) => upstream.listTools(request.params));
  const { tools } = await upstream.listTools();
  // A tool that requires the key (pay_bonus) gets none made up: only the caller's own key makes
  // the caller's retry safe, so a call without one is refused with the reason.
  const keyed = new Set(
    tools
      .filter((t) => 'idempotencyKey' in (t.inputSchema.properties ?? {}))
      .filter((t) => !t.inputSchema.required?.includes('idempotencyKey'))
      .map((t) => t.name),
  );
  server.setRequestHandler(CallToolRequestSchema, (request) => callOnce(upstream, keyed, request.params));
  server.onclose = () => void upstream.close();
  await server.connect(new StdioServerTransport());
}

/** What the service's refusal said, in words for the person who set the server up. */
function refusedBecause(error: unknown): string {
  const code = (error as { code?: number }).code;
  const message = (error as Error).message;
  // The transport puts the answer's body in its message: the service's `{error, message}`.
  const body = /\{.*\}/s.exec(message)?.[0];
  let said: { error?: string; message?: string } = {};
  try {
    said = body ? JSON.parse(body) : {};
  } catch {}
  if (code === 401) {
    const detail = [said.error, said.message].filter(Boolean).join(': ');
    return `HANDOFF_API_KEY was refused${detail ? ` (${detail})` : ''}; check the key (an agent API key, hr_...)`;
  }
  if (code === 400 && said.error) return said.error;
  if (code === 429)
    return `too many requests from this key or address (${said.error ?? 'rate limited'}); try again later`;
  return `${message}; is the service running there? (set HANDOFF_URL)`;
}

type CallParams = Parameters<Client['callTool']>[0];

/**
 * Forwards a call; a tool that creates something or moves money gets an idempotency key (unless
 * the client gave one), so the one retry after a lost connection can never act twice.
 */
const MCP_PREFIX = /^MCP error -?\d+: /;

async function callOnce(upstream: Client, keyed: Set<string>, params: CallParams) {
  const args = { ...(params.arguments ?? {}) };
  if (keyed.has(params.name) && args.idempotencyKey === undefined) args.idempotencyKey = randomUUID();
  const call = { ...params, arguments: args };
  try {
    return await upstream.callTool(call);
  } catch (error) {
    // The upstream's refusal goes on as it came: its code and its message without the prefix
    // the client added, which the next client adds again.
    if (error instanceof McpError) throw protocolError(error.code, error.message.replace(MCP_PREFIX, ''));
    if (!keyed.has(params.name)) throw error;
    return upstream.callTool(call);
  }
}

/**
 * When the server cannot serve (a refused key, an unreachable service, a bad setting), the client
 * must hear why, not only see its connection close: every request it sends is answered with an
 * MCP error carrying the reason (which its `initialize` surfaces to the person), the reason also
 * goes to stderr, and the process exits once the client hangs up.
 */
export async function serveRefusal(reason: string): Promise<void> {
  const transport = new StdioServerTransport();
  transport.onmessage = (message) => {
    if (!('method' in message) || !('id' in message)) return;
    void transport.send({
      jsonrpc: '2.0',
      id: message.id,
      error: { code: ErrorCode.ServerUnavailable, message: `Handoff MCP server could not start: ${reason}` },
    });
  };
  process.stdin.on('end', () => process.exit(1));
  transport.onclose = () => process.exit(1);
  await transport.start();
}

async function main(): Promise<void> {
  try {
    await serveStdio(stdioSettings(process.env));
  } catch (error) {
    const reason = (error as Error).message;
    process.stderr.write(`handoff-mcp: ${reason}\n`);
    await serveRefusal(reason);
  }
}

await main();
