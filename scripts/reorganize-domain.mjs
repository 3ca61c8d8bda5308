#!/usr/bin/env node
/**
 * Moves src/domain's files into capability folders (scripts/domain-layout.json) and rewrites every
 * relative import that reaches a moved file, or that a moved file makes, in src/, test/, bench/,
 * scripts/, examples/ and sdk/. Moves and import changes only: no code changes, so the suite must
 * be green before and after. Mentions of the old paths in comments and Markdown
 * (`src/domain/money/money.ts`) are rewritten too, so the docs keep pointing at the files.
 *
 *   node scripts/reorganize-domain.mjs --dry-run   what would move, and the files with no place
 *   node scripts/reorganize-domain.mjs             does it (then: npm run check, the suite)
 *   node scripts/reorganize-domain.mjs --place testClock.ts=tasks   places a file the layout lacks
 *   (--no-format: leave the rewritten files unformatted; by default Biome formats and sorts them)
 *
 * A file the layout does not list (added since it was written) is placed by the first rule whose
 * prefix starts its name (`taskTemplates.ts` -> tasks/), else left at src/domain/ and reported, so
 * the run never guesses silently. Sub-folders already in src/domain are left alone. Each folder
 * gets a README.md: what the capability holds, and its files with their first comment line.
 * Run it from the repository root on a clean tree (commit first: `git status` shows the moves).
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const DOMAIN = path.join(ROOT, 'src', 'domain');
const LAYOUT = JSON.parse(readFileSync(path.join(ROOT, 'scripts', 'domain-layout.json'), 'utf8'));
/** Folders whose code may import domain files. */
const CODE_DIRS = ['src', 'test', 'bench', 'scripts', 'examples', 'sdk/src', 'sdk/test', 'web'];
const CODE_FILE = /\.(ts|tsx|mts|mjs|js|cjs)$/;
/** Text that may name a domain file by its path (docs, READMEs, notes). */
const TEXT_FILE = /\.(md|json)$/;
const SKIP_DIRS = new Set(['node_modules', 'dist', 'generated', '.git', 'data']);

const args = process.argv.slice(2);
const dryRun = args.includes('--dry-run');
const placed = Object.fromEntries(
  args.flatMap((arg, i) => (args[i - 1] === '--place' ? [arg.split('=')] : [])).map(([f, d]) => [f, d]),
);

/** file name at src/domain -> its folder ('' for the top level), or undefined when it has no place. */
function planMoves() {
  const where = new Map();
  for (const file of LAYOUT.top.files) where.set(file, '');
  for (const [folder, { files }] of Object.entries(LAYOUT.folders)) {
    for (const file of files) where.set(file, folder);
  }
  const moves = new Map();
  const unknown = [];
  const absent = [...where.keys()].filter((f) => !existsSync(path.join(DOMAIN, f)));
  for (const name of readdirSync(DOMAIN).sort()) {
    const full = path.join(DOMAIN, name);
    if (statSync(full).isDirectory()) continue;
    let folder = placed[name] ?? where.get(name);
    let how = placed[name] !== undefined ? 'placed on the command line' : 'listed';
    if (folder === undefined) {
      const rule = LAYOUT.rules.find((r) => name.startsWith(r.prefix));
      if (rule) [folder, how] = [rule.folder, `rule "${rule.prefix}*"`];
    }
    if (folder === undefined) unknown.push(name);
    else if (folder !== '') moves.set(full, { to: path.join(DOMAIN, folder, name), how });
  }
  return { moves, unknown, absent };
}

function walk(dir, test, out = []) {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    if (SKIP_DIRS.has(name)) continue;
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) walk(full, test, out);
    else if (test.test(name)) out.push(full);
  }
  return out;
}

/** Where a module path lands after the moves (`.js` specifiers name `.ts` files; the extension is kept). */
function newLocation(target, moves) {
  const source = /\.(js|mjs)$/.test(target)
    ? target.replace(/\.(js|mjs)$/, '.ts')
    : /\.tsx?$/.test(target)
      ? target
      : `${target}.ts`;
  const move = moves.get(source);
  return move ? path.join(path.dirname(move.to), path.basename(target)) : target;
}

const SPECIFIER =
  /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*|\bvi\.(?:do)?[mM]ock\s*\(\s*|\bimportActual\s*(?:<[^>]*>)?\s*\(\s*)(['"])(\.{1,2}\/[^'"\n]+)\2/g;

/** Rewrites one code file's relative specifiers; `from` is where the file is now, `to` where it goes. */
function rewriteImports(text, from, to, moves) {
  return text.replace(SPECIFIER, (all, lead, quote, spec) => {
    const target = path.resolve(path.dirname(from), spec);
    const moved = newLocation(target, moves);
    if (moved === target && from === to) return all;
    let next = path.relative(path.dirname(to), moved).split(path.sep).join('/');
    if (!next.startsWith('.')) next = `./${next}`;
    return `${lead}${quote}${next}${quote}`;
  });
}

/** `src/domain/money/money.ts` -> `src/domain/money/money.ts` in prose (comments, Markdown). */
function rewriteMentions(text, moves) {
  return text.replace(/\b((?:src\/)?domain\/)([A-Za-z0-9]+\.ts)\b/g, (all, prefix, name) => {
    const move = moves.get(path.join(DOMAIN, name));
    return move ? `${prefix}${path.relative(DOMAIN, move.to).split(path.sep).join('/')}` : all;
  });
}

function firstLine(file) {
  const text = readFileSync(file, 'utf8');
  const comment = /\/\*\*\s*\n?\s*\*?\s*([^\n]*)/.exec(text)?.[1] ?? /^\/\/\s*(.*)$/m.exec(text)?.[1] ?? '';
  const exports = [...text.matchAll(/^export (?:async )?(?:function|const|class|interface|type) (\w+)/gm)]
    .map((m) => m[1])
    .slice(0, 4);
  const said = comment.replace(/\*\/\s*$/, '').trim();
  return said || (exports.length ? `exports ${exports.join(', ')}` : '');
}

function folderReadme(folder, about, files) {
  const lines = [
    `# src/domain/${folder}`,
    '',
    `${about[0].toUpperCase()}${about.slice(1)}.`,
    'Part of the domain (see docs/architecture.md, "Where the rules live"): no HTTP, no SQL strings;',
    'repositories take the transaction first.',
    '',
    ...files.map((f) => `- \`${path.basename(f)}\`: ${firstLine(f)}`),
    '',
  ];
  return lines.join('\n');
}

function main() {
  const { moves, unknown, absent } = planMoves();
  const rel = (p) => path.relative(ROOT, p);
  for (const [from, { to, how }] of moves) console.log(`move ${rel(from)} -> ${rel(to)} (${how})`);
  for (const name of absent) console.log(`listed but absent (ignored): src/domain/${name}`);
  for (const name of unknown) {
    console.log(
      `NO PLACE: src/domain/${name} stays at the top; add it to scripts/domain-layout.json or pass --place ${name}=<folder>`,
    );
  }
  const codeFiles = CODE_DIRS.flatMap((d) => walk(path.join(ROOT, d), CODE_FILE));
  const textFiles = [
    ...walk(path.join(ROOT, 'docs'), TEXT_FILE),
    ...CODE_DIRS.flatMap((d) => walk(path.join(ROOT, d), /\.md$/)),
    path.join(ROOT, 'README.md'),
    path.join(ROOT, 'biome.json'),
  ].filter(existsSync);
  let changed = 0;
  const writes = [];
  for (const file of codeFiles) {
    const text = readFileSync(file, 'utf8');
    const to = moves.get(file)?.to ?? file;
    const next = rewriteMentions(rewriteImports(text, file, to, moves), moves);
    if (next !== text) writes.push([file, next]);
  }
  for (const file of textFiles) {
    const text = readFileSync(file, 'utf8');
    const next = rewriteMentions(text, moves);
    if (next !== text) writes.push([file, next]);
  }
  console.log(
    `${moves.size} files move, ${writes.length} files change their imports or mentions, ${unknown.length} without a place`,
  );
  if (dryRun) return;
  for (const [file, text] of writes) {
    writeFileSync(file, text);
    changed++;
  }
  for (const [from, { to }] of moves) {
    mkdirSync(path.dirname(to), { recursive: true });
    renameSync(from, to);
  }
  for (const [folder, { about }] of Object.entries(LAYOUT.folders)) {
    const dir = path.join(DOMAIN, folder);
    if (!existsSync(dir)) continue;
    const files = readdirSync(dir)
      .filter((f) => f.endsWith('.ts'))
      .sort()
      .map((f) => path.join(dir, f));
    writeFileSync(path.join(dir, 'README.md'), folderReadme(folder, about, files));
  }
  // Longer paths change line lengths and import order: Biome formats and sorts what was rewritten.
  const rewritten = writes.map(([file]) => moves.get(file)?.to ?? file).filter((f) => CODE_FILE.test(f));
  if (!args.includes('--no-format') && rewritten.length) {
    execFileSync('npx', ['biome', 'check', '--write', ...rewritten.map(rel)], {
      cwd: ROOT,
      stdio: 'inherit',
    });
  }
  const left = readdirSync(DOMAIN).filter((f) => !statSync(path.join(DOMAIN, f)).isDirectory());
  console.log(
    `done: ${changed} files rewritten; ${left.length} files left at src/domain/: ${left.join(', ')}`,
  );
}

main();
