import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from '../helpers/agentApi.js';
import { runExampleAgent } from '../helpers/exampleAgent.js';
import { launch, isAlive as processAlive, refused } from '../helpers/launch.js';
import { connectHttp, REQUIRED_TOOLS, runWholeTask, toolError } from '../helpers/mcp.js';
import { expectStatus, newAgent, newWorker, send, serviceAt } from '../helpers/service.js';
import { serviceDatabase } from '../helpers/serviceProcess.js';

/**
 * The production build, for real: `npm run build`, then `node dist/main.js` (what
 * `npm run start:prod` runs) as a child process on an ephemeral port. The "Try it" blocks of
 * docs/agents.md run against it, a SIGTERM under load loses nothing that was answered 2xx, and startup
 * failures print one line and exit non-zero.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

interface Server {
  url: string;
  child: ChildProcess;
  dataDir: string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** A fresh PostgreSQL schema when the suite runs on PostgreSQL, else the SQLite default. */
/** A "Try it" step's line `a.b=v  c=w` as {"a.b": "v", c: "w"}. */
type Shown = Record<string, string>;
function shownLines(output: string): Shown[] {
  return output
    .trim()
    .split('\n')
    .map((line) =>
      Object.fromEntries(
        line.split('  ').map((part) => [part.split('=')[0]!, part.slice(part.indexOf('=') + 1)]),
      ),
    );
}

async function databaseEnv(): Promise<Record<string, string>> {
  return (await serviceDatabase('p')).env;
}

function spawnServer(env: Record<string, string>): Omit<Server, 'url'> & { output: () => string } {
  const dataDir = env.DATA_DIR ?? mkdtempSync(path.join(os.tmpdir(), 'handoff-prod-'));
  const { DATABASE_URL: _ignored, ...inherited } = process.env;
  const child = spawn(process.execPath, ['dist/main.js'], {
    cwd: ROOT,
    env: { ...inherited, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d;
  });
  child.stderr!.on('data', (d: Buffer) => {
    err += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, dataDir, exited, stderr: () => err, output: () => out };
}

async function startServer(env: Record<string, string> = {}): Promise<Server> {
  const server = spawnServer({ RATE_LIMIT_STANDARD: '100000', ...env });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(server.output());
      if (match) {
        clearInterval(timer);
        resolve(match[1]!);
      }
    }, 100);
    void server.exited.then((code) => {
      clearInterval(timer);
      reject(new Error(`server exited with ${code}: ${server.stderr()}`));
    });
  });
  return { ...server, url };
}

async function stop(server: Server): Promise<number | null> {
  server.child.kill('SIGTERM');
  return server.exited;
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function childPids(pid: number): Promise<number[]> {
  const { stdout } = await run('ps', ['-o', 'pid=', '--ppid', String(pid)]).catch(() => ({ stdout: '' }));
  return stdout
    .split('\n')
    .map((l) => Number(l.trim()))
    .filter((n) => n > 0);
}

async function api(
  server: Server,
  method: string,
  url: string,
  headers: Record<string, string>,
  body?: unknown,
) {
  const res = await fetch(`${server.url}${url}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, json: (await res.json()) as Json };
}

const adminOf = (server: Server) => ({
  authorization: `Bearer ${readFileSync(path.join(server.dataDir, 'secrets', 'ADMIN_TOKEN'), 'utf8').trim()}`,
});

describe('the production build', () => {
  beforeAll(() => {
    execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
  }, 600_000);

  describe('serving', () => {
    let server: Server;
    beforeAll(async () => {
      server = await startServer(await databaseEnv());
    }, 120_000);
    afterAll(async () => {
      await stop(server);
      rmSync(server.dataDir, { recursive: true, force: true });
    });

    it('runs the "Try it" blocks of docs/agents.md from zero to submitted work, its approval and a paid worker', async () => {
      const page = readFileSync(path.join(ROOT, 'docs/agents.md'), 'utf8');
      const block = /<!-- try-it:[^>]*-->\s*```sh\n([\s\S]*?)```/.exec(page)?.[1];
      expect(block, 'docs/agents.md keeps its Try it block').toBeDefined();
      // "Try it in USDT" goes on in the same shell (the same agent and worker).
      const usdtBlock = /<!-- try-it-usdt[^>]*-->\s*```sh\n([\s\S]*?)```/.exec(page)?.[1];
      expect(usdtBlock, 'docs/agents.md keeps its Try it in USDT block').toBeDefined();
      const script = `${block}\necho '--- USDT ---'\n${usdtBlock}`;
      const { stdout: both } = await run('bash', ['-euo', 'pipefail', '-c', script], {
        cwd: ROOT,
        env: { ...process.env, BASE: server.url, DATA_DIR: server.dataDir },
        timeout: 240_000,
      });
      const [ton, usdt] = both.split('--- USDT ---\n').map(shownLines) as [Shown[], Shown[]];
      // What a reader sees: the parts each step shows, exactly.
      expect(ton.find((l) => 'task.totalAmount' in l)).toMatchObject({
        'task.status': 'FUNDED',
        'task.reward': '6.5',
        'task.platformFee': '1.95',
        'task.totalAmount': '8.45',
        'task.currency': 'TON',
      });
      // Issue 25: the work was submitted with its photo and place, then approved by completing.
      expect(ton.find((l) => 'submissions.*.status' in l)).toEqual({
        'submissions.*.number': '1',
        'submissions.*.status': 'PENDING',
        'submissions.*.attachments.*.name': 'town-hall.jpg',
      });
      const completed = ton.find((l) => 'payment.txHash' in l)!;
      expect(completed).toMatchObject({
        'task.status': 'COMPLETED',
        'task.paymentStatus': 'RELEASED',
        'payment.amount': '6.5',
        'payment.currency': 'TON',
        'payment.toAddress': '0QDgp1a0VXf9Lae2jNwtgzzf6FqokdOHSdlmYgdxlDqbVNfy',
        'payment.status': 'confirmed',
        'fee.amount': '1.95',
      });
      expect(completed['payment.txHash']).toMatch(/^[0-9a-f]{64}$/);
      expect(ton.find((l) => 'transactions.*.type' in l)).toEqual({
        'transactions.*.type': 'FEE,PAYOUT,TASK_ESCROW,DEPOSIT',
        'transactions.*.amount': '1.95,6.5,8.45,100',
        'transactions.*.status': 'confirmed,confirmed,confirmed,confirmed',
      });
      expect(ton.at(-1)).toEqual({ 'agent.balance': '91.55' });
      // USDT: 50 from the faucet, 5 + 1.5 escrowed and paid as jettons, the TON balance unmoved.
      expect(usdt.find((l) => 'payment.amount' in l)).toEqual({
        'task.status': 'COMPLETED',
        'payment.amount': '5',
        'payment.currency': 'USDT',
        'payment.status': 'confirmed',
        'fee.amount': '1.5',
        'fee.currency': 'USDT',
      });
      const ledger = usdt.find((l) => 'transactions.*.currency' in l)!;
      expect(ledger['transactions.*.currency']).toBe('USDT,USDT,USDT,USDT,TON,TON,TON,TON');
      expect(ledger['transactions.*.status']).toBe(Array(8).fill('confirmed').join(','));
      expect(usdt.at(-2)).toEqual({
        'agent.balances.TON.balance': '91.55',
        'agent.balances.USDT.balance': '43.5',
      });
      expect(usdt.at(-1)).toEqual({ 'byCurrency.USDT.paid': '5', 'byCurrency.TON.paid': '6.5' });
    }, 300_000);

    it('the "Try it" helpers print a refused request\'s status and error body, and stop', async () => {
      const page = readFileSync(path.join(ROOT, 'docs/agents.md'), 'utf8');
      const helpers = /<!-- try-it:[^>]*-->\s*```sh\n([\s\S]*?)\n# 1\./.exec(page)?.[1];
      expect(helpers, 'the Try it block starts with its helpers').toBeDefined();
      const script = `${helpers}\napi POST /tasks -H "$ADMIN" -H "$JSON" -d '{}' | show task.id\necho unreachable`;
      const failed = await run('bash', ['-euo', 'pipefail', '-c', script], {
        cwd: ROOT,
        env: { ...process.env, BASE: server.url, DATA_DIR: server.dataDir },
      }).catch((error: { code: number; stdout: string; stderr: string }) => error);
      expect(failed).toMatchObject({ code: 1, stdout: '' });
      expect((failed as { stderr: string }).stderr).toMatch(/^POST \/tasks: 401 \{"error":"Unauthorized"/m);
    });

    // The end-to-end client tests, run in process elsewhere, against the build: the same code.
    it('runs the SDK example agent to a completed, paid task', async () => {
      await runExampleAgent(serviceAt(server.url, server.dataDir));
    }, 120_000);

    it('serves MCP over Streamable HTTP: a whole task through the tools; a wrong key is refused', async () => {
      const service = serviceAt(server.url, server.dataDir);
      const agent = await newAgent(service, { deposit: '100' });
      const seen: Headers[] = [];
      const client = await connectHttp(server.url, agent.apiKey, {
        headers: { 'x-request-id': 'dist-mcp-1' },
        onResponse: (response) => seen.push(response.headers),
      });
      try {
        const { tools } = await client.listTools();
        for (const name of REQUIRED_TOOLS) expect(tools.map((x) => x.name)).toContain(name);
        await runWholeTask(service, client, agent, await newWorker(service));
        const theirs = (
          await expectStatus(
            service,
            await newAgent(service, { deposit: '20' }),
            'POST',
            '/tasks',
            { title: 'Theirs', description: 'Not yours', reward: '1' },
            201,
          )
        ).task;
        const rest = await send(service, agent, 'GET', `/tasks/${theirs.id}`);
        expect(rest.status).toBe(403);
        expect(await toolError(client, 'get_task', { taskId: theirs.id })).toEqual({
          status: 403,
          ...rest.json,
        });
      } finally {
        await client.close();
      }
      for (const headers of seen) {
        expect(headers.get('x-request-id')).toBe('dist-mcp-1');
        expect(headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
      }
      await expect(connectHttp(server.url, `hr_${'x'.repeat(40)}`)).rejects.toMatchObject({
        code: 401,
        message: expect.stringMatching(/Bearer hr_/),
      });
    }, 120_000);

    it('answers with X-Request-Id (the caller’s when well-formed) and precise 401s', async () => {
      const mine = await api(server, 'GET', '/health', { 'x-request-id': 'trace-42.a' });
      expect(mine.headers.get('x-request-id')).toBe('trace-42.a');
      const bad = await api(server, 'GET', '/health', { 'x-request-id': 'no spaces allowed' });
      expect(bad.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{16}$/);
      const missing = await api(server, 'GET', '/agents/me', {});
      expect(missing.status).toBe(401);
      expect(missing.headers.get('x-request-id')).toMatch(/^req_/);
      expect(missing.json).toMatchObject({ error: 'Unauthorized', reason: 'missing' });
      const malformed = await api(server, 'GET', '/agents/me', { authorization: 'Bearer abc' });
      expect(malformed.json).toMatchObject({ error: 'Unauthorized', reason: 'malformed' });
      const unknown = await api(server, 'GET', '/agents/me', {
        authorization: `Bearer hr_${'0'.repeat(64)}`,
      });
      expect(unknown.json).toMatchObject({ error: 'Unauthorized', reason: 'unknown' });
      const docs = await fetch(`${server.url}/docs`);
      expect(docs.status).toBe(200);
      const spec = await api(server, 'GET', '/openapi.json', {});
      expect(spec.json.openapi).toBe('3.1.0');
    });
  });

  // Keep-alive connections answered after the close began used to hold it open until the forced
  // exit (seen on PostgreSQL, where requests are slower): see src/http/closing.ts.
  it('a SIGTERM under load loses no request answered 2xx and leaves no process behind', async () => {
    const env = await databaseEnv();
    const server = await startServer(env);
    const admin = adminOf(server);
    const created = await api(server, 'POST', '/admin/agents', admin, { name: 'load' });
    const agent = { authorization: `Bearer ${created.json.apiKey}` };
    const agentId = (created.json.agent as { id: string }).id;
    expect(
      (await api(server, 'POST', `/admin/agents/${agentId}/deposits`, admin, { amount: '1000' })).status,
    ).toBe(201);

    const body = { title: 'Load', description: 'Under SIGTERM', reward: '1' };
    let answered = 0;
    const requests = Array.from({ length: 150 }, async () => {
      try {
        const res = await api(server, 'POST', '/tasks', agent, body);
        answered++;
        return res;
      } catch {
        return null; // refused or cut: not answered, so not counted as a success
      }
    });
    while (answered < 10) await new Promise((r) => setTimeout(r, 5));
    expect(await childPids(server.child.pid!)).toEqual([]);
    server.child.kill('SIGTERM');
    const results = await Promise.all(requests);
    expect(await server.exited).toBe(0);
    expect(isAlive(server.child.pid!)).toBe(false);

    const ok = results.filter((r) => r?.status === 201).map((r) => (r!.json.task as { id: string }).id);
    for (const r of results) if (r) expect([201, 503]).toContain(r.status);
    expect(ok.length).toBeGreaterThanOrEqual(10);

    // Restarted on the same data: every task answered 201 is there, and the money adds up.
    const again = await startServer({ ...env, DATA_DIR: server.dataDir });
    try {
      for (const id of ok) expect((await api(again, 'GET', `/tasks/${id}`, agent)).status).toBe(200);
      const me = (await api(again, 'GET', '/agents/me', agent)).json.agent as {
        balance: string;
        lockedByTasks: string;
        taskCount: number;
      };
      expect(me.taskCount).toBe(ok.length);
      expect(Number(me.lockedByTasks)).toBeCloseTo(ok.length * 1.3, 6);
      expect(Number(me.balance)).toBeCloseTo(1000 - ok.length * 1.3, 6);
    } finally {
      await stop(again);
      rmSync(server.dataDir, { recursive: true, force: true });
    }
  }, 300_000);

  // npm runs a script through `sh -c`, which did not pass npm's SIGTERM on: the server outlived
  // npm. The script execs node, so npm's child is the server itself.
  it('npm run start:prod: a SIGTERM sent to npm stops the server, which exits cleanly', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'handoff-prod-'));
    const npm = await launch('npm', ['run', 'start:prod'], {
      ...(await databaseEnv()),
      DATA_DIR: dataDir,
      RATE_LIMIT_STANDARD: '100000',
    });
    try {
      expect(npm.serverPid).not.toBe(npm.child.pid);
      expect((await fetch(`${npm.url}/ready`)).status).toBe(200);
      npm.child.kill('SIGTERM'); // to npm only, as a process manager does
      expect(await npm.exited).toEqual({ code: 0, signal: null });
      expect(processAlive(npm.serverPid), 'the server outlived npm').toBe(false);
      expect(npm.output()).toContain('"msg":"Closed cleanly"');
      expect(await refused(npm.url)).toBe(true);
    } finally {
      await npm.kill();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  describe('startup errors: one line that says what to do, and a non-zero exit', () => {
    async function failedStart(env: Record<string, string>) {
      const server = spawnServer(env);
      const code = await server.exited;
      rmSync(server.dataDir, { recursive: true, force: true });
      return { code, lines: server.stderr().trim().split('\n') };
    }

    it('a port in use', async () => {
      const blocker = net.createServer();
      await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
      const port = (blocker.address() as net.AddressInfo).port;
      try {
        const { code, lines } = await failedStart({ PORT: String(port) });
        expect(code).toBe(1);
        expect(lines).toEqual([
          `Handoff could not start: port ${port} is in use. Stop the other process or set PORT to a free port.`,
        ]);
      } finally {
        blocker.close();
      }
    }, 120_000);

    it('an unreachable database', async () => {
      const { code, lines } = await failedStart({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/handoff' });
      expect(code).toBe(1);
      expect(lines).toEqual([
        'Handoff could not start: cannot reach the database at 127.0.0.1:1 (ECONNREFUSED). Start PostgreSQL or fix DATABASE_URL.',
      ]);
    }, 120_000);

    it('a bad setting', async () => {
      const { code, lines } = await failedStart({ RATE_LIMIT_CHAT: 'lots' });
      expect(code).toBe(1);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^Handoff could not start: RATE_LIMIT_CHAT must be an integer/);
    }, 120_000);
  });
});
