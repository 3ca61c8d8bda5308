import { writeFileSync } from 'node:fs';
import type { Measurement } from './load.js';
import type { Machine } from './machine.js';
import { cells, cpuTable, HEADERS, markdownTable } from './report.js';
import type { BenchSettings } from './settings.js';

export interface Report {
  date: Date;
  settings: BenchSettings;
  machine: Machine;
  measurements: Measurement[];
  /** Things the reader must know about this run: a skipped database, errors seen. */
  notes: string[];
  /** The 1-minute load average before the first and after the last run. */
  loadAverage: { before: number; after: number };
}

/** docs/benchmarks.md, rewritten whole on every run so it never mixes numbers of two runs. */
export function writeMarkdown(file: string, report: Report): void {
  const { settings: s, machine: m } = report;
  const text = `# Benchmarks

Written by \`npm run bench\` (bench/run.ts) on ${report.date.toISOString()}; every run overwrites
this file, so all numbers below come from one run on the machine described.

## Results

${markdownTable(HEADERS, report.measurements.map(cells))}
${report.notes.length > 0 ? `\n${report.notes.map((n) => `- ${n}`).join('\n')}\n` : ''}
Req/s is the mean of autocannon's one-per-second samples; p50/p99 are request latencies as the
client saw them, in whole milliseconds (autocannon's resolution); Requests is the count completed
in the measured run; Errors counts responses with any other status than the scenario expects
(201 or 200), connection errors and timeouts.

Where the CPU went during each measured run (from /proc; "bench process" is the server and the
load generator together, "PostgreSQL" the backends connected to the bench database, "other" the
rest of the machine, e.g. other people's test runs). CPU ms/request is (bench process +
PostgreSQL) / requests: it includes the load generator's share (compare the bare Fastify row)
and changes much less than req/s when the machine is crowded. The 1-minute load average was
${report.loadAverage.before.toFixed(1)} before the first run and ${report.loadAverage.after.toFixed(1)} after the last.

${cpuTable(report.measurements)}

## Machine

- CPU: ${m.cpuModel}, ${m.cores} cores; memory ${m.memoryGiB} GiB
- OS: ${m.os}, ${m.kernel}
- Node ${m.node}; autocannon ${m.autocannon}
- SQLite ${m.sqlite} (bundled with better-sqlite3); data dir ${m.tempFilesystem}
- PostgreSQL: ${m.postgres}

## Method

- One Node process runs the server under test on its main thread and autocannon in one worker
  thread (\`workers: 1\`). Server, load generator and, in the PostgreSQL rows, the PostgreSQL
  server itself all share the machine's ${m.cores} cores over loopback.
- autocannon: ${s.connections} keep-alive connections, pipelining 1, ${s.warmupS} s warm-up run
  (discarded) then ${s.durationS} s measured, request timeout ${s.requestTimeoutS} s. It is a closed
  loop: each connection sends its next request when the previous answer arrives.
- **bare Fastify GET /**: \`fastify()\` with one route returning \`{"hello":"world"}\`. The ceiling
  for Node + Fastify + this load generator on this machine.
- **Handoff** is built as main.ts builds it (\`openServices\` + \`buildApp\` with its background
  jobs polling), logger off, with a fresh temp DATA_DIR and sandbox chain per database; on
  PostgreSQL a fresh schema in the bench database (dropped afterwards) and the app's default
  pool. One agent is created through \`POST /admin/agents\` and funded by a real sandbox deposit.
  Per-key rate limits are raised to the config's maximum (1,000,000 a minute) so a 429 never
  stands in for the app; the limiter's bookkeeping still runs on every request.
- **POST /tasks**: the same JSON body (title, description, reward 0.5 TON) with the agent's
  Bearer key. Each request authenticates the key (SHA-256, one indexed lookup), validates the
  body, and in one transaction reads the agent, escrows 0.65 TON with a compare-and-set on the
  balance, inserts the task, its ledger row and its event. All requests come from one agent,
  so they all update the same balance row: the worst case for write contention.
- **GET /tasks/:id**: one existing task of that agent, read over and over (auth lookup, task,
  its applications, the agent's name); every row is hot in cache.

## What the numbers mean, and what they do not

- They compare the scenarios with each other and with the bare ceiling, on this machine, in
  this run. Req/s and latency swing widely with whatever else the machine runs (see the CPU
  table): compare runs by CPU ms/request, and read differences of a few percent as noise.
- They are not a capacity figure for production: there the clients are elsewhere (here the
  load generator shares the server's cores), requests cross a network and TLS, and PostgreSQL
  runs on its own machine with a data set larger than one agent's tasks.
- Latency under a closed loop grows with the connection count; p99 here is the queueing
  behind ${s.connections} concurrent clients, not the time of one request on an idle server.
`;
  writeFileSync(file, text);
}
