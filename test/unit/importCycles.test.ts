import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return sourceFiles(file);
    return file.endsWith('.ts') ? [file] : [];
  });
}

/** Relative imports that exist at run time (`import type` is erased, so it cannot form a cycle). */
function runtimeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found = text.matchAll(/^import\s+(?!type\b)[^;]*?from\s+'(\.[^']+)'/gms);
  return [...found].map((m) => path.join(path.dirname(file), m[1]!).replace(/\.js$/, '.ts'));
}

function cycles(graph: Map<string, string[]>): string[] {
  const found: string[] = [];
  const done = new Set<string>();
  const stack: string[] = [];
  const visit = (file: string) => {
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      const at = stack.indexOf(next);
      if (at >= 0) found.push([...stack.slice(at), next].map((f) => path.relative(SRC, f)).join(' -> '));
      else if (!done.has(next)) visit(next);
    }
    stack.pop();
    done.add(file);
  };
  for (const file of graph.keys()) if (!done.has(file)) visit(file);
  return found;
}

describe('module structure', () => {
  it('src/ has no import cycles at run time (the domain, events and outbox load in one order)', () => {
    const graph = new Map(sourceFiles(SRC).map((f) => [f, runtimeImports(f)]));
    expect(graph.size).toBeGreaterThan(50);
    expect(cycles(graph)).toEqual([]);
  });
});
