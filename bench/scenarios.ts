/**
 * The scenarios: each server is started, measured and closed here, so a run never leaves a
 * server, a temp dir or a schema behind, even when a measurement throws.
 */
import { makeFixture, TASK_BODY } from './fixtures.js';
import { startFloor } from './floor.js';
import type { InstancesMeasurement } from './instances.js';
import { type Measurement, measure, type Scenario } from './load.js';
import { measurePgbench, type PgbenchMeasurement } from './pgbench.js';
import { createBenchSchema, databaseName, dropBenchSchema } from './postgres.js';
import { READ_FLOOR_TASK_ID, startReadFloor } from './readFloor.js';
import { type DatabaseChoice, type RunningServer, startBaseline, startHandoff } from './servers.js';
import { type BenchSettings, runsPart } from './settings.js';
import { measureStreams, type StreamMeasurement } from './streams.js';
import {
  BARE_TASK_SCENARIO,
  BATCHED_CEILING_SCENARIO,
  CEILING_SCENARIO,
  FLOOR_SCENARIO,
  READ_FLOOR_SCENARIO,
} from './targets.js';
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
   * Every run of the bare ceiling (GET /), in order: one before each round of SQLite's request
   * scenarios. The table and the ratios use the fastest (see bestCeiling).
   */
  ceilingRuns: Measurement[];
  /** Every run of the app's request scenarios, all rounds; `requests` holds the fastest of each. */
  requestRuns: Measurement[];
  /** The same load on 1 and on 3 built instances on PostgreSQL and Redis (bench/instances.ts). */
  instances: InstancesMeasurement[];
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
 * The bare routes: the ceiling (GET /), the same-body reference (GET /task), the ceiling's
 * route with the app's response batching (a reference: the ratios keep Fastify as it ships as
 * their ceiling) and the floors under POST /tasks and GET /tasks/:id (bench/floor.ts,
 * bench/readFloor.ts). With `again`, the ceiling and the floors alone: the bench measures them
 * again before each round of SQLite's request scenarios, so the floors, like the app and the
 * ceiling, are each the fastest of as many runs over the same minutes (one run of a floor once
 * put it at 0.40 of the ceiling, and at 0.45 in the run before, on the same code).
 */
export async function benchBaseline(settings: BenchSettings, results: Results, again = false): Promise<void> {
  const server = await startBaseline();
  try {
    log(`${CEILING_SCENARIO} (run ${results.ceilingRuns.length + 1})`);
    results.ceilingRuns.push(await measure(bareScenario(server.baseUrl, CEILING_SCENARIO, '/'), settings));
    if (!again) {
      log('bare Fastify GET /task (the body of GET /tasks/:id)');
      results.requests.push(
        await measure(bareScenario(server.baseUrl, BARE_TASK_SCENARIO, '/task'), settings),
      );
    }
  } finally {
    await server.close();
  }
  const once = (_: RunningServer, scenario: Scenario) => measure(scenario, settings);
  if (!again) {
    log(`${BATCHED_CEILING_SCENARIO} (a reference, not the ceiling)`);
    const batched = (baseUrl: string) => bareScenario(baseUrl, BATCHED_CEILING_SCENARIO, '/');
    results.requests.push(await measureAlone(() => startBaseline({ batched: true }), batched, once));
  }
  log(`${FLOOR_SCENARIO} (a reference)`);
  results.requestRuns.push(await measureAlone(startFloor, floorScenario, once));
  log(`${READ_FLOOR_SCENARIO} (a reference)`);
  results.requestRuns.push(await measureAlone(startReadFloor, readFloorScenario, once));
}

/** One scenario run against a server started for it alone, closed whatever the run does. */
export async function measureAlone<M>(
  start: () => Promise<RunningServer>,
  scenarioOf: (baseUrl: string) => Scenario,
  run: (server: RunningServer, scenario: Scenario) => Promise<M>,
): Promise<M> {
  const server = await start();
  try {
    return await run(server, scenarioOf(server.baseUrl));
  } finally {
    await server.close();
  }
}

/** POST /tasks as the app's scenario sends it, against bench/floor.ts's route. */
export function floorScenario(baseUrl: string): Scenario {
  const common = { database: 'sqlite', baseUrl, headers: {}, postgresDatabase: null };
  return { ...postTasks(common), name: FLOOR_SCENARIO };
}

/** GET /tasks/:id as the app's scenario sends it (less the key), against bench/readFloor.ts's route. */
export function readFloorScenario(baseUrl: string): Scenario {
  return {
    ...bareScenario(baseUrl, READ_FLOOR_SCENARIO, `/tasks/${READ_FLOOR_TASK_ID}`),
    database: 'sqlite',
  };
}

/** A GET of a bare route, answered 200. */
export function bareScenario(baseUrl: string, name: string, path: string): Scenario {
  return {
    name,
    database: 'none',
    baseUrl,
    postgresDatabase: null,
    method: 'GET',
    path,
    headers: {},
    expectStatus: 200,
  };
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
  const best = fastest(runs);
  results.requests.unshift(best);
  if (runs.length === 1) return null;
  const rates = runs.map((r) => Math.round(r.requestsPerSecond)).join(', ');
  return `The ceiling (${CEILING_SCENARIO}) was measured ${runs.length} times, once before each round of SQLite's request scenarios: ${rates} req/s. The table and the ratios use the fastest.`;
}

function fastest(runs: readonly Measurement[]): Measurement {
  return runs.reduce((a, b) => (b.requestsPerSecond > a.requestsPerSecond ? b : a));
}

/**
 * The fastest run of each scenario, in the order the scenarios first ran, and a line listing
 * every run. Symmetric with the ceiling: on this VM other tenants only ever slow a run down
 * (the same build's rates moved by up to 2x between runs minutes apart), so the fastest of a
 * few runs is each side's least disturbed rate; a single run of the app against the fastest of
 * the ceiling's runs compared the app's luck with the ceiling's best. The line also gives the
 * ratios of the medians, for a reader who prefers those.
 */
export function fastestRuns(runs: readonly Measurement[], ceilingRuns: readonly Measurement[]) {
  const byScenario = new Map<string, Measurement[]>();
  for (const run of runs) {
    const key = `${run.scenario} on ${run.database}`;
    const list = byScenario.get(key);
    if (list) list.push(run);
    else byScenario.set(key, [run]);
  }
  const chosen = [...byScenario.values()].map(fastest);
  // Only SQLite's scenarios run in rounds (PostgreSQL's ceiling is pgbench, run once).
  const repeated = [...byScenario].filter(([, list]) => list.length > 1);
  if (repeated.length === 0) return { chosen, note: null };
  const rounds = Math.max(...repeated.map(([, list]) => list.length));
  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const middle = Math.floor(sorted.length / 2);
    return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  };
  const ceilingMedian = median(ceilingRuns.map((r) => r.requestsPerSecond));
  const lists = repeated.map(([key, list]) => {
    const each = list.map((r) => `${Math.round(r.requestsPerSecond)} (p99 ${Math.round(r.latencyP99Ms)} ms)`);
    const share = ceilingMedian ? median(list.map((r) => r.requestsPerSecond)) / ceilingMedian : Number.NaN;
    return `${key}: ${each.join(', ')} req/s, median ${share.toFixed(2)} of the ceiling's median`;
  });
  return {
    chosen,
    note: `The app's request scenarios and the floors ran in ${rounds} rounds, each after a run of the ceiling; the table and the ratios use the fastest run of each, as for the ceiling. Every run, in order: ${lists.join('; ')}.`,
  };
}

/**
 * The request scenarios, then streams, then webhooks, on one app per database. A scenario that
 * throws is recorded as a failure and the next one still runs on the same app.
 */
export async function benchHandoff(
  database: DatabaseChoice,
  settings: BenchSettings,
  results: Results,
  /** Runs before each round of the request scenarios after the first (the ceiling, again). */
  betweenRounds: (() => Promise<void>) | null = null,
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
      // SQLite's rates are compared with the bare route's, run as often; PostgreSQL's with pgbench.
      const rounds = betweenRounds ? settings.rounds : 1;
      for (let round = 1; round <= rounds; round++) {
        if (round > 1 && betweenRounds) await betweenRounds();
        const of = rounds > 1 ? ` (round ${round} of ${rounds})` : '';
        await attempt('POST /tasks', async () => {
          log(`${database.kind}: POST /tasks${of}`);
          results.requestRuns.push(await measure(postTasks(common), settings));
        });
        await attempt('GET /tasks/:id', async () => {
          log(`${database.kind}: GET /tasks/:id${of}`);
          results.requestRuns.push(await measure(getTask(common, fixture.taskId), settings));
        });
      }
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
