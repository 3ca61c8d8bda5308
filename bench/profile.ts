/**
 * `node --cpu-prof --import tsx bench/profile.ts <sqlite|postgres|bare> [get|post] [seconds]`:
 * one request scenario of the bench against the real app (or the bare Fastify route), with the
 * bench's settings (BENCH_CONNECTIONS, 50 by default), so a CPU profile shows where a request's
 * time goes. Prints autocannon's rate and latency. Bounded like the bench: at most 60 s of load,
 * loopback only. The main thread's profile (the *.0.001.cpuprofile file) is the server's.
 */
import { makeFixture } from './fixtures.js';
import { measure } from './load.js';
import { createBenchSchema, dropBenchSchema, preparePostgres } from './postgres.js';
import { getTask, postTasks } from './scenarios.js';
import { startBaseline, startHandoff } from './servers.js';
import { readSettings } from './settings.js';

const [kind = 'sqlite', which = 'get', secondsArg = '10'] = process.argv.slice(2);
const settings = { ...readSettings(), durationS: Math.min(60, Math.max(1, Number(secondsArg) || 10)) };

async function profileApp(): Promise<Awaited<ReturnType<typeof measure>>> {
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
    return await measure(which === 'post' ? postTasks(common) : getTask(common, fixture.taskId), settings);
  } finally {
    await server.close();
    if (schema) await dropBenchSchema(settings.postgresUrl, schema);
  }
}

async function profileBare(): Promise<Awaited<ReturnType<typeof measure>>> {
  const bare = await startBaseline();
  try {
    const scenario = { name: 'bare', database: 'none', baseUrl: bare.baseUrl, postgresDatabase: null };
    return await measure({ ...scenario, method: 'GET', path: '/', headers: {}, expectStatus: 200 }, settings);
  } finally {
    await bare.close();
  }
}

(kind === 'bare' ? profileBare() : profileApp()).then(
  (m) => {
    console.log(
      JSON.stringify({
        rps: m.requestsPerSecond,
        p50: m.latencyP50Ms,
        p99: m.latencyP99Ms,
        errors: m.errors,
      }),
    );
    process.exit(0);
  },
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
