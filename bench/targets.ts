/**
 * The speed targets of issue 11, checked on one run's numbers: each Handoff rate as a share of
 * its ceiling measured in the same run (the bare Fastify route; pgbench for PostgreSQL writes),
 * so a crowded machine lowers both sides of a ratio rather than only one.
 */
import type { Results } from './scenarios.js';

/** The ceiling: the bare route answering {"hello":"world"}. */
export const CEILING_SCENARIO = 'bare Fastify GET /';

/** The bare route answering what GET /tasks/:id answers: a reference row, not a target's ceiling. */
export const BARE_TASK_SCENARIO = 'bare Fastify GET /task (same body as GET /tasks/:id)';

/** The ceiling's route with the app's response batching added: a reference row, not a ceiling. */
export const BATCHED_CEILING_SCENARIO = "bare Fastify GET / with the app's response batching";

/**
 * POST /tasks' five statements behind a bare route (bench/floor.ts): how fast POST /tasks could be
 * with this schema here. A reference row, not a target's ceiling.
 */
export const FLOOR_SCENARIO = "bare Fastify POST /tasks running POST /tasks' statements (SQLite floor)";

/**
 * GET /tasks/:id's two reads behind a bare route (bench/readFloor.ts): how fast GET /tasks/:id
 * could be with this schema here. A reference row, not a target's ceiling.
 */
export const READ_FLOOR_SCENARIO =
  "bare Fastify GET /tasks/:id running GET /tasks/:id's reads (SQLite floor)";

export const TARGET_HEADERS = ['Target', 'Measured', 'Goal', 'Met'];

/** The row of a scenario on a database ('none' for the bare routes) in the requests table. */
export function findRun(results: Results, scenario: string, database: string) {
  return results.requests.find((m) => m.scenario === scenario && m.database === database);
}

/** The requests per second of that row, if it was measured. */
export function rateOf(results: Results, scenario: string, database: string): number | undefined {
  return findRun(results, scenario, database)?.requestsPerSecond;
}

export function targetRows(results: Results): string[][] {
  const bare = rateOf(results, CEILING_SCENARIO, 'none');
  const rows: string[][] = [];
  const ratio = (label: string, value: number | undefined, ceiling: number | undefined, goal: number) => {
    if (value === undefined || !ceiling) return;
    const share = value / ceiling;
    rows.push([label, share.toFixed(2), `>= ${goal}`, share >= goal ? 'yes' : 'no']);
  };
  ratio(
    'SQLite GET /tasks/:id, share of bare Fastify',
    rateOf(results, 'GET /tasks/:id', 'sqlite'),
    bare,
    0.5,
  );
  const sqlitePost = findRun(results, 'POST /tasks', 'sqlite');
  ratio('SQLite POST /tasks, share of bare Fastify', sqlitePost?.requestsPerSecond, bare, 0.2);
  if (sqlitePost) {
    const p99 = sqlitePost.latencyP99Ms;
    rows.push(['SQLite POST /tasks, p99 ms', String(p99), '< 20', p99 < 20 ? 'yes' : 'no']);
  }
  ratio(
    'PostgreSQL POST /tasks, share of pgbench (same transaction, same clients)',
    rateOf(results, 'POST /tasks', 'postgres'),
    results.pgbench?.tps,
    0.5,
  );
  return rows;
}
