import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { hasScope, type Scope } from '../domain/agents/keyScopes.js';

/**
 * The scope each agent route needs (issue 38), in one place: "METHOD /path" as registered. The
 * agent API refuses to start with a route missing here (`requireRouteScopes`), so a new route
 * cannot forget its scope; MCP tools take their route's scope (src/mcp/toolAccess.ts).
 */
export const ROUTE_SCOPES: Record<string, Scope> = {
  'GET /agents/me': 'tasks:read',
  'GET /platform/stats': 'tasks:read',
  'GET /transactions': 'tasks:read',
  'GET /agents/tasks': 'tasks:read',
  'GET /tasks/:id': 'tasks:read',
  'GET /tasks/:id/applications': 'tasks:read',
  'GET /tasks/:id/ratings': 'tasks:read',
  'GET /tasks/:id/submissions': 'tasks:read',
  'GET /batches': 'tasks:read',
  'GET /batches/:id': 'tasks:read',
  'GET /approvals': 'tasks:read',
  'GET /approvals/:id': 'tasks:read',

  'POST /tasks': 'tasks:write',
  'POST /batches': 'tasks:write',
  'PATCH /tasks/:id': 'tasks:write',
  'DELETE /tasks/:id': 'tasks:write',
  'PATCH /applications/:id': 'tasks:write',
  'POST /tasks/:id/revisions': 'tasks:write',
  'POST /tasks/:id/dispute': 'tasks:write',
  'POST /tasks/:id/dispute/statements': 'tasks:write',
  'POST /tasks/:id/rate': 'tasks:write',

  'POST /tasks/:id/complete': 'money',
  'POST /tasks/:id/refund': 'money',
  // Cancelling a batch refunds its open tasks, as POST /tasks/:id/refund does.
  'POST /batches/:id/cancel': 'money',
  // A bonus pays the worker from the balance, as completing a task does.
  'POST /tasks/:id/bonus': 'money',
  'GET /agents/me/deposit': 'money',

  'GET /chats': 'chat',
  'GET /chat/:taskId/messages': 'chat',
  'POST /chat/:taskId/messages': 'chat',
  'GET /chat/:taskId/stream': 'chat',
  'POST /upload': 'chat',

  // The profile's PATCH sets the default webhook URL too, so it is a webhook setting.
  'PATCH /agents/me': 'webhooks',
  'PATCH /agents/webhooks': 'webhooks',
  'POST /agents/webhooks': 'webhooks',
  'GET /agents/webhooks/deliveries': 'webhooks',
  'POST /agents/webhooks/deliveries/:id/redeliver': 'webhooks',
  'GET /agents/webhooks/endpoints': 'webhooks',
  'POST /agents/webhooks/endpoints/resume': 'webhooks',

  'GET /agents/workers': 'workers:read',
  'GET /agents/workers/:id': 'workers:read',

  // Test mode (test keys only): test money moves like money, under the same scope.
  'POST /test/faucet': 'money',
};

/** The scope of "METHOD /path" (HEAD is its GET), or undefined when the route has none. */
export function scopeOfRoute(method: string, url: string): Scope | undefined {
  return ROUTE_SCOPES[`${method === 'HEAD' ? 'GET' : method} ${url}`];
}

/** Refuses, at start-up, an agent route registered without a scope in ROUTE_SCOPES. */
export function requireRouteScopes(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (!scopeOfRoute(method, route.url)) {
        throw new Error(
          `Agent route ${method} ${route.url} has no scope: add it to ROUTE_SCOPES (src/http/routeScopes.ts)`,
        );
      }
    }
  });
}

/** 403 naming the scope when the calling key lacks the route's; the console's owner has every scope. */
export function scopeCheck(
  request: FastifyRequest,
  reply: FastifyReply,
  done: HookHandlerDoneFunction,
): void {
  const key = request.apiKey;
  if (key === null || key.scopes === null) {
    done();
    return;
  }
  const scope = scopeOfRoute(request.method, request.routeOptions.url ?? '');
  if (scope && hasScope(key.scopes, scope)) {
    done();
    return;
  }
  void reply.status(403).send({
    error: `This API key lacks the ${scope ?? 'required'} scope this route needs; ask the agent's owner to grant it, or use a key that has it`,
    scope: scope ?? null,
  });
}
