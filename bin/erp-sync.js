#!/usr/bin/env -S MALLOC_MMAP_THRESHOLD_=131072 node --max-semi-space-size=16 --min-semi-space-size=4
// The flags on the first line and LONG_RUN_FLAGS below bound V8's heap for long reads (bench/RESULTS.md,
// "1M rows, peak RSS"): the young generation at 2 x 16 MB (by default it grows to 2 x 64 MB, about
// 100 MB of RSS, for no CPU measurably saved), and the old generation collected once it is 1.5x what
// the last collection kept (V8's own factor lets it grow 2-4x: about 420 MB instead of 280 MB for the
// daemon over 1M rows), for about 10% more CPU. The young generation starts at 2 x 4 MB instead of 2 x 1 MB: a short
// command (status, check) loads its modules with 4 scavenges instead of 9, about 25 ms CPU less
// (bench/RESULTS.md, "CLI start"); a long read grows it to 16 MB all the same.
// MALLOC_MMAP_THRESHOLD_ keeps glibc from raising its mmap threshold after freeing a large buffer
// (job payloads, Redis replies): those buffers then fragment its heap and the RSS creeps up over a
// long run (about 25 MB over 1M rows; other C libraries ignore it). `env -S` splits them
// (GNU coreutils 8.30+, macOS); a start as `node bin/erp-sync.js` skips the line: give the flags
// there yourself. dev/nodeFlags.ts reads them for the benches and tests, which start the sources.
// Runs erp-sync. A checkout (the TypeScript sources and the dev dependency tsx are there) runs the
// sources through tsx, so an edit counts at once and no build can go stale; an installed copy (the
// Docker image, an npm-installed package, a host install after `npm prune --omit=dev`: no src/ or
// no tsx) runs the compiled dist/. Two existence checks decide, nothing is walked or compared.
/* global process */
// Built-in modules through process.getBuiltinModule, not `import`: an ES import of node:fs reads
// every export, and its lazy getters load all of node:stream at each start (bench/RESULTS.md, "CLI
// start"); `import process from 'node:process'` would create process.stdout.
const { existsSync, readFileSync, renameSync, statSync, writeFileSync } = process.getBuiltinModule('node:fs');
const module = process.getBuiltinModule('node:module');
const { dirname, join } = process.getBuiltinModule('node:path');
const { fileURLToPath, pathToFileURL } = process.getBuiltinModule('node:url');

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

// An older Node fails later and worse (better-sqlite3 13 needs Node-API 10: a segfault on Node 20),
// so say it first, in the words of package.json's engines (">=22.22.0"). Exit 78: a deployment
// fault, which the systemd unit does not restart.
const { engines } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const floor = /(\d+)\.(\d+)\.(\d+)/.exec(engines.node).slice(1).map(Number);
const current = process.versions.node.split('.').map(Number);
const older = floor.findIndex((part, i) => current[i] !== part);
if (older !== -1 && current[older] < floor[older]) {
  process.stderr.write(
    `erp-sync needs Node.js ${engines.node}; this is ${process.version} (see README, Quick start)\n`,
  );
  process.exit(78);
}

// --heap-growing-percent is set here, not on the first line, and only for the commands that may read
// long: V8 counts it in the hash that the code cache of Node's own modules is checked against, so
// with it every built-in module a command loads is compiled from its source (node:net 7 ms of CPU
// instead of 2, node:http 4.5 instead of 1.4; bench/RESULTS.md, "What the commands load at start").
// Set at run time it bounds the old generation all the same (V8 reads it at each collection), but
// the built-ins loaded after it are compiled again too: the short commands, which read little, go
// without it. dev/nodeFlags.ts reads LONG_RUN_FLAGS for the benches and tests that start the sources.
const LONG_RUN_FLAGS = '--heap-growing-percent=50';
const SHORT_COMMANDS = new Set(['none', 'status', 'check']);
// No command (--version, --help) runs a file with no command's code (dev/buildDist.ts): 0.2 MB, not 2.6.
const OWN_FILE_COMMANDS = new Set(['status', 'check', 'run-once', 'none']);
// The built-ins that run-once loads in every run (undici's pool: node:http, node:net ...; pino:
// node:worker_threads, node:os; the reads: node:fs/promises) are loaded before the flag, from
// Node's code cache: after it, compiled from their source, they were 17% of the instructions of a
// short run-once (bench/RESULTS.md, "run-once's start"). Not node:tls: over http:// nothing loads
// it, and loading it parses the root certificates (over https://, it is compiled after the flag:
// about 8 M instructions; bench/RESULTS.md, "run-once's start, undici and pino").
const LOADED_BEFORE_FLAGS = {
  'run-once': ['os', 'vm', 'assert', 'worker_threads', 'http', 'crypto', 'perf_hooks', 'fs/promises'],
};
const command = commandOf(process.argv.slice(2));
if (!SHORT_COMMANDS.has(command)) {
  for (const name of LOADED_BEFORE_FLAGS[command] ?? []) process.getBuiltinModule(`node:${name}`);
  process.getBuiltinModule('node:v8').setFlagsFromString(LONG_RUN_FLAGS);
}

// V8's code cache on disk (in the system's temporary folder; NODE_DISABLE_COMPILE_CACHE=1 turns it
// off): a start after the first one compiles none of the modules it loads again.
module.enableCompileCache();

const sources = join(root, 'src', 'cli', 'main.ts');
if (existsSync(sources) && existsSync(join(root, 'node_modules', 'tsx', 'package.json'))) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(sources).href);
} else {
  // status, check and run-once have files of their own, with only their command's code (dev/buildDist.ts).
  const own = join(root, 'dist', `cli-${command}.cjs`);
  const ownFile = OWN_FILE_COMMANDS.has(command) && existsSync(own);
  await runCompiledCli(ownFile ? own : join(root, 'dist', 'cli.cjs'), process.argv);
}

/**
 * Runs dist/cli.cjs (dev/buildDist.ts) with a V8 code cache made after the command ran. Node's own
 * compile cache is made when a module is compiled, before it runs, so it holds only the functions
 * V8 compiles up front; every function a command calls is compiled again at each start (zod's
 * schema builders, the configuration's reading, the store's queries): about a fifth of status's
 * and check's CPU (bench/RESULTS.md, "CLI start"). One cache per command, as each calls other
 * functions, beside Node's compile cache (named after the Node version and the user); made again
 * when dist/cli.cjs changes or V8 rejects it (another Node, other flags).
 */
async function runCompiledCli(file, argv) {
  const { Script } = process.getBuiltinModule('node:vm');
  const source = readFileSync(file, 'utf8');
  const dir = module.getCompileCacheDir();
  const { size, mtimeMs } = statSync(file);
  const cache =
    dir && join(dir, `erp-sync-${cacheNameOf(argv.slice(2))}-${size}-${Math.trunc(mtimeMs)}.cache`);
  let cachedData;
  try {
    if (cache) cachedData = readFileSync(cache);
  } catch {
    // none yet
  }
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    cachedData,
  });
  const cli = { exports: {} };
  script.runInThisContext()(cli.exports, module.createRequire(file), cli, file, dirname(file));
  await cli.exports.runCli(argv);
  if (!cache || (cachedData && !script.cachedDataRejected) || (process.exitCode ?? 0) !== 0) return;
  try {
    const temporary = `${cache}.${process.pid}`;
    writeFileSync(temporary, script.createCachedData());
    renameSync(temporary, cache);
  } catch {
    // A cache that cannot be written costs the next start its compiling, nothing else.
  }
}

/**
 * The cache's name: the command's, with `-help` when the line asks a command for its help or the
 * version. Such a run compiles none of the command's own code, and the first cache made is kept:
 * with one name, `check --help` run first left check a cache of the help alone (check 379 M
 * instructions instead of 281 M at each later start; bench/RESULTS.md, "Issue 19: commander, the
 * file exchange and the help's own file").
 */
function cacheNameOf(args) {
  const command = commandOf(args);
  const help = command !== 'none' && args.some((arg) => ['-h', '--help', '-V', '--version'].includes(arg));
  return help ? `${command}-help` : command;
}

/** The command's name: the first word that is not an option nor an option's value. */
function commandOf(args) {
  for (let i = 0; i < args.length; i++) {
    if (['-c', '--config', '--account'].includes(args[i])) i++;
    else if (!args[i].startsWith('-')) return /^[a-z][a-z-]{0,30}$/.test(args[i]) ? args[i] : 'other';
  }
  return 'none';
}
