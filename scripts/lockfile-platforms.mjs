// Adds the other platforms' optional binary packages (biome, rollup, ...) to package-lock.json.
//
// Why: the npm registry reachable from our machines answers 404 for packages built for other
// platforms, so `npm install` leaves them out of the lockfile, and `npm ci` then refuses the
// lockfile as out of sync with package.json. Each entry added here carries the package's os,
// cpu and libc, so npm ci accepts the lockfile and skips (never downloads) what does not fit
// this machine. Run it after any `npm install` that changes the lockfile:
//   node scripts/lockfile-platforms.mjs
// `npm run check` runs it with --check, which changes nothing and fails if entries are missing.
import { readFileSync, writeFileSync } from 'node:fs';

const OS = [
  'android',
  'darwin',
  'freebsd',
  'linux',
  'win32',
  'openbsd',
  'netbsd',
  'openharmony',
  'sunos',
  'aix',
];
const CPU = ['arm64', 'x64', 'arm', 'ia32', 'loong64', 'ppc64', 'riscv64', 's390x', 'mips64el'];

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((p) => OS.includes(p));
  const cpu = parts.find((p) => CPU.includes(p));
  if (!os || !cpu) return null;
  const entry = { os: [os], cpu: [cpu] };
  if (os === 'linux')
    entry.libc = [parts.includes('musl') || parts.includes('musleabihf') ? 'musl' : 'glibc'];
  return entry;
}

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const added = [];
for (const [path, pkg] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(pkg.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    const nested = `${path ? `${path}/` : ''}node_modules/${name}`;
    if (lock.packages[key] || lock.packages[nested]) continue;
    const platform = platformOf(name);
    if (!platform || !/^\d+\.\d+\.\d+/.test(version)) continue;
    lock.packages[key] = { version, ...(pkg.dev ? { dev: true } : {}), optional: true, ...platform };
    added.push(`${name}@${version}`);
  }
}
if (process.argv.includes('--check')) {
  if (added.length) {
    console.error(`package-lock.json lacks ${added.length} platform packages; npm ci would refuse it.`);
    console.error('Run: node scripts/lockfile-platforms.mjs');
    process.exit(1);
  }
  process.exit(0);
}
lock.packages = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(added.length ? `added ${added.length}: ${added.join(', ')}` : 'nothing to add');
