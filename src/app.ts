import path from 'node:path';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { SpanExporter } from '@opentelemetry/sdk-trace-node';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { Type } from 'typebox';
import type { ChainGateway } from './chain/gateway.js';
import { type Config, webhookSettings } from './config.js';
import type { Db } from './db/database.js';
import { ApiKeyCache } from './domain/agents/apiKeyCache.js';
import { type Clock, systemClock } from './domain/clock.js';
import type { DomainContext } from './domain/context.js';
import { StatsCache } from './domain/stats.js';
import { DEFAULT_RULES_FILE, Screen, type Screening } from './domain/trust/screening.js';
import { InProcessFanout, type MessageFanout } from './events/fanout.js';
import { AccessLog } from './http/accessLog.js';
import { adminAuth, agentAuth, workerAuth } from './http/auth.js';
import { AuthFailureThrottle } from './http/authThrottle.js';
import { BODY_LIMIT_BYTES } from './http/bodyLimits.js';
import { registerBodylessRoutes } from './http/bodylessRoutes.js';
import { clientGroup } from './http/clientAddress.js';
import { registerCloseOnShutdown } from './http/closing.js';
import {
  failedLoginThrottle,
  loginThrottledBeforeBody,
  ownedAgentAuth,
  ownerSessionAuth,
  secureCookies,
} from './http/consoleAuth.js';
import { registerBodyDrain } from './http/drain.js';
import { frameworkErrors, MAX_PARAM_LENGTH, registerErrorHandling } from './http/errors.js';
import { registerHttpLimits, requestTimeoutBackstopMs } from './http/httpLimits.js';
import { registerJsonParser } from './http/jsonBody.js';
import { withInstance } from './http/logOptions.js';
import { registerMetricsRoute, registerRequestTiming } from './http/metricsRoute.js';
import { registerOpenApi } from './http/openapi.js';
import {
  MemoryRateLimitStore,
  type RateLimitStore,
  type RateLimits,
  rateLimitHook,
} from './http/rateLimit.js';
import { type Readiness, registerReadiness } from './http/readiness.js';
import { registerRequestId, requestIdOf } from './http/requestId.js';
import { registerResponseBatching } from './http/responseBatching.js';
import { requireRouteScopes, scopeCheck } from './http/routeScopes.js';
import { adminOverviewRoutes, adminRoutes } from './http/routes/admin.js';
import { adminDisputeRoutes } from './http/routes/adminDisputes.js';
import { adminKeyRoutes } from './http/routes/adminKeys.js';
import { adminModerationRoutes } from './http/routes/adminModeration.js';
import { agentRoutes } from './http/routes/agents.js';
import { applicationRoutes } from './http/routes/applications.js';
import { approvalRoutes } from './http/routes/approvals.js';
import { batchRoutes } from './http/routes/batches.js';
import { bonusRoutes } from './http/routes/bonuses.js';
import { catalogRoutes } from './http/routes/catalog.js';
import { chainAdminRoutes, chainAgentRoutes } from './http/routes/chain.js';
import {
  consoleApprovalRoutes,
  consoleBonusRoutes,
  consoleKeyRoutes,
  consoleOwnerRoutes,
} from './http/routes/console.js';
import { consoleSessionRoutes, consoleSignInRoutes } from './http/routes/consoleAuth.js';
import { conversationRoutes } from './http/routes/conversation.js';
import { agentDisputeRoutes, workerDisputeRoutes } from './http/routes/disputes.js';
import { fileRoutes } from './http/routes/files.js';
import { workerPartialPaymentRoutes } from './http/routes/partialPayment.js';
import { registerPolicyPage } from './http/routes/policy.js';
import { agentSubmissionRoutes, workerSubmissionRoutes } from './http/routes/submissions.js';
import { taskRoutes } from './http/routes/tasks.js';
import { telegramRoutes } from './http/routes/telegram.js';
import { testModeRoutes } from './http/routes/testMode.js';
import { tonConnectRoutes } from './http/routes/tonconnect.js';
import { serveTonConnectManifest, serveWebApp, WEB_APPS } from './http/routes/webApps.js';
import { webhookRoutes } from './http/routes/webhooks.js';
import { workerRoutes } from './http/routes/worker.js';
import { workerInboxRoutes } from './http/routes/workerInbox.js';
import { workerProtectionRoutes } from './http/routes/workerProtection.js';
import type { RouteOptions, Routes } from './http/routeTypes.js';
import { sharedSerializers } from './http/sharedSerializers.js';
import { MemoryStreamSlots, StreamCounter } from './http/sse.js';
import { registerTraceContext } from './http/traceHeader.js';
import { registerNulGuard, registerValidation } from './http/validation.js';
import { FailureLog, startBackgroundJobs } from './jobs.js';
import { mcpRoutes } from './mcp/httpRoute.js';
import { RouteTable } from './mcp/routeTable.js';
import { attemptObserver } from './metrics/attempts.js';
import { Metrics } from './metrics/metrics.js';
import { ScrapeReadings } from './metrics/scrape.js';
import { RedisFanout } from './redis/fanout.js';
import type { RedisLink } from './redis/link.js';
import { RedisRateLimitStore } from './redis/rateLimitStore.js';
import { RedisStreamSlots } from './redis/streamSlots.js';
import { type FileStorage, LocalDiskStorage } from './storage/fileStorage.js';
import { createTelegramBot, registerWebhookOnListen, telegramSettings } from './telegram/bot.js';
import { WalletsCatalog } from './tonconnect/walletsCatalog.js';
import { startWalletsRefresh } from './tonconnect/walletsRefresh.js';
import { usdtOnChain } from './usdtConfig.js';

export interface AppDeps {
  config: Config;
  db: Db;
  chain: ChainGateway;
  clock?: Clock;
  fanout?: MessageFanout;
  storage?: FileStorage;
  rateLimitStore?: RateLimitStore;
  /** Shares limits, stream caps and chat fan-out with the other instances (REDIS_URL). */
  redis?: RedisLink | null;
  logger?: FastifyServerOptions['logger'];
  /** Run background jobs (pending transfers, webhook delivery) while the app is up. */
  jobs?: boolean;
  /** The TON Connect wallets list the web apps are served (tests give one; else the snapshot). */
  wallets?: WalletsCatalog;
  /** With OpenTelemetry configured, spans go here instead of over OTLP (tests read them). */
  spanExporter?: SpanExporter;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The domain context the routes use; tests reach the database and clock through it. */
    ctx: DomainContext;
    /** GET /ready's state: main.ts sets `draining` on SIGTERM. */
    readiness: Readiness;
    /** This app's Prometheus metrics (GET /metrics). */
    metrics: Metrics;
  }
}

/** Where `npm run build:web` puts each web app (dist/web/<app>). */

/** Builds the whole HTTP app from its dependencies; tests call this, main.ts listens on it. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: withInstance(deps.logger ?? false, deps.config.instanceId),
    // One line a request instead of Fastify's two.
    logController: new AccessLog(),
    bodyLimit: BODY_LIMIT_BYTES,
    return503OnClosing: true,
    genReqId: requestIdOf,
    trustProxy: deps.config.trustProxy,
    requestTimeout: requestTimeoutBackstopMs(deps.config.httpLimits),
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors,
    // One compiled response serializer per schema: the agent API's two mounts share theirs.
    schemaController: { compilersFactory: { buildSerializer: sharedSerializers() } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  const { config } = deps;
  const clock = deps.clock ?? systemClock;
  const redis = deps.redis ?? null;
  redis?.setLogger(app.log);
  // A broken database connection is a warn line (then at most one a minute while it repeats),
  // never the end of the process: requests answer 503 and GET /ready says so until it is back.
  const connectionLoss = new FailureLog('database connection', app.log);
  deps.db.onConnectionError((error) => connectionLoss.failed(error));
  const streamSlots = redis ? new RedisStreamSlots(redis) : new MemoryStreamSlots();
  if (streamSlots instanceof RedisStreamSlots) app.addHook('onClose', () => streamSlots.close());
  const rateLimitStore =
    deps.rateLimitStore ?? (redis ? new RedisRateLimitStore(redis) : new MemoryRateLimitStore());
  const metrics = new Metrics();
  app.decorate('metrics', metrics);
  if (redis) metrics.watchRedis(() => !redis.down());
  // OpenTelemetry first, so its request span starts before any other hook; its modules load
  // only when it is configured.
  const tracing = config.otel ? await import('./http/tracing.js') : null;
  if (tracing && config.otel)
    await tracing.registerTracing(app, { ...config.otel, instanceId: config.instanceId }, deps.spanExporter);
  const ctx: DomainContext = {
    db: deps.db.db,
    clock,
    chain: deps.chain,
    secretKey: config.secretKey,
    apiKeys: new ApiKeyCache(config.apiKeyCacheTtlMs),
    fanout: deps.fanout ?? (redis ? new RedisFanout(redis) : new InProcessFanout()),
    publicUrl: config.publicUrl,
    webhooks: webhookSettings(config),
    observeAttempt: attemptObserver(app.log, metrics),
    // On exactly when the chain gateway has a jetton, with its master (the one USDT switch).
    usdt: usdtOnChain(config.usdt, deps.chain),
    screening: screeningOf(config, clock, app.log),
    approvalTtlMs: (config.approvalTtlHours ?? 24) * 3_600_000,
  };
  app.decorate('ctx', ctx);
  const options: RouteOptions = {
    ctx,
    config,
    stats: new StatsCache(),
    storage: deps.storage ?? new LocalDiskStorage(path.join(config.dataDir, 'uploads')),
    streams: new StreamCounter(config.sseMaxStreamsPerKey, streamSlots),
    authThrottle: new AuthFailureThrottle(rateLimitStore, clock, config.authFailureLimit),
  };
  const { authThrottle } = options;
  authThrottle.onThrottled = () => metrics.rateLimited.inc({ bucket: 'auth_failures' });
  options.streams.onRefused = () => metrics.rateLimited.inc({ bucket: 'streams' });
  metrics.countStreams(options.streams.openHere);
  // Open chat streams never finish on their own; end them so a shutdown does not wait for them.
  app.addHook('preClose', async () => options.streams.endAll());
  const rateLimits: RateLimits = {
    store: rateLimitStore,
    clock,
    limits: {
      standard: config.rateLimitStandard,
      chat: config.rateLimitChat,
      upload: config.rateLimitUpload,
    },
    onLimited: (bucket) => metrics.rateLimited.inc({ bucket }),
  };

  // The MCP tools take their schemas from the REST routes: collect them as they are registered.
  const routeTable = new RouteTable();
  routeTable.collect(app);
  app.decorateRequest('agentId', '');
  app.decorateRequest('workerId', '');
  app.decorateRequest('apiKey', null);
  registerRequestTiming(app, metrics);
  registerRequestId(app);
  registerTraceContext(app, tracing?.requestSpanTraceparent);
  registerHttpLimits(app, config.httpLimits, config.trustProxy);
  app.decorateRequest('owner', null);
  registerErrorHandling(app);
  registerValidation(app);
  registerNulGuard(app);
  registerBodyDrain(app);
  registerCloseOnShutdown(app);
  registerJsonParser(app);
  registerBodylessRoutes(app);
  registerResponseBatching(app);
  await registerOpenApi(app, config.publicUrl);

  app.get(
    '/health',
    {
      schema: {
        tags: ['Service'],
        operationId: 'getHealth',
        summary: 'Liveness',
        response: { 200: Type.Object({ status: Type.Literal('ok') }) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );
  app.decorate('readiness', registerReadiness(app, ctx.db, redis));
  if (ctx.screening) registerPolicyPage(app, ctx.screening.screen);
  const readings = new ScrapeReadings(ctx, metrics, (source, error) =>
    app.log.warn(
      { err: error, source },
      `metrics: the ${source} reading failed; its gauges are left out of this scrape`,
    ),
  );
  const metricsTokens = [config.adminToken, ...(config.metricsToken ? [config.metricsToken] : [])];
  registerMetricsRoute(app, metrics, readings, metricsTokens, authThrottle);

  const agentApiRoutes = [
    agentRoutes,
    catalogRoutes,
    taskRoutes,
    batchRoutes,
    approvalRoutes,
    bonusRoutes,
    agentSubmissionRoutes,
    agentDisputeRoutes,
    applicationRoutes,
    webhookRoutes,
    conversationRoutes('agent'),
    chainAgentRoutes,
    testModeRoutes,
  ];
  // biome-ignore lint/nursery/noMisusedPromises: Fastify awaits an async plugin (FastifyPluginAsync); Biome reads register's callback overload
  await app.register(async (agentApi) => {
    requireRouteScopes(agentApi);
    agentApi.addHook('onRequest', agentAuth(ctx, authThrottle));
    agentApi.addHook('onRequest', scopeCheck);
    agentApi.addHook('onRequest', rateLimitHook({ ...rateLimits, keyOf: (r) => `agent:${r.agentId}` }));
    for (const routes of agentApiRoutes) await agentApi.register(routes, options);
  });
  await registerConsoleApi(app, options, rateLimits, agentApiRoutes);
  // biome-ignore lint/nursery/noMisusedPromises: Fastify awaits an async plugin (FastifyPluginAsync); Biome reads register's callback overload
  await app.register(async (workerApi) => {
    workerApi.addHook('onRequest', workerAuth(ctx, config.telegramBotToken, authThrottle));
    workerApi.addHook('onRequest', rateLimitHook({ ...rateLimits, keyOf: (r) => `worker:${r.workerId}` }));
    await workerApi.register(workerRoutes, options);
    await workerApi.register(workerSubmissionRoutes, options);
    await workerApi.register(workerDisputeRoutes, options);
    await workerApi.register(workerPartialPaymentRoutes, options);
    await workerApi.register(conversationRoutes('worker'), options);
    await workerApi.register(workerInboxRoutes, options);
    await workerApi.register(workerProtectionRoutes, options);
  });
  // biome-ignore lint/nursery/noMisusedPromises: Fastify awaits an async plugin (FastifyPluginAsync); Biome reads register's callback overload
  await app.register(async (adminApi) => {
    adminApi.addHook('onRequest', adminAuth(config.adminToken, authThrottle));
    await adminApi.register(adminRoutes, options);
    await adminApi.register(chainAdminRoutes, options);
    await adminApi.register(adminOverviewRoutes, options);
    await adminApi.register(adminDisputeRoutes, options);
    await adminApi.register(adminKeyRoutes, options);
    await adminApi.register(adminModerationRoutes, options);
  });
  await app.register(mcpRoutes, { routes: options, rateLimits, routeTable });
  await app.register(fileRoutes, options);
  const wallets = deps.wallets ?? new WalletsCatalog();
  // biome-ignore lint/nursery/noMisusedPromises: Fastify awaits an async plugin (FastifyPluginAsync); Biome reads register's callback overload
  await app.register(async (web) => {
    for (const { name, prefix } of WEB_APPS) serveWebApp(web, name, prefix, () => wallets.bridgeOrigins());
    serveTonConnectManifest(web, config);
    tonConnectRoutes(web, wallets);
  });
  const botSettings = telegramSettings(config);
  const telegram = botSettings ? createTelegramBot(ctx, botSettings, app.log) : null;
  await app.register(telegramRoutes, { telegram, webhookSecret: config.telegramWebhookSecret });

  if (deps.jobs) {
    if (telegram) registerWebhookOnListen(app, telegram, config.publicUrl);
    const walletsUrl = config.tonConnectWalletsUrl;
    if (walletsUrl) {
      // Once listening: an instance that cannot take its port fetches nothing.
      let refresh: { stop(): void } | undefined;
      app.addHook('onListen', async () => {
        refresh = startWalletsRefresh(wallets, walletsUrl, app.log);
      });
      app.addHook('onClose', async () => refresh?.stop());
    }
    const jobs = startBackgroundJobs(ctx, app.log, telegram?.sender ?? null, {
      instanceId: config.instanceId,
      ttlMs: config.leaseTtlMs,
      skewMs: config.leaseSkewMs,
    });
    app.addHook('onClose', () => jobs.stop());
  }
  return app;
}

/**
 * The console's JSON API under /console/api (left out of the OpenAPI document: it is the web
 * console's, not the agents'). Sign-in is open and rate-limited per client address; everything
 * else needs a session cookie and, to change anything, the session's CSRF token. The agent API is
 * mounted once more under /console/api/agents/:agentId/api, where the owner acts as their agent,
 * so the console's task, webhook and ledger pages use the very routes agents use.
 */
async function registerConsoleApi(
  app: FastifyInstance,
  options: RouteOptions,
  rateLimits: Omit<Parameters<typeof rateLimitHook>[0], 'keyOf'>,
  agentApiRoutes: Routes[],
) {
  const { ctx } = options;
  await app.register(
    // biome-ignore lint/nursery/noMisusedPromises: Fastify awaits an async plugin (FastifyPluginAsync); Biome reads register's callback overload
    async (consoleApi) => {
      consoleApi.addHook('onRoute', (route) => {
        route.schema = { ...route.schema, hide: true };
      });
      // biome-ignore lint/nursery/noMisusedPromises: Fastify awaits an async plugin (FastifyPluginAsync); Biome reads register's callback overload
      await consoleApi.register(async (signIn) => {
        signIn.addHook('onSend', failedLoginThrottle(options.authThrottle));
        signIn.addHook('onRequest', loginThrottledBeforeBody(options.authThrottle));
        signIn.addHook(
          'onRequest',
          rateLimitHook({ ...rateLimits, keyOf: (r) => `console-ip:${clientGroup(r.ip)}` }),
        );
        await signIn.register(consoleSignInRoutes, options);
      });
      // biome-ignore lint/nursery/noMisusedPromises: Fastify awaits an async plugin (FastifyPluginAsync); Biome reads register's callback overload
      await consoleApi.register(async (owned) => {
        owned.addHook(
          'onRequest',
          ownerSessionAuth(ctx, options.authThrottle, secureCookies(options.config.publicUrl)),
        );
        owned.addHook(
          'onRequest',
          rateLimitHook({ ...rateLimits, keyOf: (r) => `owner:${r.owner!.ownerId}` }),
        );
        await owned.register(consoleSessionRoutes, options);
        await owned.register(consoleOwnerRoutes, options);
        await owned.register(consoleApprovalRoutes, options);
        await owned.register(consoleBonusRoutes, options);
        await owned.register(consoleKeyRoutes, options);
        await owned.register(
          // biome-ignore lint/nursery/noMisusedPromises: Fastify awaits an async plugin (FastifyPluginAsync); Biome reads register's callback overload
          async (asAgent) => {
            asAgent.addHook('onRequest', ownedAgentAuth(ctx));
            for (const routes of agentApiRoutes) await asAgent.register(routes, options);
          },
          { prefix: '/agents/:agentId/api' },
        );
      });
    },
    { prefix: '/console/api' },
  );
}

/**
 * Screening of new tasks: the rules file (a bad one stops the start, saying what to fix), the
 * freeze threshold and the optional classifier, whose failures are logged, never shown to agents.
 */
function screeningOf(config: Config, clock: Clock, log: FastifyBaseLogger): Screening {
  const settings = config.screening ?? { rulesFile: DEFAULT_RULES_FILE, freezeAfter: 5 };
  return {
    screen: new Screen(settings.rulesFile, () => clock.now()),
    freezeAfter: settings.freezeAfter,
    ...(settings.reportsToHold ? { reportsToHold: settings.reportsToHold } : {}),
    ...(settings.classifier ? { classifier: settings.classifier } : {}),
    onClassifierFailure: (reason) =>
      log.warn(
        { reason },
        'screening: the classifier did not answer; the task was screened by the rules alone',
      ),
  };
}
