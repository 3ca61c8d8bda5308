/**
 * What the benchmark run is tuned by. Every knob is bounded so a typo in the environment cannot
 * turn `npm run bench` into a run of hours: with the defaults the whole bench (five scenarios of
 * warm-up + measurement, plus two app start-ups) takes about a minute and a half.
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
}

type Env = Record<string, string | undefined>;

export const DEFAULT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/handoff_bench';

export function readSettings(env: Env = process.env): BenchSettings {
  return {
    durationS: boundedInt(env, 'BENCH_DURATION_S', 10, 1, 60),
    warmupS: 2,
    connections: boundedInt(env, 'BENCH_CONNECTIONS', 10, 1, 200),
    requestTimeoutS: 10,
    postgresUrl: env.BENCH_DATABASE_URL || DEFAULT_POSTGRES_URL,
  };
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
