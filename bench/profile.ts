/**
 * `node --cpu-prof --import tsx bench/profile.ts <sqlite|postgres|bare|floor> [get|post] [seconds]`:
 * one request scenario of the bench against the real app (or the bare Fastify route), with the
 * bench's settings (BENCH_CONNECTIONS, 50 by default), so a CPU profile shows where a request's
 * time goes (`floor` is bench/floor.ts's route for POST, bench/readFloor.ts's for GET). Prints
 * autocannon's rate and latency, and the server thread's CPU per request (from /proc). Bounded
 * like the bench: at most 60 s of load, loopback only. The main thread's profile (the
 * *.0.001.cpuprofile file) is the server's.
 */
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { makeFixture } from './fixtures.js';
import { startFloor } from './floor.js';
import { measure, type Scenario } from './load.js';
import { createBenchSchema, dropBenchSchema, preparePostgres } from './postgres.js';
import { startReadFloor } from './readFloor.js';
import {
  bareScenario,
  floorScenario,
  getTask,
  measureAlone,
  postTasks,
  readFloorScenario,
} from './scenarios.js';
import { type RunningServer, startBaseline, startHandoff } from './servers.js';
import { readSettings } from './settings.js';

const [kind = 'sqlite', which = 'get', secondsArg = '10'] = process.argv.slice(2);
const settings = { ...readSettings(), durationS: Math.min(60, Math.max(1, Number(secondsArg) || 10)) };

type Measured = Awaited<ReturnType<typeof measure>> & { serverCpuUsPerRequest: number };

/** CPU seconds the main (server) thread has used, from /proc (Linux; NaN elsewhere). */
function mainThreadCpuS(): number {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime, fields 14 and 15 of stat(5), in USER_HZ (100 per second).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/**
 * The run, plus the server thread's CPU per request over warm-up and measurement: on a machine
 * that others load, rates fall with their load while this stays near what one request costs.
 */
async function measured(server: Server, run: () => ReturnType<typeof measure>): Promise<Measured> {
  let requests = 0;
  const count = () => requests++;
  server.on('request', count);
  const cpuBefore = mainThreadCpuS();
  const result = await run();
  const cpuS = mainThreadCpuS() - cpuBefore;
  server.off('request', count);
  return { ...result, serverCpuUsPerRequest: Math.round((cpuS * 1e6) / requests) };
}

async function profileApp(): Promise<Measured> {
  if (kind === 'postgres') await preparePostgres(settings.postgresUrl);
  const schema = kind === 'postgres' ? await createBenchSchema(settings.postgresUrl) : null;
  const server = await startHandoff(
    schema ? { kind: 'postgres', url: settings.postgresUrl, schema } : { kind: 'sqlite' },
  );
  try {
    const fixture = await makeFixture(server.baseUrl, server.adminToken);
    const common = {
      database: kind,
      baseUrl: server.baseUrl,
      headers: { authorization: fixture.authorization },
      postgresDatabase: null,
    };
    const scenario = which === 'post' ? postTasks(common) : getTask(common, fixture.taskId);
    return await measured(server.server, () => measure(scenario, settings));
  } finally {
    await server.close();
    if (schema) await dropBenchSchema(settings.postgresUrl, schema);
  }
}

/** The bare route or the floor: a server of its own, measured with its CPU. */
const profileAlone = (start: () => Promise<RunningServer>, scenarioOf: (baseUrl: string) => Scenario) =>
  measureAlone(start, scenarioOf, (server, scenario) =>
    measured(server.server, () => measure(scenario, settings)),
  );

(kind === 'bare'
  ? profileAlone(startBaseline, (baseUrl) => bareScenario(baseUrl, 'bare', '/'))
  : kind === 'floor'
    ? which === 'get'
      ? profileAlone(startReadFloor, readFloorScenario)
      : profileAlone(startFloor, floorScenario)
    : profileApp()
).then(
  (m) => {
    console.log(
      JSON.stringify({
        rps: m.requestsPerSecond,
        p50: m.latencyP50Ms,
        p99: m.latencyP99Ms,
        errors: m.errors,
        serverCpuUsPerRequest: m.serverCpuUsPerRequest,
      }),
    );
    process.exit(0);
  },
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
