import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The dependency rules of docs/architecture.md, checked on the import statements of src/.
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

interface Import {
  specifier: string;
  /** `import type` / `export type`: erased at run time. */
  typeOnly: boolean;
  /** `import('...')`: loaded when called, not when the importing module loads. */
  dynamic: boolean;
}

function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8');
  return [
    ...text.matchAll(
      /(?:import|export)(\s+type\b)?[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g,
    ),
  ].map((m) => ({
    specifier: m[2] ?? m[3] ?? '',
    typeOnly: m[1] !== undefined,
    dynamic: m[3] !== undefined,
  }));
}

function resolved(file: string, specifier: string): string {
  return resolve(dirname(file), specifier.replace(/\.js$/, '.ts'));
}

const files = sourceFiles(srcRoot);
const edges = files.flatMap((from) =>
  importsOf(from)
    .filter((i) => i.specifier.startsWith('.'))
    .map((i) => ({ from, to: resolved(from, i.specifier), typeOnly: i.typeOnly, dynamic: i.dynamic })),
);
const rel = (file: string) => relative(srcRoot, file).split(/[\\/]/).join('/');

/** The adapters: every folder under src/erp/ holding a `<kind>ConfigSchema.ts`. */
const adapterKinds = readdirSync(join(srcRoot, 'erp')).filter((name) =>
  files.some((f) => rel(f) === `erp/${name}/${name}ConfigSchema.ts`),
);
/** The adapter folder a file lies in, if any. */
const adapterOf = (file: string) => adapterKinds.find((kind) => rel(file).startsWith(`erp/${kind}/`));

/** The room of a file under src/sync/: 'frame', 'push', 'orders', 'catalog', or 'entry' for the files at its root. */
function roomOf(file: string): string {
  const parts = rel(file).split('/');
  return parts.length > 2 ? parts[1]! : 'entry';
}
const syncEdges = edges.filter((e) => areaOf(e.from) === 'sync' && areaOf(e.to) === 'sync');
const crossing = (e: { from: string; to: string }) => `${rel(e.from)} -> ${rel(e.to)}`;

/** Modules of src/sync that write (send to the platform, write to the ERP, take a lease, record a run). */
const writers = [
  'sync/frame/runInFrame.ts',
  'sync/frame/lease.ts',
  'sync/push/pushBatch.ts',
  'sync/push/pushPipeline.ts',
  'sync/push/scanPush.ts',
  'sync/push/healDrift.ts',
  'sync/orders/orders.ts',
  'sync/orders/orderImport.ts',
  'sync/orders/orderUpdates.ts',
  'sync/orders/feedback.ts',
  'sync/orders/erpOrders.ts',
];

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

  it('measures durations with monotonicMs, not the performance global, outside the sandbox', () => {
    // Its first use loads node:perf_hooks and ten modules in every short command (src/domain/monotonicMs.ts).
    const users = files.filter(
      (file) =>
        areaOf(file) !== 'sandbox' && /\bperformance\.|node:perf_hooks/.test(readFileSync(file, 'utf8')),
    );
    expect(users.map(rel)).toEqual(['domain/monotonicMs.ts']);
  });

  it('keeps the domain free of project imports', () => {
    expect(violations('domain', () => true)).toEqual([]);
  });

  it('keeps the client and the ERP adapters away from pipelines, queues and each other', () => {
    const upward = ['sync', 'diagnostics', 'queue', 'server', 'cli', 'sandbox'];
    expect(violations('api', (to) => upward.includes(to) || to === 'erp' || to === 'store')).toEqual([]);
    expect(violations('erp', (to) => upward.includes(to) || to === 'api' || to === 'store')).toEqual([]);
    expect(violations('store', (to) => upward.includes(to) || to === 'api' || to === 'erp')).toEqual([]);
  });

  it('keeps the ops server free of the queue layer, the CLI, the sandbox and the ERP adapters (it gets queues and readiness passed in)', () => {
    expect(violations('server', (to) => ['queue', 'cli', 'sandbox', 'erp'].includes(to))).toEqual([]);
  });

  it('keeps pipelines free of the queue, the server and the CLI', () => {
    expect(violations('sync', (to) => ['queue', 'server', 'cli', 'sandbox'].includes(to))).toEqual([]);
  });

  it('finds the rooms of src/sync it checks', () => {
    const rooms = new Set(files.filter((f) => areaOf(f) === 'sync').map(roomOf));
    expect([...rooms].sort()).toEqual(['catalog', 'entry', 'frame', 'orders', 'push']);
  });

  it('keeps the run frame at the bottom of src/sync: it imports no pipeline', () => {
    expect(
      syncEdges.filter((e) => roomOf(e.from) === 'frame' && roomOf(e.to) !== 'frame').map(crossing),
    ).toEqual([]);
  });

  it('keeps push, orders and catalog apart: each reaches the others only through the frame', () => {
    const pipelines = ['push', 'orders', 'catalog'];
    const across = syncEdges.filter(
      (e) =>
        pipelines.includes(roomOf(e.from)) && roomOf(e.to) !== roomOf(e.from) && roomOf(e.to) !== 'frame',
    );
    // The one sanctioned crossing: the catalog compares the platform with push fingerprints (through
    // the one in-step predicate) to see its own echo.
    const echo = ['sync/push/fingerprint.ts', 'sync/push/inStep.ts'];
    expect(
      across.filter((e) => !(roomOf(e.from) === 'catalog' && echo.includes(rel(e.to)))).map(crossing),
    ).toEqual([]);
  });

  it('keeps the entry files of src/sync (registry, context, runPipeline) out of the rooms', () => {
    expect(
      syncEdges.filter((e) => roomOf(e.from) !== 'entry' && roomOf(e.to) === 'entry').map(crossing),
    ).toEqual([]);
  });

  it('keeps the diagnostics a reader above the pipelines: no write path, no queue, server or CLI', () => {
    expect(violations('sync', (to) => to === 'diagnostics')).toEqual([]);
    expect(violations('diagnostics', (to) => ['queue', 'server', 'cli', 'sandbox'].includes(to))).toEqual([]);
    expect(writers.filter((w) => !files.some((f) => rel(f) === w))).toEqual([]);
    expect(
      edges
        .filter((e) => areaOf(e.from) === 'diagnostics' && !e.typeOnly && writers.includes(rel(e.to)))
        .map(crossing),
    ).toEqual([]);
  });

  it('finds the adapters it checks', () => {
    expect(adapterKinds).toContain('file');
  });

  it('keeps pipelines and diagnostics free of adapter knowledge: no adapter module, no adapter type, no file sources', () => {
    const knowsNoAdapter = (file: string) => ['sync', 'diagnostics'].includes(areaOf(file));
    const syncFiles = files.filter(knowsNoAdapter);
    expect(edges.filter((e) => knowsNoAdapter(e.from) && adapterOf(e.to)).map((e) => rel(e.from))).toEqual(
      [],
    );
    const named = syncFiles.flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      const found: string[] = [];
      for (const kind of adapterKinds)
        if (new RegExp(`['"\`]${kind}['"\`]`).test(text)) found.push(`'${kind}'`);
      if (/\bconfig\.erp\.\w|\.erp\.type\b/.test(text)) found.push('config.erp.*');
      if (/\bsource\??\.file\b/.test(text)) found.push('source.file');
      return found.map((what) => `${rel(file)}: ${what}`);
    });
    expect(named).toEqual([]);
  });

  it('keeps the configuration below the layers that use it', () => {
    // config.ts and src/config/ read and validate; they know no queue, pipeline, server or command.
    expect(
      violations('config', (to) => ['queue', 'server', 'cli', 'sandbox', 'api', 'store'].includes(to)),
    ).toEqual([]);
  });

  it('gives each adapter only its own configuration slice', () => {
    // src/erp never imports the configuration: an adapter's schema, env keys, paths and secrets live in its own folder.
    expect(
      edges.filter((e) => areaOf(e.from) === 'erp' && areaOf(e.to) === 'config').map((e) => rel(e.from)),
    ).toEqual([]);
    // The configuration takes the adapters' slices from their one list (erp/ErpConfig.ts), and
    // that list imports nothing of an adapter but its schema module.
    const composition = ['erp/ErpConfig.ts', 'erp/ErpConfigSlice.ts'];
    expect(
      edges
        .filter((e) => areaOf(e.from) === 'config' && areaOf(e.to) === 'erp')
        .map((e) => rel(e.to))
        .filter((to) => !composition.includes(to)),
    ).toEqual([]);
    expect(
      edges
        .filter((e) => rel(e.from) === 'erp/ErpConfig.ts')
        .map((e) => rel(e.to))
        .filter((to) => to !== 'erp/ErpConfigSlice.ts')
        .filter((to) => !adapterKinds.some((kind) => to === `erp/${kind}/${kind}ConfigSchema.ts`)),
    ).toEqual([]);
    // A schema module loads nothing heavy: zod and local files only, no driver.
    const schemaPackages = files
      .filter((f) => adapterKinds.some((kind) => rel(f) === `erp/${kind}/${kind}ConfigSchema.ts`))
      .flatMap((f) => importsOf(f).map((i) => ({ file: rel(f), specifier: i.specifier })))
      .filter((i) => !i.specifier.startsWith('.') && i.specifier !== 'zod');
    expect(schemaPackages).toEqual([]);
  });

  it('lets the benchmarks stand on their own: bench/ and dev/ import nothing of test/, src/ nothing of them', () => {
    const projectRoot = resolve(srcRoot, '..');
    const outside = (dir: string, forbidden: string[]) =>
      sourceFiles(join(projectRoot, dir)).flatMap((file) =>
        importsOf(file)
          .filter((i) => i.specifier.startsWith('.'))
          .map((i) => relative(projectRoot, resolved(file, i.specifier)).split(/[\\/]/)[0]!)
          .filter((top) => forbidden.includes(top))
          .map((top) => `${relative(projectRoot, file)} -> ${top}/`),
      );
    expect(sourceFiles(join(projectRoot, 'bench')).length).toBeGreaterThan(0);
    expect(outside('bench', ['test'])).toEqual([]);
    expect(outside('dev', ['test', 'bench'])).toEqual([]);
    expect(outside('src', ['test', 'bench', 'dev'])).toEqual([]);
  });

  it('keeps adapters apart and loads them only when chosen', () => {
    // No adapter imports another one.
    expect(
      edges
        .filter((e) => adapterOf(e.from) && adapterOf(e.to) && adapterOf(e.from) !== adapterOf(e.to))
        .map((e) => `${rel(e.from)} -> ${rel(e.to)}`),
    ).toEqual([]);
    // Outside the list of slices (schemas only), an adapter module is loaded at run time lazily, by createErpAdapter
    // alone, or by the command of that adapter's own tools (`erp-sync erp init-staging`).
    const loads = edges.filter(
      (e) => adapterOf(e.to) && !adapterOf(e.from) && !e.typeOnly && rel(e.from) !== 'erp/ErpConfig.ts',
    );
    expect(
      loads
        .filter((e) => !(['erp/createErpAdapter.ts', 'cli/erpCommand.ts'].includes(rel(e.from)) && e.dynamic))
        .map((e) => rel(e.from)),
    ).toEqual([]);
    expect(loads.length).toBeGreaterThanOrEqual(adapterKinds.length);
  });
});
