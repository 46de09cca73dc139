import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../../src/sandbox');
const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );

describe('src/sandbox', () => {
  it('imports nothing of the daemon: relative imports stay inside src/sandbox, packages are its own few', () => {
    const outside: string[] = [];
    const packages = new Set<string>();
    const all = files(root);
    expect(all.length).toBeGreaterThan(30);
    for (const file of all)
      for (const m of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)) {
        const spec = m[1]!;
        if (spec.startsWith('.')) {
          const target = relative(root, resolve(dirname(file), spec));
          if (target.startsWith('..')) outside.push(`${relative(root, file)} -> ${spec}`);
        } else packages.add(spec.startsWith('node:') ? 'node:*' : spec);
      }
    expect(outside).toEqual([]);
    expect([...packages].sort()).toEqual(['better-sqlite3', 'fastify', 'node:*', 'pino']);
  });
});
