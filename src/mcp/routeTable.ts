import type { FastifyInstance } from 'fastify';
import type { Bucket } from '../http/rateLimit.js';
import type { JsonSchema } from './jsonSchema.js';

/** What an MCP tool borrows from the REST route it mirrors. */
export interface RouteSchemas {
  summary: string | undefined;
  params: JsonSchema | undefined;
  querystring: JsonSchema | undefined;
  /** The JSON body schema (for a route that also takes multipart, its JSON alternative). */
  body: JsonSchema | undefined;
  response: Record<string, JsonSchema>;
  /** The rate-limit bucket the route counts against. */
  bucket: Bucket;
}

interface RouteSchemaOption {
  summary?: string;
  params?: JsonSchema;
  querystring?: JsonSchema;
  body?: JsonSchema & { content?: Record<string, { schema: JsonSchema }> };
  response?: Record<string, JsonSchema>;
}

/**
 * The REST routes' schemas, collected as they are registered. MCP tools take their input and
 * output schemas from here, so a tool and its route can never disagree about what they accept.
 */
export class RouteTable {
  private readonly routes = new Map<string, RouteSchemas>();

  /** Must run before the routes are registered: Fastify reports each route once, as it is added. */
  collect(app: FastifyInstance): void {
    app.addHook('onRoute', (route) => {
      const schema = route.schema as RouteSchemaOption | undefined;
      if (!schema) return;
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      const config = route.config as { rateLimit?: Bucket } | undefined;
      const body = schema.body?.content ? schema.body.content['application/json']?.schema : schema.body;
      for (const method of methods) {
        this.routes.set(`${method} ${route.url}`, {
          summary: schema.summary,
          params: schema.params,
          querystring: schema.querystring,
          body,
          response: schema.response ?? {},
          bucket: config?.rateLimit ?? 'standard',
        });
      }
    });
  }

  /** The route `METHOD /path` (as registered, e.g. "GET /tasks/:id"); a missing one is a bug. */
  get(key: string): RouteSchemas {
    const route = this.routes.get(key);
    if (!route) throw new Error(`MCP tool refers to route ${key}, which is not registered`);
    return route;
  }
}
