/**
 * The scenarios: each server is started, measured and closed here, so a run never leaves a
 * server, a temp dir or a schema behind, even when a measurement throws.
 */
import { makeFixture, TASK_BODY } from './fixtures.js';
import { type Measurement, measure, type Scenario } from './load.js';
import { measurePgbench, type PgbenchMeasurement } from './pgbench.js';
import { createBenchSchema, databaseName, dropBenchSchema } from './postgres.js';
import { type DatabaseChoice, startBaseline, startHandoff } from './servers.js';
import { type BenchSettings, runsPart } from './settings.js';
import { measureStreams, type StreamMeasurement } from './streams.js';
import { BARE_TASK_SCENARIO } from './targets.js';
import { measureWebhooks, type WebhookMeasurement } from './webhooks.js';

/** Everything a run measured, and what could not be measured (one line each). */
export interface Results {
  requests: Measurement[];
  streams: StreamMeasurement[];
  webhooks: WebhookMeasurement[];
  /** pgbench running what POST /tasks commits, on the PostgreSQL run's schema; null if not run. */
  pgbench: PgbenchMeasurement | null;
  failures: string[];
}

export function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

type Common = Pick<Scenario, 'database' | 'baseUrl' | 'headers' | 'postgresDatabase'>;

/** The request scenarios, shared with bench/profile.ts so a profile loads the app the same way. */
export function postTasks(common: Common): Scenario {
  return {
    ...common,
    name: 'POST /tasks',
    method: 'POST',
    path: '/tasks',
    body: TASK_BODY,
    expectStatus: 201,
  };
}

export function getTask(common: Common, taskId: string): Scenario {
  return { ...common, name: 'GET /tasks/:id', method: 'GET', path: `/tasks/${taskId}`, expectStatus: 200 };
}

export async function benchBaseline(settings: BenchSettings): Promise<Measurement[]> {
  const server = await startBaseline();
  try {
    log('bare Fastify GET /');
    const scenario = {
      name: 'bare Fastify GET /',
      database: 'none',
      baseUrl: server.baseUrl,
      postgresDatabase: null,
    };
    const ceiling = await measure(
      { ...scenario, method: 'GET', path: '/', headers: {}, expectStatus: 200 },
      settings,
    );
    log('bare Fastify GET /task (the body of GET /tasks/:id)');
    const sameBody = await measure(
      { ...scenario, name: BARE_TASK_SCENARIO, method: 'GET', path: '/task', headers: {}, expectStatus: 200 },
      settings,
    );
    return [ceiling, sameBody];
  } finally {
    await server.close();
  }
}

/**
 * The request scenarios, then streams, then webhooks, on one app per database. A scenario that
 * throws is recorded as a failure and the next one still runs on the same app.
 */
export async function benchHandoff(
  database: DatabaseChoice,
  settings: BenchSettings,
  results: Results,
): Promise<void> {
  log(`${database.kind}: starting the app (migrations, sandbox chain)`);
  const server = await startHandoff(database);
  try {
    const fixture = await makeFixture(server.baseUrl, server.adminToken);
    const headers = { authorization: fixture.authorization };
    const postgresDatabase = database.kind === 'postgres' ? databaseName(database.url) : null;
    const common = { database: database.kind, baseUrl: server.baseUrl, headers, postgresDatabase };
    const attempt = async (name: string, run: () => Promise<void>) => {
      try {
        await run();
      } catch (error) {
        const message = `FAILED: ${name} on ${database.kind} did not complete: ${(error as Error).message}`;
        log(message);
        results.failures.push(message);
      }
    };
    if (runsPart(settings, 'requests')) {
      await attempt('POST /tasks', async () => {
        log(`${database.kind}: POST /tasks`);
        results.requests.push(await measure(postTasks(common), settings));
      });
      await attempt('GET /tasks/:id', async () => {
        log(`${database.kind}: GET /tasks/:id`);
        results.requests.push(await measure(getTask(common, fixture.taskId), settings));
      });
    }
    if (database.kind === 'postgres' && postgresDatabase && runsPart(settings, 'pgbench')) {
      await attempt('pgbench', async () => {
        log('postgres: pgbench, the same transaction as POST /tasks');
        results.pgbench = await measurePgbench(settings, database.schema, fixture.agentId, postgresDatabase);
      });
    }
    if (runsPart(settings, 'streams'))
      await attempt('streams', async () => {
        log(`${database.kind}: ${settings.streams} open streams, POST /chat/:taskId/messages`);
        const streams = await measureStreams(server, fixture, database.kind, postgresDatabase, settings);
        log(
          `${database.kind}: ${streams.streams} streams opened in ${(streams.openMs / 1000).toFixed(1)} s; the last event came ${streams.drainMs} ms after the last POST answer`,
        );
        results.streams.push(streams);
      });
    if (runsPart(settings, 'webhooks'))
      await attempt('webhooks', async () => {
        log(`${database.kind}: webhook deliveries`);
        results.webhooks.push(...(await measureWebhooks(server, database.kind, postgresDatabase, settings)));
      });
  } finally {
    await server.close();
  }
}

export async function benchPostgres(settings: BenchSettings, results: Results): Promise<void> {
  const schema = await createBenchSchema(settings.postgresUrl);
  try {
    await benchHandoff({ kind: 'postgres', url: settings.postgresUrl, schema }, settings, results);
  } finally {
    await dropBenchSchema(settings.postgresUrl, schema);
  }
}
