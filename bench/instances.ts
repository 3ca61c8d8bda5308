/**
 * Several instances against one (issue 26): the built server (`node <build>/main.js`) as 1 and
 * then 3 child processes on one PostgreSQL database and one Redis, the same autocannon load
 * spread over them round-robin (connection i goes to instance i mod n, as an L4 balancer does),
 * and the CPU each configuration spends per request: the instances' own (from /proc), PostgreSQL's
 * backends and Redis's. On 2 cores three instances cannot be three times faster; the question is
 * what a request costs with three and where the difference goes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Address, toNano } from '@ton/core';
import { keyPairFromSeed, mnemonicNew } from '@ton/crypto';
import { WalletContractV4 } from '@ton/ton';
import { RATE_LIMIT_MAX } from '../src/config.js';
import { serverBuild } from '../test/helpers/cluster.js';
import { type FakeToncenter, startFakeToncenter } from '../test/helpers/fakeToncenter.js';
import { dropPrefix } from '../test/helpers/redis.js';
import { replaceSection } from './document.js';
import { call, TASK_BODY } from './fixtures.js';
import { type Measurement, measure, type Scenario } from './load.js';
import { createBenchSchema, databaseName, dropBenchSchema } from './postgres.js';
import { markdownTable } from './report.js';
import type { Results } from './scenarios.js';
import type { BenchSettings } from './settings.js';

export const INSTANCE_COUNTS = [1, 3] as const;
const REDIS_URL = process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379/0';
const TICKS_PER_S = 100;
const START_TIMEOUT_MS = 120_000;
const IDLE_SAMPLE_MS = 5_000;

export interface InstancesMeasurement extends Measurement {
  instances: number;
  /** CPU seconds of the instances (all their threads) during the measured run. */
  serverCpuS: number;
  /** CPU seconds of the Redis server (shared: other clients' work included). */
  redisCpuS: number;
  /** CPU milliseconds per second the instances spend with no request (background jobs polling). */
  idleCpuMsPerS: number;
}

/** Seconds the whole part takes at most: two start-ups and four measured scenarios. */
export function instancesBudgetS(s: BenchSettings): number {
  return 2 * 60 + INSTANCE_COUNTS.length * 2 * (s.warmupS + s.durationS + s.requestTimeoutS);
}

/** A process's user + system CPU ticks (all threads), 0 once it is gone. */
function ticksOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(rest[11]) + Number(rest[12]);
  } catch {
    return 0;
  }
}

/** The Redis server's pid on this machine, if it runs here. */
function redisPid(): number | null {
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'redis-server') return Number(pid);
    } catch {}
  }
  return null;
}

interface Running {
  url: string;
  child: ChildProcess;
}

/** One instance; its JSON log goes to a file (read for the listening line), not through a pipe. */
async function startOne(main: string, env: Record<string, string>, logFile: string): Promise<Running> {
  const fd = openSync(logFile, 'w');
  const child = spawn(process.execPath, [main], {
    env: { ...process.env, ...env },
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  const started = Date.now();
  while (Date.now() - started < START_TIMEOUT_MS) {
    const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(readFileSync(logFile, 'utf8'));
    if (match) return { url: match[1]!, child };
    if (child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`an instance did not start:\n${readFileSync(logFile, 'utf8').slice(-2000)}`);
}

async function stopAll(running: Running[]): Promise<void> {
  await Promise.all(
    running.map(
      ({ child }) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        }),
    ),
  );
}

/** An agent funded by a deposit the chain watcher saw, and one task of it to read back. */
async function fixture(url: string, adminToken: string, chain: FakeToncenter) {
  const admin = { authorization: `Bearer ${adminToken}` };
  const made = await call(url, 'POST', '/admin/agents', admin, { name: 'Bench agent' }, 201);
  const authorization = `Bearer ${made.apiKey as string}`;
  const how = await call(url, 'GET', '/agents/me/deposit', { authorization }, undefined, 200);
  await chain.sendFromFaucet(Address.parse(how.address as string), toNano('1000000'), how.memo as string);
  for (let i = 0; i < 600; i++) {
    const me = await call(url, 'GET', '/agents/me', { authorization }, undefined, 200);
    if ((me.agent as { balance: string }).balance !== '0') break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const task = await call(url, 'POST', '/tasks', { authorization }, TASK_BODY, 201);
  return { authorization, taskId: (task.task as { id: string }).id };
}

/** Runs the scenarios on 1 and then 3 instances; each configuration on a fresh schema. */
export async function benchInstances(
  settings: BenchSettings,
  results: Results,
  log: (message: string) => void,
): Promise<void> {
  const main = await serverBuild();
  const chain = await startFakeToncenter({ blockMs: 50 });
  // A multiple of every instance count, so each instance gets the same number of connections.
  const connections = Math.max(3, Math.floor(settings.connections / 3) * 3);
  const redis = redisPid();
  try {
    for (const count of INSTANCE_COUNTS) {
      const schema = await createBenchSchema(settings.postgresUrl);
      const dir = mkdtempSync(path.join(os.tmpdir(), 'handoff-bench-instances-'));
      const url = new URL(settings.postgresUrl);
      url.searchParams.set('options', `-c search_path=${schema}`);
      const adminToken = randomBytes(16).toString('hex');
      const env = instanceEnv(url.toString(), adminToken, chain, await mnemonicNew());
      let running: Running[] = [];
      try {
        log(`${count} instance(s) on PostgreSQL and Redis: starting`);
        running = await Promise.all(
          Array.from({ length: count }, (_, i) =>
            startOne(
              main,
              { ...env, INSTANCE_ID: `bench${i}`, DATA_DIR: path.join(dir, `i${i}`) },
              path.join(dir, `i${i}.log`),
            ),
          ),
        );
        const { authorization, taskId } = await fixture(running[0]!.url, adminToken, chain);
        // What the instances spend with no request at all: their background jobs polling.
        const pids = running.map((r) => r.child.pid!);
        const idleStart = pids.reduce((sum, pid) => sum + ticksOf(pid), 0);
        await new Promise((resolve) => setTimeout(resolve, IDLE_SAMPLE_MS));
        const idleCpuMsPerS =
          ((pids.reduce((sum, pid) => sum + ticksOf(pid), 0) - idleStart) * (1000 / TICKS_PER_S)) /
          (IDLE_SAMPLE_MS / 1000);
        const common = {
          database: 'postgres',
          baseUrl: running[0]!.url,
          urls: running.map((r) => r.url),
          headers: { authorization },
          postgresDatabase: databaseName(settings.postgresUrl),
        };
        const scenarios: Scenario[] = [
          { ...common, name: 'GET /tasks/:id', method: 'GET', path: `/tasks/${taskId}`, expectStatus: 200 },
          {
            ...common,
            name: 'POST /tasks',
            method: 'POST',
            path: '/tasks',
            body: TASK_BODY,
            expectStatus: 201,
          },
        ];
        for (const scenario of scenarios) {
          log(`${count} instance(s): ${scenario.name}`);
          const cpu = () => ({
            server: pids.reduce((sum, pid) => sum + ticksOf(pid), 0),
            redis: redis ? ticksOf(redis) : 0,
          });
          let before = cpu();
          const measured = await measure(scenario, { ...settings, connections }, () => {
            before = cpu();
          });
          const after = cpu();
          results.instances.push({
            ...measured,
            instances: count,
            serverCpuS: (after.server - before.server) / TICKS_PER_S,
            redisCpuS: (after.redis - before.redis) / TICKS_PER_S,
            idleCpuMsPerS,
          });
        }
      } finally {
        await stopAll(running);
        await dropPrefix(env.REDIS_PREFIX, REDIS_URL);
        rmSync(dir, { recursive: true, force: true });
        await dropBenchSchema(settings.postgresUrl, schema);
      }
    }
  } finally {
    await chain.close();
  }
}

/** What every instance runs with: the production profile, with limits out of the way. */
function instanceEnv(databaseUrl: string, adminToken: string, chain: FakeToncenter, mnemonic: string[]) {
  const fee = WalletContractV4.create({
    workchain: 0,
    publicKey: keyPairFromSeed(randomBytes(32)).publicKey,
  });
  return {
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'info',
    DATABASE_URL: databaseUrl,
    REDIS_URL,
    REDIS_PREFIX: `bench-${randomBytes(4).toString('hex')}:`,
    ADMIN_TOKEN: adminToken,
    SECRET_KEY: randomBytes(32).toString('hex'),
    // No TELEGRAM_BOT_TOKEN: each instance generates one and runs without a bot (as bench/servers.ts).
    TON_NETWORK: 'testnet',
    TON_API_URL: chain.url,
    TON_API_RPS: '1000',
    TON_POLL_MS: '1000',
    TON_WALLET_MNEMONIC: mnemonic.join(' '),
    TON_FEE_ADDRESS: fee.address.toString(),
    RATE_LIMIT_STANDARD: String(RATE_LIMIT_MAX),
    HTTP_MAX_CONNECTIONS_PER_CLIENT: '100000',
  };
}

export const INSTANCE_HEADERS = [
  'Scenario',
  'Instances',
  'Req/s (avg)',
  'p50 ms',
  'p99 ms',
  'Requests',
  'Errors',
  'Instances CPU ms/req',
  'PostgreSQL CPU ms/req',
  'Redis CPU ms/req',
  'Idle instances CPU ms/s',
];

export function instanceCells(m: InstancesMeasurement): string[] {
  const perRequest = (s: number) => ((s * 1000) / Math.max(1, m.totalRequests)).toFixed(3);
  return [
    m.scenario,
    String(m.instances),
    m.requestsPerSecond.toFixed(0),
    m.latencyP50Ms < 1 ? '<1' : String(Math.round(m.latencyP50Ms)),
    String(Math.round(m.latencyP99Ms)),
    String(m.totalRequests),
    String(m.errors),
    perRequest(m.serverCpuS),
    perRequest(m.cpu?.postgresS ?? 0),
    perRequest(m.redisCpuS),
    m.idleCpuMsPerS.toFixed(0),
  ];
}

export function instancesTable(rows: InstancesMeasurement[]): string {
  return markdownTable(INSTANCE_HEADERS, rows.map(instanceCells));
}

const SECTION = '### Several instances: 3 against 1 on PostgreSQL and Redis';

/**
 * The section of docs/benchmarks.md: the table, how it was measured, and what the machine allows.
 * `machine` is report.ts's one-line description.
 */
export function instancesSection(
  rows: InstancesMeasurement[],
  s: BenchSettings,
  machine: string,
  loadAverage: { before: number; after: number },
): string {
  const rate = (scenario: string, n: number) =>
    rows.find((r) => r.scenario === scenario && r.instances === n)?.requestsPerSecond ?? 0;
  const cpu = (scenario: string, n: number) => {
    const r = rows.find((m) => m.scenario === scenario && m.instances === n);
    return r ? (r.serverCpuS * 1000) / Math.max(1, r.totalRequests) : 0;
  };
  const ratio = (scenario: string) => {
    const one = rate(scenario, 1);
    return one ? (rate(scenario, 3) / one).toFixed(2) : '-';
  };
  const cpuRatio = (scenario: string) => {
    const one = cpu(scenario, 1);
    return one ? (cpu(scenario, 3) / one).toFixed(2) : '-';
  };
  return `${SECTION}

${instancesTable(rows)}

Three instances served GET /tasks/:id at ${ratio('GET /tasks/:id')}x and POST /tasks at
${ratio('POST /tasks')}x the rate of one, spending ${cpuRatio('GET /tasks/:id')}x and
${cpuRatio('POST /tasks')}x the instances' CPU per request. Machine: ${machine}; its 1-minute
load average was ${loadAverage.before.toFixed(1)} before and ${loadAverage.after.toFixed(1)} after (other work on the same 2 cores:
above 2, every process here waited for a core, and rates and latencies say more about that
than about the app; CPU per request much less so).

Method (bench/instances.ts, \`BENCH_ONLY=instances npm run bench\` rewrites this section alone):
the server built by \`tsc -p tsconfig.build.json\` runs as 1, then 3, child processes
(\`node main.js\`, logging at info to a file, as deployed) on a fresh schema of the bench database
each time, with \`REDIS_URL\` set in both cases (limits and fan-out through Redis), TON testnet
against the toncenter fake in the bench process (the chain lease keeps its watcher on one
instance), and the per-key limits raised to the maximum. One agent is funded by an on-chain
deposit; autocannon holds ${Math.floor(s.connections / 3) * 3} keep-alive connections spread round-robin over the
instances (connection i to instance i mod n, as a layer-4 balancer does), ${s.warmupS} s warm-up, then
${s.durationS} s measured. CPU ms/req is CPU time over the measured run divided by the requests completed:
the instances' processes (/proc, all threads), the PostgreSQL backends of the bench database, and
the Redis server (shared with whatever else uses it on this machine). Idle CPU is what the
instances together spend in ${IDLE_SAMPLE_MS / 1000} s without requests before the runs (each polls the outbox, deadlines
and its lease; the lease holder polls the chain provider): with three instances, three times that
is spent whatever the load, and it is inside their CPU per request.

What limits it here: the machine has ${os.cpus().length} cores, and the load generator, PostgreSQL and
Redis already share them with one instance, which alone can keep a core busy; a second and a third
instance add no core, only processes competing for the same two. Each instance sees a third of
the requests, so each event-loop turn batches fewer answers and fewer commits (the app groups the
writes of one turn), three connection pools hold three times the PostgreSQL backends, and each
instance's caches (API keys, JIT) warm up separately. Instances scale out across machines; on one
2-core machine the numbers above are the cost per request of running three, not a capacity.
`;
}

/** Puts `section` in place of the file's previous one (or before "## Machine"): a partial run's update. */
export function replaceInstancesSection(file: string, section: string): void {
  replaceSection(file, SECTION, section);
}
