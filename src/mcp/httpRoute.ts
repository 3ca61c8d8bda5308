import type { FastifyPluginAsync, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { agentAuth } from '../http/auth.js';
import {
  applyCount,
  type Bucket,
  type Counted,
  countMcpRequest,
  countRequest,
  type RateLimits,
  rateLimitHook,
  setRateLimitHeaders,
} from '../http/rateLimit.js';
import type { RouteOptions } from '../http/routeTypes.js';
import { tracedContext } from '../http/traceHeader.js';
import { ALL_TOOLS } from './allTools.js';
import { ToolCatalog } from './catalog.js';
import { hostGuard } from './hostGuard.js';
import { publicMessage } from './publicErrors.js';
import type { RouteTable } from './routeTable.js';
import { parseToolsets, ToolsetError } from './toolsets.js';

export const MCP_PATH = '/mcp';
/**
 * JSON-RPC messages are small; files travel through the upload routes (upload_file without
 * contentBase64 returns a URL to PUT them to), and inline ones are at most MAX_INLINE_UPLOAD_BYTES.
 * At 28 MiB, twenty bodies held in memory at once took the process from 328 MB to 820 MB.
 */
export const MCP_BODY_LIMIT_BYTES = 1024 * 1024;

export interface McpRouteOptions {
  routes: RouteOptions;
  rateLimits: RateLimits;
  routeTable: RouteTable;
}

/**
 * The MCP SDK (its server, transport and Zod schemas: about 270 ms of CPU) loads on the first POST
 * to /mcp, not at every start; later requests reuse the loaded modules.
 */
let sdk: Promise<
  [typeof import('./server.js'), typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js')]
>;
const loadSdk = () =>
  (sdk ??= Promise.all([
    import('./server.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
  ]));

const isToolCall = (message: unknown) => (message as { method?: unknown } | null)?.method === 'tools/call';

/**
 * Streamable HTTP at /mcp, stateless: every POST gets a fresh server and transport, so any
 * instance can answer any request. The agent's API key authenticates it exactly as REST; a tool
 * call counts against its REST route's rate-limit bucket, any other message as a standard request.
 */
export const mcpRoutes: FastifyPluginAsync<McpRouteOptions> = async (
  app,
  { routes, rateLimits, routeTable },
) => {
  const { ctx, config, stats, storage } = routes;
  let catalog: ToolCatalog | undefined;
  // Built once every route is registered, so a tool naming a missing route stops the start.
  app.addHook('onReady', async () => {
    catalog = new ToolCatalog(ALL_TOOLS, routeTable);
  });
  app.addHook('onRequest', hostGuard(config.publicUrl));
  app.addHook('onRequest', agentAuth(ctx, routes.authThrottle));

  const mcpGate = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const result = countMcpRequest(rateLimits, `agent:${request.agentId}`);
    if (result instanceof Promise) result.then((c) => applyCount(c, reply, done), done);
    else applyCount(result, reply, done);
  };

  const postOptions = {
    bodyLimit: MCP_BODY_LIMIT_BYTES,
    schema: { hide: true },
    config: { takesBody: true },
    // After the host guard and the key: counted before the body is read.
    onRequest: mcpGate,
  };
  app.post(MCP_PATH, postOptions, async (request, reply) => {
    const key = `agent:${request.agentId}`;
    let toolsets: ReturnType<typeof parseToolsets>;
    try {
      toolsets = parseToolsets(queryText((request.query as Record<string, unknown>)?.toolsets));
    } catch (error) {
      if (error instanceof ToolsetError) return reply.status(400).send({ error: error.message });
      throw error;
    }
    // The answer carries the rate-limit headers of the tightest bucket this request counted in,
    // as a REST answer carries its route's: set on the raw response, which the transport writes.
    let tightest: Counted | undefined;
    const count = async (bucket: Bucket) => {
      const counted = await countRequest(rateLimits, bucket, key);
      if (!tightest || counted.remaining <= tightest.remaining) tightest = counted;
      if (!reply.raw.headersSent) setRateLimitHeaders(reply.raw, tightest);
      return counted;
    };
    const messages: unknown[] = Array.isArray(request.body) ? request.body : [request.body];
    const toolCalls = messages.filter(isToolCall).length;
    // Tool calls count in their tools' buckets; any other message (or a request of none) as standard.
    const standard = toolCalls === 0 ? Math.max(1, messages.length) : messages.length - toolCalls;
    for (let i = 0; i < standard; i++) {
      const counted = await count('standard');
      if (counted.exceeded) {
        reply.header('retry-after', counted.resetS);
        return reply
          .status(429)
          .send({ error: 'Rate limit exceeded', retryAfter: counted.resetS, message: counted.message });
      }
    }
    const [{ createMcpServer }, { StreamableHTTPServerTransport }] = await loadSdk();
    reply.hijack();
    const env = {
      ctx: tracedContext(request, ctx),
      agentId: request.agentId,
      apiKey: request.apiKey,
      stats,
      storage,
    };
    const server = createMcpServer(
      catalog!,
      env,
      {
        count,
        logError: (error, tool) => request.log.error({ err: error, tool }, 'MCP tool failed'),
      },
      { toolsets, scopes: request.apiKey?.scopes ?? null },
    );
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    const send = transport.send.bind(transport);
    transport.send = (message, options) =>
      send(
        publicMessage(message, (error) => request.log.error({ err: error }, 'MCP request failed')),
        options,
      );
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(request.raw, reply.raw, request.body);
    } catch (error) {
      request.log.error({ err: error }, 'MCP request failed');
      if (!reply.raw.headersSent) {
        reply.raw.writeHead(500, { 'content-type': 'application/json' });
        reply.raw.end(JSON.stringify({ error: 'Internal server error; the request was not completed' }));
      }
    }
  });

  // Stateless: no server-initiated stream to GET and no session to DELETE.
  for (const method of ['GET', 'DELETE'] as const) {
    app.route({
      method,
      url: MCP_PATH,
      schema: { hide: true },
      // Counted as a standard request, so this answer carries the rate-limit headers as well.
      onRequest: rateLimitHook({ ...rateLimits, keyOf: (request) => `agent:${request.agentId}` }),
      handler: (_request, reply) =>
        reply
          .status(405)
          .header('allow', 'POST')
          .send({ error: 'This MCP endpoint is stateless: send each JSON-RPC message with POST' }),
    });
  }
};

/** `?toolsets=a,b` or `?toolsets=a&toolsets=b` as one comma-separated text. */
function queryText(value: unknown): string | undefined {
  if (Array.isArray(value)) return value.map(String).join(',');
  return typeof value === 'string' ? value : undefined;
}
