// Builds every web app under web/<name>/ that has a vite.config.* into dist/web/<name>/, which
// the server serves (web/miniapp at /app). `npm start` runs it first (prestart) and the tests
// run it once per run (test/e2e/globalSetup.ts).
//
// An app is rebuilt only when its sources changed: a hash of its files, package-lock.json and
// this script is kept in dist/web/<name>/.source-hash. `--force` always builds.
// `--typecheck` runs `tsc --noEmit -p web/<name>` for each app instead (npm run check).

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const WEB = path.join(ROOT, 'web');
const CONFIGS = ['vite.config.ts', 'vite.config.mts', 'vite.config.js', 'vite.config.mjs'];

/** The apps: directories of web/ with a Vite config. */
export function webApps() {
  if (!existsSync(WEB)) return [];
  return readdirSync(WEB)
    .map((name) => ({ name, dir: path.join(WEB, name) }))
    .filter(({ dir }) => statSync(dir).isDirectory())
    .map((app) => ({ ...app, config: CONFIGS.map((c) => path.join(app.dir, c)).find((c) => existsSync(c)) }))
    .filter((app) => app.config !== undefined);
}

function filesOf(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.name !== 'node_modules' && !entry.name.startsWith('.'))
    .flatMap((entry) => {
      const full = path.join(dir, entry.name);
      return entry.isDirectory() ? filesOf(full) : [full];
    })
    .sort();
}

function sourceHash(app) {
  const hash = createHash('sha256');
  for (const file of [
    ...filesOf(app.dir),
    // Code both the server and the apps use (src/shared/money.ts), imported by relative path.
    ...filesOf(path.join(ROOT, 'src', 'shared')),
    path.join(ROOT, 'package-lock.json'),
    fileURLToPath(import.meta.url),
  ]) {
    hash.update(path.relative(ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

/** Builds the apps whose sources changed (all with `force`); returns the names built. */
export async function buildWebApps({ force = false, log = console.log } = {}) {
  const built = [];
  for (const app of webApps()) {
    const outDir = path.join(ROOT, 'dist', 'web', app.name);
    const stamp = path.join(outDir, '.source-hash');
    const hash = sourceHash(app);
    if (!force && existsSync(stamp) && readFileSync(stamp, 'utf8') === hash) continue;
    log(`Building web/${app.name} into dist/web/${app.name}`);
    const { build } = await import('vite');
    // Always React's production build, as people get it: Vite takes the build's NODE_ENV from the
    // environment when it is set, and under the test runner it is "test", which built React's
    // development code (slower, and StrictMode ran every effect twice), so the e2e tests drove
    // a different app than `npm start` serves; and a dist/ built by the tests was then served.
    const nodeEnv = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    try {
      await build({
        configFile: app.config,
        root: app.dir,
        mode: 'production',
        logLevel: 'warn',
        build: { outDir, emptyOutDir: true },
      });
    } finally {
      if (nodeEnv === undefined) delete process.env.NODE_ENV;
      else process.env.NODE_ENV = nodeEnv;
    }
    writeFileSync(stamp, hash);
    built.push(app.name);
  }
  return built;
}

function typecheck() {
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  for (const app of webApps()) {
    execFileSync(process.execPath, [tsc, '--noEmit', '-p', app.dir], { stdio: 'inherit' });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--typecheck')) typecheck();
  else await buildWebApps({ force: process.argv.includes('--force') });
}
