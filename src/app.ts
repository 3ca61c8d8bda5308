import path from 'node:path';
import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { Type } from 'typebox';
import type { ChainGateway } from './chain/gateway.js';
import { type Config, webhookSettings } from './config.js';
import type { Db } from './db/database.js';
import { type Clock, systemClock } from './domain/clock.js';
import type { DomainContext } from './domain/context.js';
import { StatsCache } from './domain/stats.js';
import { MAX_UPLOAD_BYTES } from './domain/uploads.js';
import { InProcessFanout, type MessageFanout } from './events/fanout.js';
import { adminAuth, agentAuth, workerAuth } from './http/auth.js';
import { registerErrorHandling } from './http/errors.js';
import { registerJsonParser } from './http/jsonBody.js';
import { registerOpenApi } from './http/openapi.js';
import { MemoryRateLimitStore, type RateLimitStore, rateLimitHook } from './http/rateLimit.js';
import { adminRoutes } from './http/routes/admin.js';
import { agentRoutes } from './http/routes/agents.js';
import { applicationRoutes } from './http/routes/applications.js';
import { catalogRoutes } from './http/routes/catalog.js';
import { conversationRoutes } from './http/routes/conversation.js';
import { fileRoutes } from './http/routes/files.js';
import { taskRoutes } from './http/routes/tasks.js';
import { telegramRoutes } from './http/routes/telegram.js';
import { webhookRoutes } from './http/routes/webhooks.js';
import { workerRoutes } from './http/routes/worker.js';
import type { RouteOptions } from './http/routeTypes.js';
import { StreamCounter } from './http/sse.js';
import { registerValidation } from './http/validation.js';
import { startBackgroundJobs } from './jobs.js';
import { type FileStorage, LocalDiskStorage } from './storage/fileStorage.js';
import { createTelegramBot, registerWebhookOnListen, telegramSettings } from './telegram/bot.js';

export interface AppDeps {
  config: Config;
  db: Db;
  chain: ChainGateway;
  clock?: Clock;
  fanout?: MessageFanout;
  storage?: FileStorage;
  rateLimitStore?: RateLimitStore;
  logger?: FastifyServerOptions['logger'];
  /** Run background jobs (pending transfers, webhook delivery) while the app is up. */
  jobs?: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The domain context the routes use; tests reach the database and clock through it. */
    ctx: DomainContext;
  }
}

/** JSON bodies are small: the longest field (a description) is 10,000 characters. */
const BODY_LIMIT_BYTES = 1024 * 1024;

/** Builds the whole HTTP app from its dependencies; tests call this, main.ts listens on it. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: deps.logger ?? false,
    bodyLimit: BODY_LIMIT_BYTES,
    return503OnClosing: true,
  }).withTypeProvider<TypeBoxTypeProvider>();

  const { config } = deps;
  const clock = deps.clock ?? systemClock;
  const ctx: DomainContext = {
    db: deps.db.db,
    clock,
    chain: deps.chain,
    secretKey: config.secretKey,
    fanout: deps.fanout ?? new InProcessFanout(),
    publicUrl: config.publicUrl,
    webhooks: webhookSettings(config),
  };
  app.decorate('ctx', ctx);
  const options: RouteOptions = {
    ctx,
    config,
    stats: new StatsCache(),
    storage: deps.storage ?? new LocalDiskStorage(path.join(config.dataDir, 'uploads')),
    streams: new StreamCounter(config.sseMaxStreamsPerKey),
  };
  // Open chat streams never finish on their own; end them so a shutdown does not wait for them.
  app.addHook('preClose', async () => options.streams.endAll());
  const rateLimits = {
    store: deps.rateLimitStore ?? new MemoryRateLimitStore(),
    clock,
    limits: {
      standard: config.rateLimitStandard,
      chat: config.rateLimitChat,
      upload: config.rateLimitUpload,
    },
  };

  app.decorateRequest('agentId', '');
  app.decorateRequest('workerId', '');
  registerErrorHandling(app);
  registerValidation(app);
  registerJsonParser(app);
  await app.register(multipart, {
    // One byte over the limit: at exactly the limit busboy would cut the file short silently (the
    // streaming API only flags `truncated`), while one more byte lets storage refuse it with a 413.
    limits: {
      fileSize: MAX_UPLOAD_BYTES + 1,
      files: 1,
      fields: 5,
      fieldSize: 1000,
      parts: 10,
      headerPairs: 50,
    },
  });
  await registerOpenApi(app, config.publicUrl);

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
    agentApi.addHook('onRequest', rateLimitHook({ ...rateLimits, keyOf: (r) => `agent:${r.agentId}` }));
    for (const routes of [
      agentRoutes,
      catalogRoutes,
      taskRoutes,
      applicationRoutes,
      webhookRoutes,
      conversationRoutes('agent'),
    ]) {
      await agentApi.register(routes, options);
    }
  });
  await app.register(async (workerApi) => {
    workerApi.addHook('onRequest', workerAuth(ctx, config.telegramBotToken));
    workerApi.addHook('onRequest', rateLimitHook({ ...rateLimits, keyOf: (r) => `worker:${r.workerId}` }));
    await workerApi.register(workerRoutes, options);
    await workerApi.register(conversationRoutes('worker'), options);
  });
  await app.register(async (adminApi) => {
    adminApi.addHook('onRequest', adminAuth(config.adminToken));
    await adminApi.register(adminRoutes, options);
  });
  await app.register(fileRoutes, options);
  const botSettings = telegramSettings(config);
  const telegram = botSettings ? createTelegramBot(ctx, botSettings, app.log) : null;
  await app.register(telegramRoutes, { telegram, webhookSecret: config.telegramWebhookSecret });

  if (deps.jobs) {
    if (telegram) registerWebhookOnListen(app, telegram, config.publicUrl);
    const jobs = startBackgroundJobs(ctx, app.log, telegram?.sender ?? null);
    app.addHook('onClose', () => jobs.stop());
  }
  return app;
}
