import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { Type } from 'typebox';
import type { ChainGateway } from './chain/gateway.js';
import type { Config } from './config.js';
import type { Db } from './db/database.js';
import { type Clock, systemClock } from './domain/clock.js';
import type { DomainContext } from './domain/context.js';
import { StatsCache } from './domain/stats.js';
import { adminAuth, agentAuth, workerAuth } from './http/auth.js';
import { registerErrorHandling } from './http/errors.js';
import { registerJsonParser } from './http/jsonBody.js';
import { registerOpenApi } from './http/openapi.js';
import { adminRoutes } from './http/routes/admin.js';
import { agentRoutes } from './http/routes/agents.js';
import { applicationRoutes } from './http/routes/applications.js';
import { catalogRoutes } from './http/routes/catalog.js';
import { taskRoutes } from './http/routes/tasks.js';
import { workerRoutes } from './http/routes/worker.js';
import type { RouteOptions } from './http/routeTypes.js';

export interface AppDeps {
  config: Config;
  db: Db;
  chain: ChainGateway;
  clock?: Clock;
  logger?: FastifyServerOptions['logger'];
}

/** JSON bodies are small: the longest field (a description) is 10,000 characters. */
const BODY_LIMIT_BYTES = 1024 * 1024;

/** Builds the whole HTTP app from its dependencies; tests call this, main.ts listens on it. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: deps.logger ?? false,
    bodyLimit: BODY_LIMIT_BYTES,
    // Unknown body fields are dropped before handlers see them: `status` or `balance` in a
    // create-task body changes nothing.
    ajv: { customOptions: { removeAdditional: 'all', allErrors: true, allowUnionTypes: true } },
    return503OnClosing: true,
  }).withTypeProvider<TypeBoxTypeProvider>();

  const ctx: DomainContext = {
    db: deps.db.db,
    clock: deps.clock ?? systemClock,
    chain: deps.chain,
    secretKey: deps.config.secretKey,
  };
  const options: RouteOptions = { ctx, config: deps.config, stats: new StatsCache() };

  app.decorateRequest('agentId', '');
  app.decorateRequest('workerId', '');
  registerErrorHandling(app);
  registerJsonParser(app);
  await registerOpenApi(app, deps.config.publicUrl);

  app.get(
    '/health',
    {
      schema: {
        tags: ['Service'],
        summary: 'Liveness',
        response: { 200: Type.Object({ status: Type.Literal('ok') }) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  await app.register(async (agentApi) => {
    agentApi.addHook('onRequest', agentAuth(ctx));
    for (const routes of [agentRoutes, catalogRoutes, taskRoutes, applicationRoutes]) {
      await agentApi.register(routes, options);
    }
  });
  await app.register(async (workerApi) => {
    workerApi.addHook('onRequest', workerAuth(ctx, deps.config.telegramBotToken));
    await workerApi.register(workerRoutes, options);
  });
  await app.register(async (adminApi) => {
    adminApi.addHook('onRequest', adminAuth(deps.config.adminToken));
    await adminApi.register(adminRoutes, options);
  });
  return app;
}
