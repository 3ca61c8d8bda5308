/** The result tables, for the terminal and for docs/benchmarks.md. */
import type { CpuSplit } from './cpu.js';
import type { Measurement } from './load.js';
import type { Machine } from './machine.js';
import type { Results } from './scenarios.js';
import type { StreamMeasurement } from './streams.js';
import { TARGET_HEADERS, targetRows } from './targets.js';
import type { WebhookMeasurement } from './webhooks.js';

/** Above this share of the machine taken by other processes, a run's numbers are flagged. */
const BUSY_MACHINE_SHARE = 0.1;

export const HEADERS = ['Scenario', 'Database', 'Req/s (avg)', 'p50 ms', 'p99 ms', 'Requests', 'Errors'];

/** autocannon records latency in whole milliseconds, so 0 means "under 1 ms". */
function ms(value: number): string {
  return value < 1 ? '<1' : String(Math.round(value));
}

/** The new scenarios time with performance.now() or Date.now(): a decimal below 10 ms. */
function preciseMs(value: number | null): string {
  if (value === null || Number.isNaN(value)) return '-';
  return value < 10 ? value.toFixed(1) : String(Math.round(value));
}

export function cells(m: Measurement): string[] {
  return [
    m.scenario,
    m.database,
    m.requestsPerSecond.toFixed(0),
    ms(m.latencyP50Ms),
    ms(m.latencyP99Ms),
    String(m.totalRequests),
    String(m.errors),
  ];
}

export const STREAM_HEADERS = [
  'Scenario',
  'Database',
  'Streams',
  'Messages',
  'POST/s',
  'POST p50 ms',
  'POST p99 ms',
  'Events/s',
  'Event p50 ms',
  'Event p99 ms',
  'Last stream p50 ms',
  'Last stream p99 ms',
  'Lost',
];

export function streamCells(m: StreamMeasurement): string[] {
  return [
    m.scenario,
    m.database,
    String(m.streams),
    String(m.messages),
    m.postsPerSecond.toFixed(0),
    preciseMs(m.postP50Ms),
    preciseMs(m.postP99Ms),
    m.eventsPerSecond.toFixed(0),
    preciseMs(m.eventP50Ms),
    preciseMs(m.eventP99Ms),
    preciseMs(m.allStreamsP50Ms),
    preciseMs(m.allStreamsP99Ms),
    String(m.lost),
  ];
}

export const WEBHOOK_HEADERS = [
  'Scenario',
  'Database',
  'Events',
  'Delivered',
  'Window s',
  'Deliveries/s',
  'Lag p50 ms',
  'Lag p99 ms',
  'Lag max ms',
  'Duplicates',
  'Bad signatures',
];

export function webhookCells(m: WebhookMeasurement): string[] {
  return [
    m.scenario,
    m.database,
    String(m.expected),
    String(m.deliveries),
    m.windowS.toFixed(1),
    m.deliveriesPerSecond.toFixed(0),
    preciseMs(m.lagP50Ms),
    preciseMs(m.lagP99Ms),
    preciseMs(m.lagMaxMs),
    String(m.duplicates),
    String(m.badSignatures),
  ];
}

/** A plain aligned table for the terminal. */
export function alignedTable(headers: string[], rows: string[][]): string {
  const all = [headers, ...rows];
  const widths = headers.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    r.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** Every table of a run for the terminal, one after another. */
export function consoleTables(results: Results): string {
  return [
    alignedTable(TARGET_HEADERS, targetRows(results)),
    alignedTable(HEADERS, results.requests.map(cells)),
    alignedTable(STREAM_HEADERS, results.streams.map(streamCells)),
    alignedTable(WEBHOOK_HEADERS, results.webhooks.map(webhookCells)),
  ].join('\n\n');
}

export function markdownTable(headers: string[], rows: string[][]): string {
  const line = (r: string[]) => `| ${r.join(' | ')} |`;
  return [line(headers), `|${headers.map((_, i) => (i < 2 ? '---' : '---:')).join('|')}|`]
    .concat(rows.map(line))
    .join('\n');
}

/** One measured run's CPU split and the work done in it, whatever the work was. */
export interface CpuRow {
  scenario: string;
  database: string;
  cpu: CpuSplit | null;
  /** How many of `unit` the run completed. */
  work: number;
  unit: string;
}

export function cpuRows(results: Results): CpuRow[] {
  return [
    ...results.requests.map((m) => ({ ...m, work: m.totalRequests, unit: 'request' })),
    ...results.streams.map((m) => ({ ...m, work: m.messages, unit: 'message' })),
    ...results.webhooks.map((m) => ({
      ...m,
      work: m.inWindow,
      unit: m.lagP50Ms === null ? 'delivery' : 'event',
    })),
  ];
}

const CPU_HEADERS = [
  'Scenario',
  'Database',
  'bench process s',
  'PostgreSQL s',
  'other processes s',
  'available s',
  'CPU ms/unit',
  'unit',
];

/**
 * CPU spent per unit of work (request, message, delivery) by the bench process and PostgreSQL
 * together. It moves much less than the rates when other processes crowd the machine, so it is
 * the better figure to compare across runs; it includes the load generator's share, which the
 * bare Fastify row roughly shows.
 */
function cpuPerUnitMs(row: CpuRow): string {
  if (!row.cpu || row.work === 0) return '-';
  return ((1000 * (row.cpu.benchS + row.cpu.postgresS)) / row.work).toFixed(2);
}

export function cpuTable(rows: CpuRow[]): string {
  const lines = rows.flatMap((row) =>
    row.cpu
      ? [
          [
            row.scenario,
            row.database,
            row.cpu.benchS.toFixed(1),
            row.cpu.postgresS.toFixed(1),
            row.cpu.otherS.toFixed(1),
            row.cpu.capacityS.toFixed(1),
            cpuPerUnitMs(row),
            row.unit,
          ],
        ]
      : [],
  );
  return lines.length > 0 ? markdownTable(CPU_HEADERS, lines) : '(not available on this OS)';
}

/** One note when something else on the machine took a real share of the CPU during the runs. */
export function busyMachineNote(rows: CpuRow[]): string[] {
  const busy = rows.flatMap((row) =>
    row.cpu && row.cpu.otherS > BUSY_MACHINE_SHARE * row.cpu.capacityS
      ? [Math.round((100 * row.cpu.otherS) / row.cpu.capacityS)]
      : [],
  );
  if (busy.length === 0) return [];
  const range =
    Math.min(...busy) === Math.max(...busy) ? `${busy[0]}%` : `${Math.min(...busy)}-${Math.max(...busy)}%`;
  return [
    `The machine was busy: other processes used ${range} of its CPU during ${busy.length} of ${rows.length} measured runs (CPU table below), so those rows are lower than a quiet machine would give.`,
  ];
}

export function machineLine(m: Machine): string {
  return `${m.cpuModel}, ${m.cores} cores, ${m.memoryGiB} GiB; Node ${m.node}; ${m.os}, ${m.kernel}`;
}
