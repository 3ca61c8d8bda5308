import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';

/**
 * The service started as operators start it (`npm start`, `npm run start:prod`, `node ...`), as
 * a child process whose output is kept, so a test can signal it (or npm in front of it) and check
 * what is left running.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface Spawned {
  child: ChildProcess;
  /** stdout and stderr together, as received. */
  output(): string;
  exited: Promise<Exit>;
}

export interface Launched extends Spawned {
  url: string;
  /** The server's own process, from its log line: npm's grandchild under `npm start`. */
  serverPid: number;
  /** Kills whatever is still running of it, by the pids it started (a failing test's leftovers). */
  kill(): Promise<void>;
}

export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Runs `command` in the repository on loopback and an ephemeral port; `env` adds or overrides. */
export function spawnLogged(command: string, args: string[], env: Record<string, string>): Spawned {
  const { DATABASE_URL: _inherited, ...inherited } = process.env;
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...inherited, NODE_ENV: 'development', LOG_LEVEL: 'info', HOST: '127.0.0.1', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d;
  });
  child.stderr!.on('data', (d: Buffer) => {
    out += d;
  });
  const exited = new Promise<Exit>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, exited, output: () => out };
}

/** Starts `command` and waits for the server's "listening" log line, which names its pid. */
export async function launch(
  command: string,
  args: string[],
  env: Record<string, string>,
): Promise<Launched> {
  const started = spawnLogged(command, args, env);
  const found = await new Promise<{ url: string; pid: number }>((resolve, reject) => {
    const timer = setInterval(() => {
      const line = started
        .output()
        .split('\n')
        .find((l) => l.includes('Server listening at'));
      if (line) {
        clearInterval(timer);
        const entry = JSON.parse(line) as { pid: number; msg: string };
        resolve({ url: /http:\/\/127\.0\.0\.1:\d+/.exec(entry.msg)![0], pid: entry.pid });
      }
    }, 50);
    void started.exited.then((how) => {
      clearInterval(timer);
      reject(new Error(`ended (${JSON.stringify(how)}) before listening:\n${started.output()}`));
    });
  });
  return {
    ...started,
    url: found.url,
    serverPid: found.pid,
    async kill() {
      if (isAlive(found.pid)) process.kill(found.pid, 'SIGKILL');
      if (started.child.exitCode === null && started.child.signalCode === null) started.child.kill('SIGKILL');
      await started.exited;
    },
  };
}

/** Whether a new connection to `url` is refused (the server stopped listening). */
export async function refused(url: string): Promise<boolean> {
  try {
    await fetch(`${url}/health`);
    return false;
  } catch (error) {
    return (error as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED';
  }
}
