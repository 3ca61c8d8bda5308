import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { expect, it } from 'vitest';

/**
 * `engines` tells the truth: every Node version package.json admits is admitted by every package
 * the lockfile installs, so `npm install` on any of them prints no EBADENGINE warning (issue 10).
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const semver = createRequire(import.meta.url)('semver') as {
  subset(sub: string, dom: string): boolean;
  satisfies(version: string, range: string): boolean;
};
const readJson = (file: string) => JSON.parse(readFileSync(path.join(ROOT, file), 'utf8'));

it('admits only Node versions every installed package admits, and this one', () => {
  const range = readJson('package.json').engines.node as string;
  expect(semver.satisfies(process.version, range), `${process.version} vs ${range}`).toBe(true);
  const lock = readJson('package-lock.json') as {
    packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
  };
  const refusing: string[] = [];
  for (const [where, entry] of Object.entries(lock.packages)) {
    if (!where) continue;
    // The lockfile records engines; an installed package.json is read too, in case it does not.
    const installed = path.join(ROOT, where, 'package.json');
    const ranges = [
      Array.isArray(entry.engines) ? undefined : entry.engines?.node,
      existsSync(installed)
        ? (readJson(path.relative(ROOT, installed)).engines?.node as string | undefined)
        : undefined,
    ];
    for (const wanted of ranges) {
      if (typeof wanted === 'string' && !semver.subset(range, wanted)) refusing.push(`${where}: ${wanted}`);
    }
  }
  expect(refusing, `engines.node ${range} admits versions these refuse`).toEqual([]);
});
