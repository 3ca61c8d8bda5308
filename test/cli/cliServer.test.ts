import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');

/** A stand-in operator API that answers every request with `{ok: true}` and notes the paths. */
const seen: string[] = [];
const server = createServer((req, res) => {
  seen.push(req.url ?? '');
  res.setHeader('content-type', 'application/json');
  res.end('{"ok":true}');
});
let port: number;
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function cli(args: string[], env: Record<string, string>) {
  const clean = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ADMIN_TOKEN: 'test-token' };
  return run(TSX, ['src/cli.ts', ...args], { cwd: ROOT, env: { ...clean, ...env } }).catch(
    (error: { stdout: string; stderr: string; code: number }) => error,
  );
}

describe('the CLI says which server it talks to', () => {
  it('names the address and where it came from, on stderr, for each way of choosing it', async () => {
    const url = `http://127.0.0.1:${port}`;
    for (const [args, env, source] of [
      [['audit', '--url', url], {}, '--url'],
      [['audit'], { HANDOFF_URL: url }, 'HANDOFF_URL'],
      [['audit'], { PUBLIC_URL: `${url}/` }, 'PUBLIC_URL'],
    ] as const) {
      const { stdout, stderr } = await cli([...args], env);
      expect(stderr).toContain(`Operator API: ${url} (${source})`);
      expect(JSON.parse(stdout)).toEqual({ ok: true });
    }
    expect(seen).toEqual(['/admin/audit', '/admin/audit', '/admin/audit']);
  }, 60_000);

  it('without any setting it says it fell back to port 3000 and how to choose', async () => {
    const { stderr } = await cli(['agent', 'agt_x'], {});
    expect(stderr).toContain('Operator API: http://localhost:3000 (the default: set --url or HANDOFF_URL');
  }, 60_000);
});
