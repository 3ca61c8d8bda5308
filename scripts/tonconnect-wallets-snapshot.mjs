// Writes src/tonconnect/walletsSnapshot.json: the wallets list the TON Connect SDK itself ships
// as its fallback (FALLBACK_WALLETS_LIST in @tonconnect/sdk), copied as it is. The service serves
// this list until its refresh job has fetched the official one (src/tonconnect/walletsRefresh.ts).
// Run it after upgrading @tonconnect/sdk: `node scripts/tonconnect-wallets-snapshot.mjs`.

import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// The package's exports hide package.json and lib/: read the installed files directly.
const sdkDir = path.join(ROOT, 'node_modules', '@tonconnect', 'sdk');
const { version } = JSON.parse(readFileSync(path.join(sdkDir, 'package.json'), 'utf8'));
const source = readFileSync(path.join(sdkDir, 'lib', 'esm', 'index.mjs'), 'utf8');
const start = source.indexOf('const FALLBACK_WALLETS_LIST = [');
if (start < 0) throw new Error(`FALLBACK_WALLETS_LIST not found in @tonconnect/sdk ${version}`);
const end = source.indexOf('\n];\n', start);
// A plain array literal (strings, numbers, booleans): evaluated in an empty context.
const list = vm.runInNewContext(`(${source.slice(source.indexOf('[', start), end + 2)})`, {});
if (!Array.isArray(list) || list.length === 0) throw new Error('FALLBACK_WALLETS_LIST is not a list');
const out = path.join(ROOT, 'src', 'tonconnect', 'walletsSnapshot.json');
writeFileSync(
  out,
  `${JSON.stringify({ source: `@tonconnect/sdk ${version} FALLBACK_WALLETS_LIST`, wallets: list }, null, 2)}\n`,
);
console.log(`${list.length} wallets from @tonconnect/sdk ${version} written to ${path.relative(ROOT, out)}`);
