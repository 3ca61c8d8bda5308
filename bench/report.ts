/** The result tables, for the terminal and for docs/benchmarks.md. */
import type { Measurement } from './load.js';
import type { Machine } from './machine.js';

/** Above this share of the machine taken by other processes, a run's numbers are flagged. */
const BUSY_MACHINE_SHARE = 0.1;

export const HEADERS = ['Scenario', 'Database', 'Req/s (avg)', 'p50 ms', 'p99 ms', 'Requests', 'Errors'];

/** autocannon records latency in whole milliseconds, so 0 means "under 1 ms". */
function ms(value: number): string {
  return value < 1 ? '<1' : String(Math.round(value));
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

/** A plain aligned table for the terminal. */
export function consoleTable(measurements: Measurement[]): string {
  const rows = [HEADERS, ...measurements.map(cells)];
  const widths = HEADERS.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    r.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(HEADERS), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

export function markdownTable(headers: string[], rows: string[][]): string {
  const line = (r: string[]) => `| ${r.join(' | ')} |`;
  return [line(headers), `|${headers.map((_, i) => (i < 2 ? '---' : '---:')).join('|')}|`]
    .concat(rows.map(line))
    .join('\n');
}

const CPU_HEADERS = [
  'Scenario',
  'Database',
  'bench process s',
  'PostgreSQL s',
  'other processes s',
  'available s',
  'CPU ms/request',
];

/**
 * CPU spent per completed request by the bench process and PostgreSQL together. It moves much
 * less than req/s when other processes crowd the machine, so it is the better figure to compare
 * across runs; it includes the load generator's share, which the bare Fastify row roughly shows.
 */
function cpuPerRequestMs(m: Measurement): string {
  if (!m.cpu || m.totalRequests === 0) return '-';
  return ((1000 * (m.cpu.benchS + m.cpu.postgresS)) / m.totalRequests).toFixed(2);
}

export function cpuTable(measurements: Measurement[]): string {
  const rows = measurements.flatMap((m) =>
    m.cpu
      ? [
          [
            m.scenario,
            m.database,
            m.cpu.benchS.toFixed(1),
            m.cpu.postgresS.toFixed(1),
            m.cpu.otherS.toFixed(1),
            m.cpu.capacityS.toFixed(1),
            cpuPerRequestMs(m),
          ],
        ]
      : [],
  );
  return rows.length > 0 ? markdownTable(CPU_HEADERS, rows) : '(not available on this OS)';
}

/** One note when something else on the machine took a real share of the CPU during the runs. */
export function busyMachineNote(measurements: Measurement[]): string[] {
  const busy = measurements.flatMap((m) =>
    m.cpu && m.cpu.otherS > BUSY_MACHINE_SHARE * m.cpu.capacityS
      ? [Math.round((100 * m.cpu.otherS) / m.cpu.capacityS)]
      : [],
  );
  if (busy.length === 0) return [];
  const range =
    Math.min(...busy) === Math.max(...busy) ? `${busy[0]}%` : `${Math.min(...busy)}-${Math.max(...busy)}%`;
  return [
    `The machine was busy: other processes used ${range} of its CPU during ${busy.length} of ${measurements.length} measured runs (table below), so those rows are lower than a quiet machine would give.`,
  ];
}

export function machineLine(m: Machine): string {
  return `${m.cpuModel}, ${m.cores} cores, ${m.memoryGiB} GiB; Node ${m.node}; ${m.os}, ${m.kernel}`;
}
