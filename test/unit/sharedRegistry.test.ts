import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const TEST_DIR = path.resolve(import.meta.dirname, '..');

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

// Test files share one module registry per worker (vitest.config.ts, isolate: false), so a
// module mocked with vi.mock in one file is whatever an earlier file already loaded: the mock
// silently does nothing. Faults are injected by parameter or vi.spyOn on a shared object.
describe('the shared module registry', () => {
  it('no test file mocks a module', () => {
    const mocking = testFiles(TEST_DIR)
      .filter((file) =>
        /\bvi\.(mock|doMock|unmock|importActual|importMock)\(/.test(readFileSync(file, 'utf8')),
      )
      .map((file) => path.relative(TEST_DIR, file));
    expect(mocking, 'use a parameter or vi.spyOn instead of vi.mock in these files').toEqual([]);
  });
});
