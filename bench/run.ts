/**
 * `npm run bench`: measures the real app over real HTTP on SQLite and PostgreSQL beside a bare
 * Fastify ceiling, prints a table and rewrites docs/benchmarks.md. Exits non-zero when any
 * scenario saw an error or could not run, because a benchmark of failing requests measures the
 * failure path. An unreachable PostgreSQL is reported and skipped, not a failure.
 */
import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeMarkdown } from './document.js';
import type { Measurement } from './load.js';
import { describeMachine } from './machine.js';
import { preparePostgres } from './postgres.js';
import { busyMachineNote, consoleTable, machineLine } from './report.js';
import { benchBaseline, benchHandoff, benchPostgres, log } from './scenarios.js';
import { readSettings } from './settings.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const REPORT_FILE = path.join(ROOT, 'docs', 'benchmarks.md');
/** App start-ups (sandbox chain, migrations), fixtures and shutdowns, on top of the load runs. */
const SETUP_ALLOWANCE_S = 120;
const SCENARIOS_AT_MOST = 5;

/** The URL as it may be printed: the password, if any, never reaches the output or the docs. */
function redacted(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

async function main(): Promise<number> {
  const settings = readSettings();
  const budgetS = SCENARIOS_AT_MOST * (settings.warmupS + settings.durationS + settings.requestTimeoutS);
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
    postgresVersion = await preparePostgres(settings.postgresUrl);
  } catch (error) {
    const reason = `PostgreSQL at ${redacted(settings.postgresUrl)} is unreachable (${(error as Error).message}); its rows were skipped`;
    log(reason);
    notes.push(reason);
  }

  // A part that cannot even start (say, a migration fails on one database) is reported as a
  // failure and the other parts still run, so one broken database does not hide the others.
  let failures = 0;
  const attempt = async (part: string, run: () => Promise<Measurement[]>): Promise<Measurement[]> => {
    try {
      return await run();
    } catch (error) {
      failures++;
      const message = `FAILED: ${part} did not complete: ${(error as Error).message}`;
      log(message);
      notes.push(message);
      return [];
    }
  };
  const measurements = [
    ...(await attempt('bare Fastify', () => benchBaseline(settings))),
    ...(await attempt('sqlite', () => benchHandoff({ kind: 'sqlite' }, settings))),
  ];
  if (postgresVersion) measurements.push(...(await attempt('postgres', () => benchPostgres(settings))));

  for (const m of measurements.filter((r) => r.errors > 0 || r.warmupErrors > 0)) {
    failures++;
    notes.push(
      `FAILED: ${m.scenario} on ${m.database}: ${m.errors} errors (${m.warmupErrors} in warm-up); statuses ${JSON.stringify(m.statusCounts)}`,
    );
  }
  notes.push(...busyMachineNote(measurements));
  const loadAverage = { before: loadBefore, after: os.loadavg()[0] ?? 0 };
  const machine = describeMachine(postgresVersion ?? 'not measured (unreachable)');
  mkdirSync(path.dirname(REPORT_FILE), { recursive: true });
  writeMarkdown(REPORT_FILE, { date: new Date(), settings, machine, measurements, notes, loadAverage });

  console.log(consoleTable(measurements));
  console.log(`\n${machineLine(machine)}`);
  console.log(`SQLite ${machine.sqlite}; PostgreSQL: ${machine.postgres}`);
  for (const note of notes) console.log(note);
  console.log(`\nWrote ${path.relative(process.cwd(), REPORT_FILE)}`);
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
