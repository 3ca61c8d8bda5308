import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CpuSplit, finishCpuSample, startCpuSample } from './cpu.js';
import type { BenchSettings } from './settings.js';

const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'pgbench-create-task.sql');

export interface PgbenchMeasurement {
  /** Transactions per second, as pgbench reports it (without the initial connection time). */
  tps: number;
  latencyAvgMs: number;
  transactions: number;
  failed: number;
  cpu: CpuSplit | null;
}

/**
 * PostgreSQL's own ceiling for what POST /tasks commits: pgbench runs the same transaction
 * (bench/pgbench-create-task.sql) on the app's schema and agent, with as many clients as the
 * request scenarios have connections, for a warm-up and then the measured duration. The pgbench
 * binary comes from Debian's postgresql-client; the run is bounded by -T and a kill time-out.
 */
export async function measurePgbench(
  settings: BenchSettings,
  schema: string,
  agentId: string,
  postgresDatabase: string,
): Promise<PgbenchMeasurement> {
  await pgbench(settings, schema, agentId, settings.warmupS);
  const cpuStart = startCpuSample(postgresDatabase);
  const output = await pgbench(settings, schema, agentId, settings.durationS);
  const cpu = finishCpuSample(cpuStart);
  const number = (pattern: RegExp) => Number(pattern.exec(output)?.[1] ?? Number.NaN);
  const tps = number(/tps = ([\d.]+) \(without initial connection time\)/);
  if (!Number.isFinite(tps)) throw new Error(`pgbench printed no rate: ${output.slice(-500)}`);
  return {
    tps,
    latencyAvgMs: number(/latency average = ([\d.]+) ms/),
    transactions: number(/number of transactions actually processed: (\d+)/),
    failed: number(/number of failed transactions: (\d+)/) || 0,
    cpu,
  };
}

function pgbench(settings: BenchSettings, schema: string, agentId: string, durationS: number) {
  const args = [
    '--no-vacuum',
    '--protocol=extended',
    `--client=${settings.connections}`,
    '--jobs=2',
    `--time=${durationS}`,
    `--file=${SCRIPT}`,
    `--define=agent=${agentId}`,
    `--define=now=${new Date().toISOString()}`,
    `--define=data=${JSON.stringify({ taskId: 'tsk_pgbench', deposit: { amount: '0.65', txHash: null, currency: 'TON' } })}`,
    settings.postgresUrl,
  ];
  return new Promise<string>((resolve, reject) => {
    execFile(
      'pgbench',
      args,
      {
        env: { ...process.env, PGOPTIONS: `-c search_path=${schema}` },
        timeout: (durationS + 30) * 1000,
        maxBuffer: 1024 * 1024,
      },
      (error, stdout, stderr) => {
        if (error) {
          const last = stderr.trim().split('\n').slice(-2).join(' | ');
          reject(new Error(`pgbench failed (${error.code ?? error.signal}): ${last}`));
        } else resolve(stdout);
      },
    );
  });
}
