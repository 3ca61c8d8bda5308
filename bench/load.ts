import autocannon, { type Result } from 'autocannon';
import { type CpuSplit, finishCpuSample, startCpuSample } from './cpu.js';
import { call } from './fixtures.js';
import type { BenchSettings } from './settings.js';

export interface Scenario {
  /** What the table calls it, e.g. "POST /tasks". */
  name: string;
  /** "sqlite", "postgres", or "none" for the bare baseline. */
  database: string;
  baseUrl: string;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: unknown;
  /** Any other status, and any connection error or timeout, counts as an error. */
  expectStatus: number;
  /** The PostgreSQL database the app uses, so its backends' CPU is counted; null otherwise. */
  postgresDatabase: string | null;
  /** Several instances (bench/instances.ts): autocannon's connection i goes to urls[i % n]. */
  urls?: string[];
}

export interface Measurement {
  scenario: string;
  database: string;
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  totalRequests: number;
  /** Responses with another status than expected, plus connection errors and timeouts. */
  errors: number;
  /** The same count in the discarded warm-up: a failure too, reported beside the table. */
  warmupErrors: number;
  /** Every status seen in the measured run, for the report when something went wrong. */
  statusCounts: Record<string, number>;
  /** Where the CPU went during the measured run; null where /proc cannot tell. */
  cpu: CpuSplit | null;
}

/**
 * One warm-up and one measured autocannon run of a scenario. A single request goes first so a
 * broken set-up fails at once with the server's own error message, which autocannon never shows.
 */
export async function measure(
  scenario: Scenario,
  settings: BenchSettings,
  onMeasuredStart?: () => void,
): Promise<Measurement> {
  const { baseUrl, method, path, headers, body, expectStatus } = scenario;
  await call(baseUrl, method, path, headers, body, expectStatus);
  const warmup = await fire(scenario, settings, settings.warmupS);
  onMeasuredStart?.();
  const cpuStart = startCpuSample(scenario.postgresDatabase);
  const result = await fire(scenario, settings, settings.durationS);
  const cpu = finishCpuSample(cpuStart);
  return {
    scenario: scenario.name,
    database: scenario.database,
    requestsPerSecond: result.requests.average,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    totalRequests: result.requests.total,
    errors: errorCount(result, expectStatus),
    warmupErrors: errorCount(warmup, expectStatus),
    statusCounts: Object.fromEntries(
      Object.entries(result.statusCodeStats).map(([status, { count }]) => [status, count]),
    ),
    cpu,
  };
}

function fire(scenario: Scenario, settings: BenchSettings, durationS: number): Promise<Result> {
  return autocannon({
    url: scenario.urls
      ? scenario.urls.map((url) => `${url}${scenario.path}`)
      : `${scenario.baseUrl}${scenario.path}`,
    method: scenario.method,
    headers:
      scenario.body === undefined
        ? scenario.headers
        : { ...scenario.headers, 'content-type': 'application/json' },
    body: scenario.body === undefined ? undefined : JSON.stringify(scenario.body),
    connections: settings.connections,
    pipelining: 1,
    duration: durationS,
    timeout: settings.requestTimeoutS,
    // The load generator runs in its own worker thread. In the server's thread it would take
    // turns with the server on one event loop and the bench would measure half of each.
    workers: 1,
  });
}

function errorCount(result: Result, expectStatus: number): number {
  let unexpected = 0;
  for (const [status, { count }] of Object.entries(result.statusCodeStats)) {
    if (Number(status) !== expectStatus) unexpected += count;
  }
  return unexpected + result.errors;
}
