/**
 * What the benchmark run is tuned by. Every knob is bounded so a typo in the environment cannot
 * turn `npm run bench` into a run of hours: with the defaults the whole bench (five request
 * scenarios of warm-up + measurement, then streams and webhooks on each database, plus two app
 * start-ups) takes under three minutes.
 */
export interface BenchSettings {
  /** Length of each measured run. */
  durationS: number;
  /** Length of the discarded run before each measured one (JIT, caches, connection pools). */
  warmupS: number;
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
}

type Env = Record<string, string | undefined>;

export const DEFAULT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/handoff_bench';

export function readSettings(env: Env = process.env): BenchSettings {
  return {
    durationS: boundedInt(env, 'BENCH_DURATION_S', 10, 1, 60),
    warmupS: 2,
    connections: boundedInt(env, 'BENCH_CONNECTIONS', 50, 1, 200),
    requestTimeoutS: 10,
    postgresUrl: loopbackUrl(env.BENCH_DATABASE_URL || DEFAULT_POSTGRES_URL),
    streams: boundedInt(env, 'BENCH_STREAMS', 1000, 100, 5000),
    streamChats: 100,
    streamDurationS: boundedInt(env, 'BENCH_STREAM_DURATION_S', 5, 1, 60),
    drainTimeoutS: 10,
    webhookRunS: boundedInt(env, 'BENCH_WEBHOOK_RUN_S', 5, 1, 20),
    deliveryTimeoutS: 30,
  };
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
