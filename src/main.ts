import { buildApp } from './app.js';
import { loadConfig } from './config.js';
import { systemClock } from './domain/clock.js';
import { closeServices, openServices } from './services.js';
import { startupErrorLine } from './startupError.js';

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
  const { config, notices } = loadConfig();
  onConfig(config);
  // The chain opens before the app (and its JSON logger) exists: its lines wait for the logger.
  const chainLines: string[] = [];
  const services = await openServices(config, { log: (msg) => chainLines.push(msg) });
  const app = await buildApp({
    config,
    ...services,
    clock: systemClock,
    logger: { level: process.env.LOG_LEVEL || 'info' },
    jobs: true,
  });
  for (const line of chainLines) app.log.info({ component: 'chain' }, line);
  for (const notice of notices) app.log.warn(notice.message);

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info(`${signal} received: finishing requests in flight, then closing`);
    const forceExit = setTimeout(() => process.exit(1), 15_000);
    forceExit.unref();
    // Stops accepting requests, finishes those in flight, then stops the background jobs.
    await app.close();
    await closeServices(services);
    process.exit(0);
  };
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
}

void main();
