/**
 * npm run build [-- --no-source-maps] [-- --outdir DIR]
 *
 * Builds dist/, what an installed copy and the Docker image run (bin/erp-sync.js), as an esbuild
 * bundle of src/: a few hundred modules loaded one by one (resolution, reading, compiling) made
 * most of a short command's start, so the CLI and the libraries every command needs at start are
 * bundled (bench/RESULTS.md, "CLI start"). The CLI is dist/cli.cjs; the commands stay lazy, each
 * module starting when the command that needs it runs. Types are checked by `npm run typecheck`,
 * not here.
 *
 * dist/ is flat (entries and chunks side by side, one level below the project root, as src/'s
 * top-level files are), so that what finds a file beside its own module finds it from the bundle:
 * ../package.json (src/version.ts), ../config/sample (the demo), ./postgresWorker.js (the
 * PostgreSQL store's worker thread), ./demoJanitorMain.js (the demo's janitor process).
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, resolve } from 'node:path';
import { build, type BuildOptions, type Plugin } from 'esbuild';
import { PROJECT_ROOT } from './projectPaths.js';

/**
 * Libraries bundled, with what they import: those that a short command (status, check, --help)
 * loads, and pino, which every logging command loads (without its transports: pinoWithoutTransports).
 * Every other package stays a plain import of node_modules: native addons and database drivers,
 * and those that find files or start threads by path (fastify, Bull Board's UI, OpenTelemetry).
 */
const BUNDLED = new Set([
  'commander',
  'zod',
  'yaml',
  'node-cron',
  'pino',
  'csv-parse',
  'saxes',
  'fast-xml-parser',
  'better-sqlite3',
]);

/**
 * Packages of which only the files imported by their paths are bundled, the index staying external:
 * undici's connection pool and request call (src/api/undiciWire.ts), plain JavaScript with its
 * parser's wasm inline, against its index (fetch, WebSocket, caches, mocks), which only the Tryton
 * client loads. Through Node's loader they were about 60 files read and compiled at each run-once,
 * outside the bin's code cache (bench/RESULTS.md, "run-once's start, undici and pino").
 */
const BUNDLED_FILES = new Set(['undici']);

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
      if (BUNDLED_FILES.has(packageOf(args.path)) && args.path !== packageOf(args.path)) return undefined;
      return { path: args.path, external: true };
    });
  },
};

/**
 * Node's built-in modules, each loaded at the first use of one of its exports, not when a chunk
 * that imports it starts. An ES import of a built-in loads it at once and reads every export
 * (each lazy getter with it: `import { existsSync } from 'node:fs'` loads all of node:stream for
 * fs.ReadStream), so a short command paid for node:crypto (node-cron's ids, the store's hashes),
 * node:child_process (commander's executable subcommands), node:worker_threads (the PostgreSQL
 * store) and their dependencies without using them (bench/RESULTS.md, "CLI start"). Each becomes a
 * CommonJS module of getters over the exports this Node has (Object.keys at build time; the image
 * builds with the Node it runs), through which the bundle reads an export where the code uses it.
 */
const builtins: Plugin = {
  name: 'builtins',
  setup(esbuild) {
    const names = new Set(builtinModules.map((name) => name.replace(/^node:/, '')));
    esbuild.onResolve({ filter: /^[a-z_:/]+$/ }, (args) => {
      const name = args.path.replace(/^node:/, '');
      if (!names.has(name)) return undefined;
      // An ES import goes through one ES module per built-in (below), a require() straight to it.
      const esm = args.kind === 'import-statement' && reExports(`node:${name}`) !== undefined;
      return { path: `node:${name}`, namespace: esm ? 'builtin-esm' : 'builtin' };
    });
    esbuild.onResolve({ filter: /^node:[a-z_/]+\?getters$/ }, (args) => ({
      path: args.path.replace(/\?getters$/, ''),
      namespace: 'builtin',
    }));
    // esbuild gives each ES module that imports a CommonJS one a copy of its exports (__toESM: a
    // getter defined per export, node:fs has about a hundred), so fifteen modules importing node:fs
    // defined fifteen hundred getters at each start. Re-exported by one ES module, the copy is made
    // once and every importer reads that one (status -1.4% instructions, check -3.1%).
    esbuild.onLoad({ filter: /.*/, namespace: 'builtin-esm' }, (args) => ({
      contents: `export { default, ${reExports(args.path)!.join(', ')} } from ${JSON.stringify(`${args.path}?getters`)};`,
      loader: 'js',
    }));
    esbuild.onLoad({ filter: /.*/, namespace: 'builtin' }, (args) => {
      const get = `process.getBuiltinModule(${JSON.stringify(args.path)})`;
      const exported = process.getBuiltinModule(args.path) as object;
      // A module that is a function (node:events, node:stream, node:assert) is called or extended
      // as such, and node:process is loaded already: taken as they are.
      if (typeof exported === 'function' || args.path === 'node:process')
        return { contents: `module.exports = ${get};`, loader: 'js' };
      return {
        contents: [
          'let loaded;',
          `const load = () => (loaded ??= ${get});`,
          `for (const key of ${JSON.stringify(Object.keys(exported))})`,
          '  Object.defineProperty(exports, key, {',
          '    enumerable: true,',
          '    get: () => load()[key],',
          '    set: (value) => { load()[key] = value; },',
          '  });',
        ].join('\n'),
        loader: 'js',
      };
    });
  },
};

/**
 * The exports the ES module of a built-in re-exports; undefined for the built-ins taken as they
 * are (a function, node:process) or with an export that is not a name.
 */
function reExports(path: string): string[] | undefined {
  const exported = process.getBuiltinModule(path) as object;
  if (typeof exported === 'function' || path === 'node:process') return undefined;
  const keys = Object.keys(exported);
  return keys.every((key) => /^[A-Za-z_$][\w$]*$/.test(key) && key !== 'default') ? keys : undefined;
}

/**
 * better-sqlite3's JavaScript is bundled (its 14 files through Node's loader were about 4 ms of a
 * short command's start), all but lib/binding.js, which finds the native module from its own
 * folder (node-gyp's build/, else the platform's prebuild): that one is required where it is
 * installed, so the native module is found as before, in a checkout and in the image alike.
 */
const sqliteBinding: Plugin = {
  name: 'sqlite-binding',
  setup(esbuild) {
    esbuild.onResolve({ filter: /^\.\/binding$/ }, (args) =>
      args.importer.includes('/node_modules/better-sqlite3/lib/')
        ? { path: 'better-sqlite3/lib/binding.js', namespace: 'sqlite-binding' }
        : undefined,
    );
    esbuild.onResolve({ filter: /^better-sqlite3\/package\.json$/ }, (args) => ({
      path: args.path,
      external: true,
    }));
    esbuild.onLoad({ filter: /.*/, namespace: 'sqlite-binding' }, () => ({
      // Not exported by its package ("exports"), so required by its path beside package.json.
      contents: [
        'const { dirname, join } = require("node:path");',
        'module.exports = require(join(dirname(require.resolve("better-sqlite3/package.json")), "lib", "binding.js"));',
      ].join('\n'),
      loader: 'js',
    }));
  },
};

/**
 * undici's HTTP/2 client (lib/dispatcher/client-h2.js), which its HTTP/1.1 client requires at load,
 * started at its first call instead: it loads node:http2, which loads node:tls, which parses the
 * bundled root certificates (and NODE_EXTRA_CA_CERTS's) on every start, for an API client that
 * never speaks HTTP/2 (`allowH2: false`, src/api/undiciWire.ts) and over http:// never uses TLS
 * (bench/RESULTS.md, "run-once's start, undici and pino"). The build fails if undici's client no
 * longer takes it as one function.
 */
const undiciH2AtFirstCall: Plugin = {
  name: 'undici-h2-at-first-call',
  setup(esbuild) {
    esbuild.onResolve({ filter: /^\.\/client-h2\.js$/ }, (args) => {
      if (!args.importer.endsWith('/node_modules/undici/lib/dispatcher/client.js')) return undefined;
      const client = readFileSync(args.importer, 'utf8');
      const h2 = join(args.resolveDir, 'client-h2.js');
      if (
        !client.includes("const connectH2 = require('./client-h2.js')") ||
        !readFileSync(h2, 'utf8').trimEnd().endsWith('module.exports = connectH2')
      )
        throw new Error(`undici's client no longer takes client-h2.js as one function: see ${args.importer}`);
      return {
        path: 'undici/lib/dispatcher/client-h2.js',
        namespace: 'undici-h2-at-first-call',
        pluginData: h2,
      };
    });
    esbuild.onLoad({ filter: /.*/, namespace: 'undici-h2-at-first-call' }, (args) => ({
      contents: [
        'let connectH2;',
        `module.exports = (...args) => (connectH2 ??= require(${JSON.stringify(args.pluginData)}))(...args);`,
      ].join('\n'),
      loader: 'js',
      resolveDir: PROJECT_ROOT,
    }));
  },
};

/**
 * pino without its transports (lib/transport.js: worker threads started by a file's path, which
 * would not be found beside the bundle): our loggers write JSON lines to a stream
 * (src/createLogger.ts), and its thread-stream was loaded, never used, at each start.
 * `pino.transport()` throws here.
 */
const pinoWithoutTransports: Plugin = {
  name: 'pino-without-transports',
  setup(esbuild) {
    esbuild.onResolve({ filter: /^\.\/(lib\/)?transport$/ }, (args) =>
      args.importer.includes('/node_modules/pino/')
        ? { path: 'pino/lib/transport.js', namespace: 'pino-without-transports' }
        : undefined,
    );
    esbuild.onLoad({ filter: /.*/, namespace: 'pino-without-transports' }, () => ({
      contents: `module.exports = () => { throw new Error("pino's transports are not in erp-sync's dist/ (dev/buildDist.ts)"); };`,
      loader: 'js',
    }));
  },
};

/**
 * The commands that bin/erp-sync.js runs from a file of their own (dist/cli-NAME.cjs), with their
 * module: the short ones, and run-once, which a cron or a script starts as a process per run.
 * `none` is a command line without a command (`--version`, `--help`): its file has no command's
 * module, only commander and the program's definition.
 */
const OWN_FILE_COMMANDS: Record<string, string | null> = {
  status: './statusCommand.js',
  check: './checkCommand.js',
  'run-once': './runOnceCommand.js',
  none: null,
};

/**
 * What an own file leaves out besides the other commands: modules its command imports at run time
 * (import()) on paths it never takes, as [importer, import]. check asks the API once over
 * node:http (`oneShot`, src/cli/checkCommand.ts), never through undiciWire.js (undici's pool, 0.5 MB
 * with its parser's wasm), and only lists and stats the drop folder, never through the file
 * readers (csv-parse, saxes) nor the watcher: 0.8 MB of its file that each check read, hashed and
 * held twice in the young generation as source, never run (bench/RESULTS.md, "Issue 19: commander,
 * the file exchange and the help's own file").
 */
const NEVER_RUN: Record<string, [string, string][]> = {
  check: [
    ['/src/api/transport.ts', './undiciWire.js'],
    ['/src/erp/file/FileErpAdapter.ts', './openInput.js'],
    ['/src/erp/file/FileErpAdapter.ts', './watchDropFolder.js'],
  ],
};

/**
 * Leaves out of the bundle every command module but KEEP (null: all), and the imports of NEVER: each
 * import() of one becomes a module that throws, which bin/erp-sync.js never reaches (it runs this
 * file only for that command).
 */
function onlyCommand(keep: string | null, never: [string, string][] = []): Plugin {
  return {
    name: 'only-command',
    setup(esbuild) {
      esbuild.onResolve({ filter: /^\.\/\w+Commands?\.js$/ }, (args) =>
        args.importer.endsWith('/src/cli/createProgram.ts') &&
        args.kind === 'dynamic-import' &&
        args.path !== keep
          ? { path: args.path, namespace: 'other-command' }
          : undefined,
      );
      esbuild.onResolve({ filter: /^\.\/\w+\.js$/ }, (args) =>
        args.kind === 'dynamic-import' &&
        never.some(([importer, path]) => args.importer.endsWith(importer) && args.path === path)
          ? { path: args.path, namespace: 'other-command' }
          : undefined,
      );
      esbuild.onLoad({ filter: /.*/, namespace: 'other-command' }, (args) => ({
        contents: `throw new Error(${JSON.stringify(`${args.path} is not in this file: run dist/cli.cjs`)});`,
        loader: 'js',
      }));
    },
  };
}

const at = process.argv.indexOf('--outdir');
const outdir = at === -1 ? join(PROJECT_ROOT, 'dist') : resolve(process.argv[at + 1]!);
rmSync(outdir, { recursive: true, force: true });
const common = {
  absWorkingDir: PROJECT_ROOT,
  outdir,
  bundle: true,
  platform: 'node',
  target: 'node22',
  sourcemap: !process.argv.includes('--no-source-maps'),
  plugins: [sqliteBinding, undiciH2AtFirstCall, pinoWithoutTransports, builtins, externals],
  // What undici's own bundle for Node sets: its HTTP/1.1 client then leaves out the experimental
  // Milo parser (opt-in, 200 kB with its wasm), which nothing here turns on; llhttp parses.
  define: { esbuildDetection: 'true' },
  logLevel: 'warning',
} satisfies BuildOptions;
// The CLI: one CommonJS file that bin/erp-sync.js compiles with a V8 code cache of its own, made
// after the command ran (bin/erp-sync.js says why). Each command's modules still start only
// when the command runs (esbuild turns their import() into a call of their module's function).
const cli = {
  ...common,
  entryPoints: { cli: 'src/cli/runCli.ts' },
  outExtension: { '.js': '.cjs' },
  format: 'cjs',
  // import() of a package left out of the bundle (bullmq, pg) as a require() in a promise: a script
  // compiled by node:vm has no import() without an experimental flag.
  supported: { 'dynamic-import': false },
  // What finds a file beside its own module (the version, the PostgreSQL store's worker) finds it
  // beside dist/cli.cjs.
  define: { ...common.define, 'import.meta.url': '__importMetaUrl' },
  banner: { js: 'const __importMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
} satisfies BuildOptions;
await build(cli);
asciiOnly(join(outdir, 'cli.cjs'));
// The own files of status, check, run-once and no command (cli-status.cjs ...): the same CLI with only
// that command's module in it (bin/erp-sync.js picks the file by command). dist/cli.cjs holds every
// command's code (1.9 MB), which each start read and compiled with its code cache, used or not
// (bench/RESULTS.md, "CLI start" and "run-once's own file").
for (const [command, module] of Object.entries(OWN_FILE_COMMANDS)) {
  await build({
    ...cli,
    entryPoints: { [`cli-${command}`]: 'src/cli/runCli.ts' },
    plugins: [onlyCommand(module, NEVER_RUN[command]), ...common.plugins],
  });
  asciiOnly(join(outdir, `cli-${command}.cjs`));
}
// The entries started by path: the PostgreSQL store's worker thread, the demo's janitor process.
await build({
  ...common,
  entryPoints: ['src/store/sql/postgresWorker.ts', 'src/cli/demo/demoJanitorMain.ts'],
  entryNames: '[name]',
  chunkNames: '[name]-[hash]',
  splitting: true,
  format: 'esm',
  // The bundled CommonJS libraries (yaml, ioredis ...) call require(): an ES module has none. Made
  // at the first call: most chunks never make one.
  banner: {
    js: 'let __require;\nconst require = (id) => (__require ??= process.getBuiltinModule("node:module").createRequire(import.meta.url))(id);',
  },
});

/**
 * Escapes what esbuild left outside ASCII in FILE (a comment of zod's, the console's tagged
 * templates, whose cooked strings html() uses: `\u00b7` is the same `·` there). One character
 * above 0x7f makes V8 hold the whole 1.9 MB source as a two-byte string: bin/erp-sync.js then
 * decodes, copies and hashes twice the bytes at every start, about 4 ms of CPU for each command
 * (bench/RESULTS.md, "What the commands load at start"). The source map's columns move on
 * those few lines only.
 */
function asciiOnly(file: string): void {
  const source = readFileSync(file, 'utf8');
  // eslint-disable-next-line no-control-regex
  const ascii = source.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (ascii !== source) writeFileSync(file, ascii);
}
