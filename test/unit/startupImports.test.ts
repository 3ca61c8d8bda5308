import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../../src');

/**
 * The packages a server start loads before it listens: everything src/app.ts and src/services.ts
 * import at run time, file by file (`import type` is erased; `import()` loads only when called).
 * Each heavy package kept out of this set is CPU a start no longer spends (docs/benchmarks.md,
 * "Start-up").
 */
function packagesLoadedAtStart(): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    const found = text.matchAll(
      /^(?:import|export)\s+(?!type\b)[^;]*?from\s+'([^']+)'|^import\s+'([^']+)'/gms,
    );
    for (const match of found) {
      const specifier = (match[1] ?? match[2])!;
      if (!specifier.startsWith('.')) {
        packages.add(specifier);
        continue;
      }
      const next = path.join(path.dirname(file), specifier).replace(/\.js$/, '.ts');
      if (existsSync(next)) visit(next);
    }
  };
  visit(path.join(SRC, 'app.ts'));
  visit(path.join(SRC, 'services.ts'));
  return packages;
}

describe('what a server start loads', () => {
  const loaded = packagesLoadedAtStart();

  it('finds the app and its database and HTTP packages (the walk works)', () => {
    expect(loaded).toContain('fastify');
    expect(loaded).toContain('kysely');
  });

  it("loads two wallet contracts, not @ton/ton's whole client (about 200 ms of CPU)", () => {
    expect(loaded).not.toContain('@ton/ton');
  });

  it('loads the MCP SDK only when /mcp is first called (about 270 ms of CPU)', () => {
    expect([...loaded].filter((name) => name.startsWith('@modelcontextprotocol/'))).toEqual([]);
  });

  it('loads ioredis only when REDIS_URL is set', () => {
    expect(loaded).not.toContain('ioredis');
  });
});
