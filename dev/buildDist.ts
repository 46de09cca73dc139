/**
 * npm run build [-- --no-source-maps] [-- --outdir DIR]
 *
 * Builds dist/, what an installed copy and the Docker image run (bin/erp-sync.js), as an esbuild
 * bundle of src/: a few hundred modules loaded one by one (resolution, reading, compiling) made
 * most of a short command's start, so the CLI and the libraries every command needs at start are
 * bundled (bench/RESULTS.md, "CLI start"). The commands stay lazy: each is its own chunk, loaded
 * when it runs. Types are checked by `npm run typecheck`, not here.
 *
 * dist/ is flat (entries and chunks side by side, one level below the project root, as src/'s
 * top-level files are), so that what finds a file beside its own module finds it from any chunk:
 * ../package.json (src/version.ts), ../config/sample (the demo), ./postgresWorker.js (the
 * PostgreSQL store's worker thread), ./demoJanitorMain.js (the demo's janitor process).
 */
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build, type Plugin } from 'esbuild';
import { PROJECT_ROOT } from './projectPaths.js';

/**
 * Libraries bundled, with what they import: those that a short command (status, check, --help)
 * loads. Every other package stays a plain import of node_modules: native addons and database
 * drivers, and those that find files or start threads by path (pino's transports, fastify, Bull
 * Board's UI, OpenTelemetry).
 */
const BUNDLED = new Set([
  'commander',
  'zod',
  'yaml',
  'ioredis',
  'node-cron',
  'csv-parse',
  'saxes',
  'fast-xml-parser',
  'p-retry',
]);

const packageOf = (specifier: string): string =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/** Leaves a package of our code's imports external unless it is in BUNDLED. */
const externals: Plugin = {
  name: 'externals',
  setup(esbuild) {
    esbuild.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.importer.includes('/node_modules/')) return undefined;
      if (args.path.startsWith('node:') || BUNDLED.has(packageOf(args.path))) return undefined;
      return { path: args.path, external: true };
    });
  },
};

const at = process.argv.indexOf('--outdir');
const outdir = at === -1 ? join(PROJECT_ROOT, 'dist') : resolve(process.argv[at + 1]!);
rmSync(outdir, { recursive: true, force: true });
await build({
  absWorkingDir: PROJECT_ROOT,
  entryPoints: ['src/cli/main.ts', 'src/store/sql/postgresWorker.ts', 'src/cli/demo/demoJanitorMain.ts'],
  outdir,
  entryNames: '[name]',
  chunkNames: '[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  // The bundled CommonJS libraries (ioredis, yaml's ...) call require(): an ES module has none.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);",
  },
  sourcemap: !process.argv.includes('--no-source-maps'),
  plugins: [externals],
  logLevel: 'warning',
});
