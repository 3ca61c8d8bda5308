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

  it('every link to a section (`page.md#section`) names a heading of that page', () => {
    const broken: string[] = [];
    for (const page of PAGES) {
      const text = readFileSync(path.join(ROOT, page), 'utf8');
      for (const [, target, anchor] of text.matchAll(/\]\(([^)\s#]*)#([^)\s]+)\)/g)) {
        if (target && !target.endsWith('.md')) continue;
        const file = target ? path.resolve(ROOT, path.dirname(page), target) : path.join(ROOT, page);
        if (!existsSync(file)) continue; // the test above names it
        if (!headingSlugs(readFileSync(file, 'utf8')).has(anchor!))
          broken.push(`${page}: ${target}#${anchor}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('the README is a front door: at most 150 lines, starting with the two commands', () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(150);
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    expect(readme.indexOf('```sh')).toBeLessThan(readme.indexOf('\n## '));
    expect(
      firstBlock
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split('#')[0]!.trim()),
    ).toEqual(['npm install && npm start', 'npm test']);
  });
});

/** GitHub's anchors of a page's headings: lower case, punctuation dropped, spaces as hyphens. */
function headingSlugs(markdown: string): Set<string> {
  return new Set(
    [...markdown.matchAll(/^#{1,6} (.+)$/gm)].map((m) =>
      m[1]!
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-'),
    ),
  );
}
