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
import { BARE_TASK_SCENARIO, CEILING_SCENARIO } from './targets.js';
import { measureWebhooks, type WebhookMeasurement } from './webhooks.js';

/** Everything a run measured, and what could not be measured (one line each). */
export interface Results {
  requests: Measurement[];
  streams: StreamMeasurement[];
  webhooks: WebhookMeasurement[];
  /** pgbench running what POST /tasks commits, on the PostgreSQL run's schema; null if not run. */
  pgbench: PgbenchMeasurement | null;
  failures: string[];
  /**
   * Every run of the bare ceiling (GET /), in order: one before the SQLite scenarios and one
   * after each database's part. The table and the ratios use the fastest (see bestCeiling).
   */
  ceilingRuns: Measurement[];
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

/**
 * The bare routes: the ceiling (GET /) and the same-body reference (GET /task). With
 * `ceilingOnly`, the ceiling alone: the bench measures it again after each database's part.
 */
export async function benchBaseline(
  settings: BenchSettings,
  results: Results,
  ceilingOnly = false,
): Promise<void> {
  const server = await startBaseline();
  try {
    const scenario = { database: 'none', baseUrl: server.baseUrl, postgresDatabase: null };
    log(`${CEILING_SCENARIO} (run ${results.ceilingRuns.length + 1})`);
    results.ceilingRuns.push(
      await measure(
        { ...scenario, name: CEILING_SCENARIO, method: 'GET', path: '/', headers: {}, expectStatus: 200 },
        settings,
      ),
    );
    if (ceilingOnly) return;
    log('bare Fastify GET /task (the body of GET /tasks/:id)');
    results.requests.push(
      await measure(
        {
          ...scenario,
          name: BARE_TASK_SCENARIO,
          method: 'GET',
          path: '/task',
          headers: {},
          expectStatus: 200,
        },
        settings,
      ),
    );
  } finally {
    await server.close();
  }
}

/**
 * The ceiling the ratios divide by: the fastest of the bare runs. This VM's rates move by up to
 * 2x between runs minutes apart, for the bare route and the app alike; one bare run caught in a
 * slow spell once made GET /tasks/:id look like 0.61 of a ceiling that other runs put 1.8x
 * higher. The fastest run is the least favourable ceiling for the app, so a ratio reported
 * against it is never flattered by the ceiling's bad luck. Placed first in the requests table.
 */
export function bestCeiling(results: Results): string | null {
  const runs = results.ceilingRuns;
  if (runs.length === 0) return null;
  const best = runs.reduce((a, b) => (b.requestsPerSecond > a.requestsPerSecond ? b : a));
  results.requests.unshift(best);
  if (runs.length === 1) return null;
  const rates = runs.map((r) => Math.round(r.requestsPerSecond)).join(', ');
  return `The ceiling (${CEILING_SCENARIO}) was measured ${runs.length} times, before the SQLite scenarios and after each database's part: ${rates} req/s. The table and the ratios use the fastest.`;
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
