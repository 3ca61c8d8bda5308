/**
 * `npx tsx bench/profileShares.ts <file.cpuprofile> [lastSeconds]`: the self time of a profile
 * written by bench/profile.ts, grouped by layer (SQLite, socket writes, Fastify, our hooks, ...),
 * as shares of the samples in its last `lastSeconds` (default 9: the warm-up's end and the
 * measured run, without start-up's module loading). bench/profile-notes.md has its tables.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const [file, lastArg = '9'] = process.argv.slice(2);
if (!file) throw new Error('usage: tsx bench/profileShares.ts <file.cpuprofile> [lastSeconds]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parentOf = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);

/** A native function has no URL: it counts where its nearest caller with one is. */
function urlOf(node: ProfileNode): string {
  let at: ProfileNode | undefined = node;
  while (at && !at.callFrame.url) {
    const parent = parentOf.get(at.id);
    at = parent === undefined ? undefined : byId.get(parent);
  }
  return at?.callFrame.url ?? '';
}

const FRAMEWORK =
  /\/(fastify|find-my-way|ajv|ajv-formats|fast-json-stringify|secure-json-parse|toad-cache|@fastify)\//;

function layerOf(node: ProfileNode): string | null {
  const { functionName: f, url: own } = node.callFrame;
  if (f === '(idle)') return null;
  if (f === 'writev' && !own) return 'socket writes (writev)';
  if (f === '(garbage collector)') return 'GC';
  const url = own || urlOf(node);
  // The profile puts better-sqlite3's native statement call in the self time of the function
  // that makes it: Kysely's driver's executeQuery before, our driver's #run and #exec now.
  const sqliteCall =
    (f === 'executeQuery' && url.includes('sqlite-driver')) ||
    ((f === '#run' || f === '#exec') && url.includes('/src/db/sqliteDriver')) ||
    url.includes('/better-sqlite3/');
  if (sqliteCall) {
    return 'SQLite driver call (better-sqlite3, SQLite inside)';
  }
  if (url.includes('/kysely/')) return 'Kysely (executor, plugins, building)';
  if (url.includes('/src/db/')) return 'our db layer (compiled queries, bigint plugin, repositories)';
  // Fastify's compiled validators and serializers are anonymous functions without a URL.
  if (FRAMEWORK.test(url) || (!own && /^(anonymous|validate|main)/.test(f))) {
    return 'Fastify, routing, validation, serialization';
  }
  if (url.includes('/src/http/')) return 'our hooks and routes (request id, auth, rate limit, guards)';
  if (url.includes('node:internal/crypto')) return 'crypto (random ids, key hash)';
  if (url.includes('/src/')) return 'our domain';
  if (url.startsWith('node:')) return 'Node HTTP, streams, events, microtasks';
  return 'other';
}

const from = profile.endTime - Number(lastArg) * 1e6;
const shares = new Map<string, number>();
let total = 0;
let at = profile.startTime;
profile.samples.forEach((id, i) => {
  const delta = profile.timeDeltas[i] ?? 0;
  at += delta;
  const node = byId.get(id);
  const layer = node && at >= from ? layerOf(node) : null;
  if (!layer) return;
  total += delta;
  shares.set(layer, (shares.get(layer) ?? 0) + delta);
});
for (const [layer, time] of [...shares].sort((a, b) => b[1] - a[1])) {
  console.log(`${((100 * time) / total).toFixed(1).padStart(5)}%  ${layer}`);
}
