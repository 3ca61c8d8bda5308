import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PAGES = [
  'README.md',
  ...readdirSync(path.join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

describe('the docs are self-contained', () => {
  it('every relative link of README.md and docs/*.md names a file of the repository', () => {
    const broken: string[] = [];
    for (const page of PAGES) {
      const text = readFileSync(path.join(ROOT, page), 'utf8');
      const targets = [
        ...[...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!),
        // A path written as code that leaves the repository (`../shared/spec/...`) is a link too.
        ...[...text.matchAll(/`(\.\.\/[^`\s]+)`/g)].map((m) => m[1]!),
      ];
      for (const target of targets) {
        if (/^(https?:|mailto:|#)/.test(target)) continue;
        const file = path.resolve(ROOT, path.dirname(page), target.split('#')[0]!);
        if (!file.startsWith(`${ROOT}${path.sep}`) || !existsSync(file)) broken.push(`${page}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
