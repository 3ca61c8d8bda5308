import { performance } from 'node:perf_hooks';
import { loadConfig } from './config.js';
import { probePort } from './portProbe.js';
import { readableLog, wantsReadableLog } from './readableLog.js';
import { startupErrorLine } from './startupError.js';

/** How long the close (after SHUTDOWN_DELAY_MS) may take before the process exits 1 anyway. */
const CLOSE_TIMEOUT_MS = 15_000;

/** Reads config, opens the database and chain, listens, and shuts down gracefully on a signal. */
async function main(): Promise<void> {
  let setting = { port: Number(process.env.PORT) || 3000, databaseUrl: process.env.DATABASE_URL || null };
  try {
    await serve((config) => {
      setting = config;
    });
  } catch (error) {
    console.error(startupErrorLine(error, setting));
    process.exit(1);
  }
}

async function serve(
  onConfig: (config: { port: number; databaseUrl: string | null }) => void,
): Promise<void> {
  // Start-up time by phase, wall and CPU (on a busy machine the wall time is mostly waiting for a
  // core), logged once listening: docs/benchmarks.md says what each phase spends.
  const wallMs: Record<string, number> = {};
  const cpuMs: Record<string, number> = {};
  let mark = { wall: performance.now(), cpu: cpuNow() };
  const span = (name: string) => {
    const now = { wall: performance.now(), cpu: cpuNow() };
    wallMs[name] = Math.round(now.wall - mark.wall);
    cpuMs[name] = Math.round(now.cpu - mark.cpu);
    mark = now;
  };
  const { config, notices } = loadConfig();
  onConfig(config);
  // Before anything heavy: a second instance on a busy port says so at once.
  await probePort(config.port, config.host);
  span('config');
  // The app's modules (Fastify, every route, the TON libraries) load only once the port is known
  // to be free; a failed start never pays for them.
  const [{ buildApp }, { systemClock }, { closeServices, openServices }, { reloadScreeningRules }] =
    await Promise.all([
      import('./app.js'),
      import('./domain/clock.js'),
      import('./services.js'),
      import('./domain/trust/screeningReload.js'),
    ]);
  span('modules');
  // The chain opens before the app (and its JSON logger) exists: its lines wait for the logger.
  const chainLines: string[] = [];
  const services = await openServices(config, {
    log: (msg) => chainLines.push(msg),
    onSpan: span,
  });
  const app = await buildApp({
    config,
    ...services,
    clock: systemClock,
    logger: {
      level: process.env.LOG_LEVEL || 'info',
      ...(wantsReadableLog(config.production, process.stdout)
        ? { stream: readableLog(process.stdout, true) }
        : {}),
    },
    jobs: true,
  });
  span('app');
  for (const line of chainLines) app.log.info({ component: 'chain' }, line);
  services.sandboxGuard?.logTo((message) => app.log.error({ component: 'chain' }, message));
  for (const notice of notices) app.log.warn(notice.message);
  const { usdt } = app.ctx;
  if (usdt.disabledReason) app.log.info(usdt.disabledReason);

  // SIGTERM (an orchestrator or process manager stopping the instance) drains first: /ready goes
  // 503 at once so the load balancer stops sending here, requests are served as usual for
  // SHUTDOWN_DELAY_MS, then the close. SIGINT (Ctrl-C) closes without the delay, and ends one
  // under way; further SIGTERMs change nothing (systemd and npm may each deliver one).
  let closing = false;
  let endDelay: (() => void) | null = null;
  const shutdown = async (signal: NodeJS.Signals) => {
    if (endDelay) {
      if (signal === 'SIGINT') endDelay();
      return;
    }
    if (closing) return;
    closing = true;
    app.readiness.draining = true;
    const delayMs = signal === 'SIGTERM' ? config.shutdownDelayMs : 0;
    if (delayMs > 0) {
      app.log.info(
        `${signal} received: /ready answers 503; serving for ${delayMs} ms more (SHUTDOWN_DELAY_MS), then closing (SIGINT closes now)`,
      );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delayMs);
        endDelay = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      endDelay = null;
    }
    app.log.info(`${signal}: no new connections; finishing requests in flight, then closing`);
    const forceExit = setTimeout(() => process.exit(1), CLOSE_TIMEOUT_MS);
    forceExit.unref();
    // Stops accepting connections, finishes requests in flight, then stops the background jobs.
    await app.close();
    await closeServices(services);
    app.log.info('Closed cleanly');
    process.exit(0);
  };
  // SIGHUP re-reads the screening rules file (docs/operating.md, "Moderation"); a bad file keeps
  // the rules in force and says what is wrong in the log.
  process.on('SIGHUP', () => {
    try {
      app.log.info(
        { component: 'screening', ...reloadScreeningRules(app.ctx) },
        'SIGHUP: screening rules reloaded',
      );
    } catch (error) {
      app.log.error({ component: 'screening' }, `SIGHUP: ${(error as Error).message}`);
    }
  });
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    // Nothing was served: release the database and chain state before saying why.
    await app.close().catch(() => {});
    await closeServices(services).catch(() => {});
    throw error;
  }
  span('listen');
  const where = app.server.address();
  const listening = typeof where === 'object' && where ? `${where.address}:${where.port}` : String(where);
  app.log.info(
    `Listening on ${listening}${config.host === '127.0.0.1' || config.host === '::1' ? ' (this machine only; set HOST=0.0.0.0 to serve other hosts, as in a container)' : ''}`,
  );
  app.log.info(
    `Handoff is serving on ${config.publicUrl} (${services.db.dialect}, TON ${config.tonNetwork}); API docs at ${config.publicUrl}/docs`,
  );
  app.log.info(
    `Deposit wallet ${services.chain.depositAddress}; hot wallet ${services.chain.hotWalletAddress}`,
  );
  const total = (spans: Record<string, number>) => Object.values(spans).reduce((sum, ms) => sum + ms, 0);
  wallMs.total = total(wallMs);
  cpuMs.total = total(cpuMs);
  app.log.info(
    { startup: { wallMs, cpuMs } },
    `Started in ${wallMs.total} ms (${cpuMs.total} ms of CPU after the process began)`,
  );
}

/** CPU time (user + system) this process has used, in milliseconds. */
function cpuNow(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

void main();
