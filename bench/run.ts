/**
 * `npm run bench`: measures the real app over real HTTP on SQLite and PostgreSQL beside a bare
 * Fastify ceiling (requests, chat messages fanned out to open streams, webhook deliveries),
 * prints the tables and rewrites docs/benchmarks.md. Exits non-zero when any scenario saw an
 * error, lost or doubled a message or a delivery, or could not run, because a benchmark of
 * failing requests measures the failure path. An unreachable PostgreSQL is reported and
 * skipped, not a failure.
 *
 * `BENCH_ONLY` runs a subset and leaves docs/benchmarks.md as it was: a comma-separated list of
 * servers (bare, sqlite, postgres) and kinds of scenario (requests, pgbench, streams, webhooks);
 * naming none of a group runs all of it. `BENCH_ONLY=bare,sqlite,requests npm run bench` is the
 * bare route and SQLite's two request scenarios, about a minute, for ratios against bare in one run.
 * `BENCH_ONLY=batches` is POST /batches against 500 POST /tasks on both databases
 * (bench/batchCreation.ts), and rewrites that section of docs/benchmarks.md alone.
 */
import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { batchesBudgetS, batchesSection, batchesTable, benchBatches } from './batchCreation.js';
import { replaceSection, writeMarkdown } from './document.js';
import {
  benchInstances,
  instancesBudgetS,
  instancesSection,
  instancesTable,
  replaceInstancesSection,
} from './instances.js';
import { describeMachine } from './machine.js';
import { preparePostgres } from './postgres.js';
import { busyMachineNote, consoleTables, cpuRows, machineLine } from './report.js';
import {
  benchBaseline,
  benchHandoff,
  benchPostgres,
  bestCeiling,
  fastestRuns,
  log,
  type Results,
} from './scenarios.js';
import { readSettings, runsPart } from './settings.js';
import { streamBudgetS } from './streams.js';
import { webhookBudgetS } from './webhooks.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const REPORT_FILE = path.join(ROOT, 'docs', 'benchmarks.md');
/** App start-ups (sandbox chain, migrations), fixtures and shutdowns, on top of the load runs. */
const SETUP_ALLOWANCE_S = 120;
/**
 * Load runs at most: the ceiling, the same-body route and the batched ceiling; the two floors and
 * SQLite's two request scenarios per round, with a run of the ceiling before each round after the
 * first; PostgreSQL's two; pgbench.
 */
const scenariosAtMost = (rounds: number) => 3 + 4 * rounds + (rounds - 1) + 2 + 1;
/** Streams and webhooks run once per database. */
const DATABASES = 2;

/** The URL as it may be printed: the password, if any, never reaches the output or the docs. */
function redacted(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

async function main(): Promise<number> {
  const settings = readSettings();
  const budgetS =
    scenariosAtMost(settings.rounds) * (settings.warmupS + settings.durationS + settings.requestTimeoutS) +
    DATABASES * (streamBudgetS(settings) + webhookBudgetS(settings)) +
    instancesBudgetS(settings) +
    (runsPart(settings, 'batches') ? batchesBudgetS(settings) : 0);
  // A hung server or database must not hold the bench (or CI) forever.
  setTimeout(
    () => {
      log(`gave up after ${budgetS + SETUP_ALLOWANCE_S} s: something hung`);
      process.exit(2);
    },
    (budgetS + SETUP_ALLOWANCE_S) * 1000,
  ).unref();

  const notes: string[] = [];
  const loadBefore = os.loadavg()[0] ?? 0;
  let postgresVersion: string | null = null;
  try {
    if (runsPart(settings, 'postgres')) postgresVersion = await preparePostgres(settings.postgresUrl);
  } catch (error) {
    const reason = `PostgreSQL at ${redacted(settings.postgresUrl)} is unreachable (${(error as Error).message}); its rows were skipped`;
    log(reason);
    notes.push(reason);
  }

  // A part that cannot even start (say, a migration fails on one database) is reported as a
  // failure and the other parts still run, so one broken database does not hide the others.
  const results: Results = {
    requests: [],
    streams: [],
    webhooks: [],
    pgbench: null,
    failures: [],
    ceilingRuns: [],
    requestRuns: [],
    instances: [],
  };
  const attempt = async (part: string, run: () => Promise<void>) => {
    try {
      await run();
    } catch (error) {
      const message = `FAILED: ${part} did not complete: ${(error as Error).message}`;
      log(message);
      results.failures.push(message);
    }
  };
  // The app's own scenarios (in process); BENCH_ONLY=instances starts no in-process server.
  const appKinds = (['requests', 'pgbench', 'streams', 'webhooks'] as const).some((k) =>
    runsPart(settings, k),
  );
  const bare = appKinds && runsPart(settings, 'bare');
  const ceilingAgain = () => attempt('bare Fastify', () => benchBaseline(settings, results, true));
  if (bare) await attempt('bare Fastify', () => benchBaseline(settings, results));
  // SQLite's request scenarios run in rounds, each after a run of the ceiling (the first is the
  // one above), so both sides of the SQLite ratios are sampled as often, over the same minutes.
  if (appKinds && runsPart(settings, 'sqlite')) {
    await attempt('sqlite', () =>
      benchHandoff({ kind: 'sqlite' }, settings, results, bare ? ceilingAgain : null),
    );
  }
  if (appKinds && postgresVersion && runsPart(settings, 'postgres')) {
    await attempt('postgres', () => benchPostgres(settings, results));
  }
  if (postgresVersion && runsPart(settings, 'postgres') && runsPart(settings, 'instances')) {
    await attempt('instances', () => benchInstances(settings, results, log));
  }
  const batches: Awaited<ReturnType<typeof benchBatches>> = [];
  if (runsPart(settings, 'batches')) {
    const databases = [
      ...(runsPart(settings, 'sqlite') ? (['sqlite'] as const) : []),
      ...(postgresVersion && runsPart(settings, 'postgres') ? (['postgres'] as const) : []),
    ];
    await attempt('batches', async () => {
      batches.push(...(await benchBatches(settings, databases, log)));
    });
  }
  const fastest = fastestRuns(results.requestRuns, results.ceilingRuns);
  results.requests.push(...fastest.chosen);
  const ceilingNote = bestCeiling(results);
  if (ceilingNote) notes.push(ceilingNote);
  if (fastest.note) notes.push(fastest.note);

  let failures = results.failures.length;
  notes.push(...results.failures);
  // Every run counts, not only those the table shows: an error in any of them fails the bench.
  const everyRun = new Set([
    ...results.requests,
    ...results.requestRuns,
    ...results.ceilingRuns,
    ...results.instances,
  ]);
  for (const m of [...everyRun].filter((r) => r.errors > 0 || r.warmupErrors > 0)) {
    failures++;
    notes.push(
      `FAILED: ${m.scenario} on ${m.database}: ${m.errors} errors (${m.warmupErrors} in warm-up); statuses ${JSON.stringify(m.statusCounts)}`,
    );
  }
  for (const m of [...results.streams, ...results.webhooks].filter((r) => r.problems.length > 0)) {
    failures++;
    notes.push(`FAILED: ${m.scenario} on ${m.database}: ${m.problems.join('; ')}`);
  }
  notes.push(...busyMachineNote(cpuRows(results)));
  const loadAverage = { before: loadBefore, after: os.loadavg()[0] ?? 0 };
  const machine = describeMachine(
    postgresVersion ??
      (runsPart(settings, 'postgres') ? 'not measured (unreachable)' : 'not measured (BENCH_ONLY)'),
  );
  // A partial run (BENCH_ONLY) prints its rows but leaves the report of the last full run alone.
  const instances =
    results.instances.length > 0
      ? instancesSection(results.instances, settings, machineLine(machine), loadAverage)
      : null;
  if (!settings.only) {
    mkdirSync(path.dirname(REPORT_FILE), { recursive: true });
    writeMarkdown(REPORT_FILE, { date: new Date(), settings, machine, results, notes, loadAverage });
  }
  // Its own section, written by a full run and by a run of this part alone (a few minutes, not all).
  if (instances && (!settings.only || settings.only.has('instances')))
    replaceInstancesSection(REPORT_FILE, instances);
  if (batches.length > 0 && (!settings.only || settings.only.has('batches'))) {
    const section = batchesSection(batches, settings, machineLine(machine), loadAverage);
    replaceSection(REPORT_FILE, section.slice(0, section.indexOf('\n')), section);
  }

  console.log(consoleTables(results));
  if (results.instances.length > 0) console.log(`\n${instancesTable(results.instances)}`);
  if (batches.length > 0) console.log(`\n${batchesTable(batches)}`);
  console.log(`\n${machineLine(machine)}`);
  console.log(`SQLite ${machine.sqlite}; PostgreSQL: ${machine.postgres}`);
  for (const note of notes) console.log(note);
  if (settings.only)
    console.log(
      `\nBENCH_ONLY=${[...settings.only].join(',')}: ${path.relative(process.cwd(), REPORT_FILE)} left as it was${instances ? ', but for its section on several instances' : ''}${batches.length > 0 && settings.only.has('batches') ? ', but for its section on batches' : ''}`,
    );
  else console.log(`\nWrote ${path.relative(process.cwd(), REPORT_FILE)}`);
  return failures > 0 ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exitCode = 1;
  },
);
