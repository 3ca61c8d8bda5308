import { type ChildProcess, spawn } from 'node:child_process';
import { expect } from 'vitest';

/**
 * The real service as a child process (`node --import tsx src/main.ts`), so a test can SIGKILL it
 * and start it again on the same database.
 */
export interface ServiceProcess {
  url: string;
  child: ChildProcess;
  /** Resolves with the signal or exit code when the process ends. */
  exited: Promise<string>;
  output(): string;
  stop(): Promise<void>;
}

export async function startService(env: Record<string, string>): Promise<ServiceProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: process.cwd(),
    env: { ...process.env, NODE_ENV: 'development', LOG_LEVEL: 'info', HOST: '127.0.0.1', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<string>((resolve) => {
    child.on('exit', (code, signal) => resolve(signal ?? `exit ${code}`));
  });
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match) resolve(match[1]!);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((how) => reject(new Error(`the service ended (${how}) before listening:\n${out}`)));
  });
  return {
    url,
    child,
    exited,
    output: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Polls `check` until it holds (bounded); a bug fails the test instead of hanging it. */
export async function eventually(check: () => Promise<boolean>, what: string, maxTries = 300): Promise<void> {
  for (let i = 0; i < maxTries; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(await check(), `never happened: ${what}`).toBe(true);
}
