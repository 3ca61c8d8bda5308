import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { call, makeFixture } from './fixtures.js';
import { createBenchSchema, dropBenchSchema } from './postgres.js';
import { markdownTable } from './report.js';
import { type DatabaseChoice, startHandoff } from './servers.js';
import type { BenchSettings } from './settings.js';
import { inParallel } from './util.js';

/**
 * POST /batches with 500 tasks against 500 single POST /tasks (issue 40): the same 500 tasks
 * and 500 TASK_ESCROW ledger rows, in one request (one transaction) or in 500, sent one at a
 * time (an agent's loop) or `connections` at a time. `BENCH_ONLY=batches npm run bench` runs
 * this alone, on both databases, and rewrites its section of docs/benchmarks.md.
 */
export const BATCH_SIZE = 500;

export const BATCH_WAYS = [
  'POST /batches (500 tasks)',
  '500 x POST /tasks, one at a time',
  '500 x POST /tasks, concurrent',
] as const;
export type BatchWay = (typeof BATCH_WAYS)[number];

export interface BatchMeasurement {
  way: BatchWay;
  database: 'sqlite' | 'postgres';
  /** The fastest of the rounds, wall-clock seconds from the first request to the last answer. */
  seconds: number;
  /** Ledger rows the way writes: one TASK_ESCROW per task. */
  ledgerRows: number;
  rounds: number;
}

const TEMPLATE = {
  title: 'Photograph a café menu',
  description: 'The whole menu, every page, readable.',
  reward: '0.5',
};

/** Each round takes one run of each way; budgeted generously for a busy machine. */
export function batchesBudgetS(s: BenchSettings): number {
  return 2 * s.rounds * 3 * 60;
}

export async function benchBatches(
  settings: BenchSettings,
  databases: ('sqlite' | 'postgres')[],
  log: (message: string) => void,
): Promise<BatchMeasurement[]> {
  const rows: BatchMeasurement[] = [];
  for (const database of databases) {
    const schema = database === 'postgres' ? await createBenchSchema(settings.postgresUrl) : null;
    const choice: DatabaseChoice =
      schema === null ? { kind: 'sqlite' } : { kind: 'postgres', url: settings.postgresUrl, schema };
    try {
      rows.push(...(await benchOn(choice, database, settings, log)));
    } finally {
      if (schema !== null) await dropBenchSchema(settings.postgresUrl, schema);
    }
  }
  return rows;
}

async function benchOn(
  choice: DatabaseChoice,
  database: 'sqlite' | 'postgres',
  settings: BenchSettings,
  log: (message: string) => void,
): Promise<BatchMeasurement[]> {
  const server = await startHandoff(choice);
  try {
    const fixture = await makeFixture(server.baseUrl, server.adminToken);
    let n = 0;
    // Every POST under an Idempotency-Key, as careful agents send them (and as bench/fixtures.ts does).
    const post = (path: string, body: unknown) =>
      call(
        server.baseUrl,
        'POST',
        path,
        { authorization: fixture.authorization, 'idempotency-key': `bench-batch-${n++}` },
        body,
        201,
      );
    const ways: Record<BatchWay, () => Promise<void>> = {
      'POST /batches (500 tasks)': async () => {
        const answer = await post('/batches', { template: TEMPLATE, count: BATCH_SIZE });
        if ((answer.tasks as unknown[]).length !== BATCH_SIZE) throw new Error('the batch is short');
      },
      '500 x POST /tasks, one at a time': async () => {
        for (let i = 0; i < BATCH_SIZE; i++) await post('/tasks', TEMPLATE);
      },
      '500 x POST /tasks, concurrent': async () => {
        await inParallel(
          Array.from({ length: BATCH_SIZE }, (_, i) => i),
          settings.connections,
          () => post('/tasks', TEMPLATE),
        );
      },
    };
    // One warm-up of each (JIT, caches, pools), then the rounds; the order turns each round so
    // no way always runs on the fullest tables.
    for (const way of BATCH_WAYS) await ways[way]();
    const best = new Map<BatchWay, number>();
    for (let round = 0; round < settings.rounds; round++) {
      for (let k = 0; k < BATCH_WAYS.length; k++) {
        const way = BATCH_WAYS[(k + round) % BATCH_WAYS.length]!;
        log(`${way} on ${database} (round ${round + 1})`);
        const start = performance.now();
        await ways[way]();
        const seconds = (performance.now() - start) / 1000;
        best.set(way, Math.min(best.get(way) ?? Number.POSITIVE_INFINITY, seconds));
      }
    }
    return BATCH_WAYS.map((way) => ({
      way,
      database,
      seconds: best.get(way)!,
      ledgerRows: BATCH_SIZE,
      rounds: settings.rounds,
    }));
  } finally {
    await server.close();
  }
}

export const BATCH_HEADERS = [
  'Way',
  'Database',
  'Time (s)',
  'Ledger rows',
  'Ledger rows/s',
  'Time vs POST /batches',
];

export function batchesTable(rows: BatchMeasurement[]): string {
  const batchTime = (database: string) =>
    rows.find((r) => r.database === database && r.way === BATCH_WAYS[0])?.seconds;
  return markdownTable(
    BATCH_HEADERS,
    rows.map((r) => {
      const base = batchTime(r.database);
      return [
        r.way,
        r.database,
        r.seconds.toFixed(2),
        String(r.ledgerRows),
        (r.ledgerRows / r.seconds).toFixed(0),
        base ? `${(r.seconds / base).toFixed(1)}x` : '-',
      ];
    }),
  );
}

export const BATCHES_SECTION = '### Batches: POST /batches with 500 tasks against 500 POST /tasks';

/** The section of docs/benchmarks.md. `machine` is report.ts's one-line description. */
export function batchesSection(
  rows: BatchMeasurement[],
  s: BenchSettings,
  machine: string,
  loadAverage: { before: number; after: number },
): string {
  const ratio = (database: string, way: BatchWay) => {
    const batch = rows.find((r) => r.database === database && r.way === BATCH_WAYS[0]);
    const other = rows.find((r) => r.database === database && r.way === way);
    return batch && other ? (other.seconds / batch.seconds).toFixed(1) : '-';
  };
  const lines = (['sqlite', 'postgres'] as const)
    .filter((d) => rows.some((r) => r.database === d))
    .map(
      (d) =>
        `on ${d === 'sqlite' ? 'SQLite' : 'PostgreSQL'} 500 single POST /tasks took ${ratio(d, BATCH_WAYS[1])}x as long as one POST /batches sent one at a time, ${ratio(d, BATCH_WAYS[2])}x sent ${s.connections} at a time`,
    );
  const rounds = s.rounds === 1 ? 'one round' : `${s.rounds} rounds`;
  // Above one runnable process per core, every process here waited for a core.
  const busy =
    Math.max(loadAverage.before, loadAverage.after) > os.cpus().length
      ? ' The machine was busy with other work (the load average above its core count): the times are long and only the ratios are worth reading; run it again on a quiet machine.'
      : '';
  return `${BATCHES_SECTION}

${batchesTable(rows)}

The same 500 tasks (reward 0.5 TON, so 500 TASK_ESCROW ledger rows) created by one
\`POST /batches\` (one transaction) or by 500 \`POST /tasks\`: ${lines.join('; ')}.

Method (bench/batchCreation.ts, \`BENCH_ONLY=batches npm run bench\` rewrites this section alone):
the app in process over real HTTP (as the request scenarios), on SQLite and on a fresh schema of
the bench database; one funded agent; every POST under its own Idempotency-Key. One warm-up run
of each way, then ${rounds} of all three (the order turned each round); each row is the fastest
round, wall-clock time from the first request to the last answer. Ledger rows/s is 500 over that
time. Machine: ${machine}; its 1-minute load average was ${loadAverage.before.toFixed(1)} before and
${loadAverage.after.toFixed(1)} after.${busy}
`;
}
