import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createAgent } from '../helpers/fixtures.js';
import { listen } from '../helpers/mcp.js';

const run = promisify(execFile);
const SDK_DIR = path.resolve('sdk');

let t: TestApp;
let baseUrl: string;
let dir: string;
beforeAll(async () => {
  t = await createTestApp();
  baseUrl = await listen(t);
  dir = mkdtempSync(path.join(os.tmpdir(), 'handoff-sdk-pack-'));
});
afterAll(async () => {
  await t?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/**
 * What an agent developer outside the repository does: `npm pack` the SDK (its prepack builds
 * dist/), `npm install` the tarball into an empty project without network, and import it from plain
 * Node, no TypeScript loader, to call a running service as an agent and as a worker.
 * (--offline: its runtime dependency is packed from the repository's node_modules and installed
 * from that tarball, the way the registry would serve it.)
 */
it('npm pack, npm install the tarball offline, import from plain node and call the service', async () => {
  const packDir = path.join(dir, 'pack');
  const project = path.join(dir, 'project');
  for (const d of [packDir, project]) rmSync(d, { recursive: true, force: true });
  await run('mkdir', ['-p', packDir, project]);
  await run('npm', ['pack', '--pack-destination', packDir], { cwd: SDK_DIR, timeout: 240_000 });
  const [sdkTarball] = readdirSync(packDir).filter((f) => f.startsWith('handoff-sdk-'));
  expect(sdkTarball).toBeDefined();
  // Its one runtime dependency (and that one's), packed from the copies installed here, stand in
  // for the registry: the test needs no network.
  const deps = ['openapi-fetch', 'openapi-typescript-helpers'].map((name) =>
    path.resolve('node_modules', name),
  );
  await run('npm', ['pack', ...deps, '--pack-destination', packDir], { cwd: dir, timeout: 120_000 });

  writeFileSync(
    path.join(project, 'package.json'),
    JSON.stringify({ name: 'my-agent', private: true, type: 'module' }),
  );
  const tarballs = readdirSync(packDir).map((f) => path.join(packDir, f));
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', ...tarballs], {
    cwd: project,
    timeout: 240_000,
  });
  const agent = await createAgent(t, { deposit: '10' });
  writeFileSync(
    path.join(project, 'main.mjs'),
    `import { Handoff, HandoffWorker, unwrap } from '@handoff/sdk';
const [baseUrl, apiKey, botToken, authDate] = process.argv.slice(2);
const handoff = new Handoff({ baseUrl, apiKey });
const me = unwrap(await handoff.api.GET('/agents/me'));
const worker = HandoffWorker.fromBotToken({ baseUrl, botToken, user: { id: 42, first_name: 'Packed' }, authDate: new Date(authDate) });
const self = await worker.me();
console.log(JSON.stringify({ agentId: me.agent.id, balance: me.agent.balance, worker: self.firstName }));
`,
  );
  // Plain node, run from the project: what it imports is the installed tarball's dist/.
  const { stdout } = await run(
    process.execPath,
    ['main.mjs', baseUrl, agent.apiKey, t.config.telegramBotToken, t.clock.now().toISOString()],
    { cwd: project, timeout: 60_000 },
  );
  expect(JSON.parse(stdout)).toEqual({ agentId: agent.id, balance: '10', worker: 'Packed' });
  const installed = readdirSync(path.join(project, 'node_modules', '@handoff', 'sdk', 'dist'));
  expect(installed).toEqual(expect.arrayContaining(['index.js', 'index.d.ts', 'worker.js', 'worker.d.ts']));
}, 480_000); // tsc builds the SDK and npm installs twice on a busy 2-core machine
