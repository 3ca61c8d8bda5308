/**
 * What the benchmark run is tuned by. Every knob is bounded so a typo in the environment cannot
 * turn `npm run bench` into a run of hours: with the defaults the whole bench (the request
 * scenarios of warm-up + measurement, SQLite's in three rounds, then streams and webhooks on
 * each database, plus two app start-ups) takes about four minutes.
 */
export interface BenchSettings {
  /** Length of each measured run. */
  durationS: number;
  /** Length of the discarded run before each measured one (JIT, caches, connection pools). */
  warmupS: number;
  /**
   * How many times SQLite's request scenarios run, each round after a run of the ceiling; the
   * table and the ratios use the fastest run of each, as for the ceiling (see fastestRuns).
   */
  rounds: number;
  /** Concurrent keep-alive HTTP connections the load generator holds open. */
  connections: number;
  /** Seconds before an unanswered request counts as a timeout (an error). */
  requestTimeoutS: number;
  /** The PostgreSQL database to benchmark in; created when missing. */
  postgresUrl: string;
  /** Open SSE streams in the stream scenario, spread evenly over `streamChats` chats. */
  streams: number;
  streamChats: number;
  /** Length of the stream scenario's measured run (it has a warm-up of `warmupS` too). */
  streamDurationS: number;
  /** How long the streams get to receive every message after the last POST answered. */
  drainTimeoutS: number;
  /** Length of each of the webhook scenario's two runs of event creation (live, backlog). */
  webhookRunS: number;
  /** How long the receiver waits for all deliveries of a run once its events exist. */
  deliveryTimeoutS: number;
  /** BENCH_ONLY: the parts to run; null runs everything (and only then is the report written). */
  only: ReadonlySet<BenchPart> | null;
}

/** The servers and the kinds of scenario BENCH_ONLY can pick (comma-separated). */
export const BENCH_SERVERS = ['bare', 'sqlite', 'postgres'] as const;
export const BENCH_KINDS = ['requests', 'pgbench', 'streams', 'webhooks', 'instances', 'batches'] as const;
export type BenchPart = (typeof BENCH_SERVERS)[number] | (typeof BENCH_KINDS)[number];

/**
 * Whether a part runs. Within each group (servers, kinds) naming none runs all of them, so
 * `BENCH_ONLY=bare,sqlite,requests` is the bare route and SQLite's request scenarios only.
 */
export function runsPart(settings: Pick<BenchSettings, 'only'>, part: BenchPart): boolean {
  const { only } = settings;
  if (!only) return true;
  const group: readonly string[] = (BENCH_SERVERS as readonly string[]).includes(part)
    ? BENCH_SERVERS
    : BENCH_KINDS;
  return only.has(part) || !group.some((p) => only.has(p as BenchPart));
}

type Env = Record<string, string | undefined>;

export const DEFAULT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/handoff_bench';

export function readSettings(env: Env = process.env): BenchSettings {
  return {
    durationS: boundedInt(env, 'BENCH_DURATION_S', 10, 1, 60),
    warmupS: 2,
    rounds: boundedInt(env, 'BENCH_ROUNDS', 3, 1, 5),
    connections: boundedInt(env, 'BENCH_CONNECTIONS', 50, 1, 200),
    requestTimeoutS: 10,
    postgresUrl: loopbackUrl(env.BENCH_DATABASE_URL || DEFAULT_POSTGRES_URL),
    streams: boundedInt(env, 'BENCH_STREAMS', 1000, 100, 5000),
    streamChats: 100,
    streamDurationS: boundedInt(env, 'BENCH_STREAM_DURATION_S', 5, 1, 60),
    drainTimeoutS: 10,
    webhookRunS: boundedInt(env, 'BENCH_WEBHOOK_RUN_S', 5, 1, 20),
    deliveryTimeoutS: 30,
    only: onlyParts(env.BENCH_ONLY),
  };
}

function onlyParts(raw: string | undefined): ReadonlySet<BenchPart> | null {
  if (raw === undefined || raw.trim() === '') return null;
  const known: readonly string[] = [...BENCH_SERVERS, ...BENCH_KINDS];
  const parts = raw.split(',').map((p) => p.trim());
  for (const part of parts) {
    if (!known.includes(part))
      throw new Error(`BENCH_ONLY takes a comma-separated list of ${known.join(', ')}; got "${part}"`);
  }
  return new Set(parts as BenchPart[]);
}

/** The bench loads what it measures as hard as it can: only ever a server on this machine. */
function loopbackUrl(url: string): string {
  const host = new URL(url).hostname;
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(host)) {
    throw new Error(
      `BENCH_DATABASE_URL must point at 127.0.0.1 (the bench never loads another machine), got ${host}`,
    );
  }
  return url;
}

function boundedInt(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}
