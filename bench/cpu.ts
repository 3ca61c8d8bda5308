import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';

/**
 * Who used the CPU during a measured run: this process (server + load generator), PostgreSQL's
 * processes, and everything else on the machine. The bench shares 2 cores with whatever else
 * runs (other people's test suites, say); when "other" is large, the numbers are low because of
 * it, and the report says so instead of passing them off as the app's speed. Linux only (/proc);
 * elsewhere the split is simply left out.
 */
export interface CpuSplit {
  /** Seconds of CPU: this Node process, all threads. */
  benchS: number;
  /** PostgreSQL backends connected to the bench database (not other databases' clients). */
  postgresS: number;
  otherS: number;
  /** Cores times wall-clock seconds: what was there to use. */
  capacityS: number;
}

/** Linux reports /proc times in USER_HZ ticks, which is 100 per second on every common build. */
const TICKS_PER_S = 100;

function machineBusyTicks(): number {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal: everything but idle and iowait is busy.
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields;
  return user + nice + system + irq + softirq + steal;
}

/**
 * A backend's command line reads `postgres: [<cluster>:] <user> <database> <host(port)> <state>`,
 * which tells the bench's backends from those of other people's test databases on the same
 * server. The database name is a plain identifier (postgres.ts checks), so it is safe in a RegExp.
 */
function postgresTicks(database: string | null): number {
  if (!database) return 0;
  const backendOf = new RegExp(`\\s${database}\\s+(\\S+\\(\\d+\\)|\\[local\\])`);
  let ticks = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    let stat: string;
    let commandLine: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (!stat.includes('(postgres)')) continue;
      commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue; // The process ended between the listing and the read.
    }
    if (!backendOf.test(commandLine)) continue;
    const close = stat.lastIndexOf(')');
    const rest = stat.slice(close + 2).split(' ');
    // After the command come state (index 0) ... utime (11) and stime (12).
    ticks += Number(rest[11]) + Number(rest[12]);
  }
  return ticks;
}

interface Sample {
  wallMs: number;
  busyTicks: number;
  postgresTicks: number;
  own: NodeJS.CpuUsage;
  database: string | null;
}

/** `database`: the PostgreSQL database whose backends to count, or null when none is used. */
export function startCpuSample(database: string | null): Sample | null {
  try {
    return {
      database,
      wallMs: performance.now(),
      busyTicks: machineBusyTicks(),
      postgresTicks: postgresTicks(database),
      own: process.cpuUsage(),
    };
  } catch {
    return null;
  }
}

export function finishCpuSample(start: Sample | null): CpuSplit | null {
  if (!start) return null;
  const end = startCpuSample(start.database);
  if (!end) return null;
  const own = process.cpuUsage(start.own);
  const benchS = (own.user + own.system) / 1e6;
  const postgresS = (end.postgresTicks - start.postgresTicks) / TICKS_PER_S;
  const busyS = (end.busyTicks - start.busyTicks) / TICKS_PER_S;
  return {
    benchS,
    postgresS,
    otherS: Math.max(0, busyS - benchS - postgresS),
    capacityS: (os.cpus().length * (end.wallMs - start.wallMs)) / 1000,
  };
}
