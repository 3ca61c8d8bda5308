import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { type Launched, launch } from './launch.js';

/**
 * Several built instances (`node <build>/main.js`) as child processes, and a client that spreads
 * requests over them as a load balancer would. The proof test (test/prod/instances.test.ts) and
 * the benchmark (bench/instances.ts) run on it. Nothing here imports vitest.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const CACHE = path.join(ROOT, 'node_modules', '.cache', 'handoff-server-build');

/** Every file tsc reads for the server build, for the cache key. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}

/**
 * The server compiled by `tsc -p tsconfig.build.json` (what `npm run build` does first, without
 * the web apps), into a directory named by a hash of the sources: built once, reused while src/
 * is unchanged. Not dist/, which the production-build test deletes and rebuilds while it runs.
 * Resolves to the path of main.js.
 */
export async function serverBuild(): Promise<string> {
  const hash = createHash('sha256');
  for (const file of [
    ...sourceFiles(path.join(ROOT, 'src')),
    path.join(ROOT, 'tsconfig.json'),
    path.join(ROOT, 'tsconfig.build.json'),
  ]) {
    hash.update(path.relative(ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  const dir = path.join(CACHE, hash.digest('hex').slice(0, 16));
  const main = path.join(dir, 'main.js');
  mkdirSync(CACHE, { recursive: true });
  // The build finds the files it ships beside src/ (config/screening-rules.json) one level above
  // its own directory, as dist/ finds them in the repository: CACHE/config is the repository's.
  const config = path.join(CACHE, 'config');
  if (!existsSync(config)) {
    try {
      symlinkSync(path.join(ROOT, 'config'), config, 'dir');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error; // a concurrent run made it
    }
  }
  if (existsSync(main)) return main;
  // Built aside and renamed when complete, so a concurrent run never starts half a build.
  const partial = `${dir}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  // Asynchronous: a test worker blocked for half a minute misses its runner's heartbeats.
  await promisify(execFile)(
    process.execPath,
    [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', partial],
    { cwd: ROOT },
  );
  try {
    renameSync(partial, dir);
  } catch {
    rmSync(partial, { recursive: true, force: true }); // another run finished first: use its build
  }
  // Builds of older sources are not needed again; one of the last hour may still be running.
  for (const entry of readdirSync(CACHE)) {
    const other = path.join(CACHE, entry);
    if (other !== dir && other !== config && Date.now() - statSync(other).mtimeMs > 3_600_000) {
      rmSync(other, { recursive: true, force: true });
    }
  }
  return main;
}

export interface Instance extends Launched {
  name: string;
  env: Record<string, string>;
}

/** Starts one instance of the build with `env` (PORT 0, loopback, JSON logs at info). */
export async function startInstance(
  main: string,
  name: string,
  env: Record<string, string>,
): Promise<Instance> {
  const launched = await launch(process.execPath, [main], { INSTANCE_ID: name, ...env });
  return Object.assign(launched, { name, env });
}

/** Sends SIGTERM and waits for the exit; returns how it ended. */
export async function stopInstance(instance: Launched, signal: NodeJS.Signals = 'SIGTERM') {
  if (instance.child.exitCode === null && instance.child.signalCode === null) instance.child.kill(signal);
  return instance.exited;
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** Which instance answered. */
  url: string;
  /** Attempts refused by a stopping instance (503, connection refused or reset) before this one. */
  retries: number;
}

/**
 * A client behind a round-robin load balancer: each request goes to the next instance of
 * `urls()` (read on every request, so a restarted instance's new port is picked up), and is sent
 * again to the next one when an instance refuses it while stopping, with 503 or a connection error.
 * Safe for writes only with an Idempotency-Key (a connection lost after the server acted would
 * otherwise run them twice).
 */
export class Balancer {
  private next = 0;

  constructor(
    private readonly urls: () => string[],
    private readonly maxAttempts = 20,
  ) {}

  async request(
    method: string,
    pathAndQuery: string,
    options: { headers?: Record<string, string>; body?: unknown } = {},
  ): Promise<Answer> {
    let lastError: unknown;
    for (let attempt = 0; attempt < this.maxAttempts; attempt++) {
      const urls = this.urls();
      const url = urls[this.next++ % urls.length]!;
      try {
        const res = await fetch(`${url}${pathAndQuery}`, {
          method,
          headers: {
            ...options.headers,
            ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body: options.body === undefined ? undefined : JSON.stringify(options.body),
          signal: AbortSignal.timeout(30_000),
        });
        const text = await res.text();
        if (res.status !== 503)
          return { status: res.status, headers: res.headers, text, url, retries: attempt };
        lastError = new Error(`503 from ${url}: ${text}`);
      } catch (error) {
        lastError = error;
      }
      // A short pause, as a balancer's retry would have, so the stopping instance can finish.
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`${method} ${pathAndQuery}: no instance answered in ${this.maxAttempts} attempts`, {
      cause: lastError,
    });
  }
}
