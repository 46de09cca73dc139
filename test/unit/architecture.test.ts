import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The dependency rules of DESIGN.md, checked on the import statements of src/.
const srcRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** Top-level area of a file under src/: 'sandbox', 'api', 'erp', ... or the file name for root files. */
function areaOf(file: string): string {
  return relative(srcRoot, file).split(/[\\/]/)[0]!.replace(/\.ts$/, '');
}

function localImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [
    ...text.matchAll(/(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g),
  ]
    .map((m) => m[1] ?? m[2] ?? '')
    .filter((s) => s.startsWith('.'));
  return specifiers.map((s) => resolve(dirname(file), s.replace(/\.js$/, '.ts')));
}

const files = sourceFiles(srcRoot);
const edges = files.flatMap((from) => localImports(from).map((to) => ({ from, to })));

function violations(fromArea: string, forbidden: (toArea: string) => boolean): string[] {
  return edges
    .filter((e) => areaOf(e.from) === fromArea && areaOf(e.to) !== fromArea && forbidden(areaOf(e.to)))
    .map((e) => `${relative(srcRoot, e.from)} -> ${relative(srcRoot, e.to)}`);
}

describe('architecture', () => {
  it('finds the source files it checks', () => {
    expect(files.length).toBeGreaterThan(5);
    expect(edges.length).toBeGreaterThan(5);
  });

  it('keeps the sandbox independent of the daemon', () => {
    expect(violations('sandbox', () => true)).toEqual([]);
  });

  it('keeps the domain free of project imports', () => {
    expect(violations('domain', () => true)).toEqual([]);
  });

  it('keeps the client and the ERP adapters away from pipelines, queues and each other', () => {
    const upward = ['sync', 'queue', 'server', 'cli', 'sandbox'];
    expect(violations('api', (to) => upward.includes(to) || to === 'erp' || to === 'store')).toEqual([]);
    expect(violations('erp', (to) => upward.includes(to) || to === 'api' || to === 'store')).toEqual([]);
    expect(violations('store', (to) => upward.includes(to) || to === 'api' || to === 'erp')).toEqual([]);
  });

  it('keeps pipelines free of the queue, the server and the CLI', () => {
    expect(violations('sync', (to) => ['queue', 'server', 'cli', 'sandbox'].includes(to))).toEqual([]);
  });
});
