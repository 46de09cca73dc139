/**
 * npm run bench:cli [-- --runs 15] [-- --before REF] [-- --record]
 *
 * How fast the erp-sync command starts: the whole process's wall time, CPU time and peak RSS of
 * `--version`, `--help`, `status` and `check`, against a bare `node -e 0` measured in the same run
 * (the floor: Node's own start). Layouts:
 * - installed: bin/erp-sync.js beside dist/ and no src/, as the Docker image runs it (dist is
 *   built into a temporary folder as `npm run build` builds it first: the bundle of dev/buildDist.ts);
 * - checkout: bin/erp-sync.js of this checkout, which runs the sources through tsx;
 * - with --before REF: the installed layout of another commit (git archive, built as that commit
 *   builds it, on this checkout's node_modules), to compare with in the same run.
 * `status` and `check` run against a real deployment: the sandbox (in this process), a private
 * redis-server, the file adapter on config/sample, an existing store. Runs go round-robin (each
 * round runs every command once) so that the machine's load falls on all of them alike; the
 * median of --runs rounds is reported, after two warm-up rounds (the compile cache and tsx's
 * cache fill). CPU time and peak RSS come from 5 more rounds in which each process reports its
 * getrusage at exit. --record rewrites the "## CLI start" section of bench/RESULTS.md.
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { writeConfigFile } from '../src/config.js';
import { startSandbox } from '../src/sandbox/index.js';
import { openStore } from '../src/store/index.js';
import { startPrivateRedis } from '../dev/redisServer.js';
import { hasFlag, numberArg } from './support/benchArgs.js';
import { installedLayout } from './support/installedLayout.js';
import { machineLine } from './support/machineLine.js';
import { recordSection } from './support/recordSection.js';

const RUNS = numberArg('runs', 15);
const RECORD = hasFlag('record');
const BEFORE = process.argv.includes('--before')
  ? process.argv[process.argv.indexOf('--before') + 1]
  : undefined;
/** The goal of issue 19: each command within 3x a bare `node -e 0`. */
const GOAL = 3;
const ROOT = resolve('.');
const FLOOR = 'node -e 0';

interface Case {
  name: string;
  args: string[];
}

interface Usage {
  cpuMs: number;
  rssMb: number;
}

/** Runs `node ARGS` to its end (exit 0 expected); resolves with the wall time in ms. */
async function timed(args: string[], env: Record<string, string>): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number];
  const ms = performance.now() - started;
  if (code !== 0) throw new Error(`node ${args.join(' ')} exited ${code}: ${stderr}`);
  return ms;
}

/** The node flags of a bin's `#!/usr/bin/env -S node ...` line (dev/nodeFlags.ts reads this checkout's). */
function nodeFlagsOf(bin: string): string[] {
  const first = readFileSync(bin, 'utf8').split('\n', 1)[0]!;
  return first.startsWith('#!') ? first.split(' ').filter((word) => word.startsWith('--')) : [];
}

/** CPU time and peak RSS of `node ARGS`: the process writes its getrusage when it exits. */
async function usage(args: string[], env: Record<string, string>, dir: string): Promise<Usage> {
  const file = join(dir, 'usage.json');
  await timed(['--import', join(dir, 'reportUsage.mjs'), ...args], { ...env, USAGE_FILE: file });
  const { userCPUTime, systemCPUTime, maxRSS } = JSON.parse(
    readFileSync(file, 'utf8'),
  ) as NodeJS.ResourceUsage;
  return { cpuMs: (userCPUTime + systemCPUTime) / 1000, rssMb: maxRSS / 1024 };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'erp-sync-bench-cli-'));
  const redis = await startPrivateRedis();
  const sandbox = await startSandbox({ port: 0, seed: 'demo' });
  try {
    writeFileSync(
      join(dir, 'reportUsage.mjs'),
      // Not `import ... from 'node:fs'`: that loads all of node:stream in every measured process.
      "process.on('exit', () => process.getBuiltinModule('node:fs').writeFileSync(process.env.USAGE_FILE, JSON.stringify(process.resourceUsage())));\n",
    );
    const bins: Record<string, string> = { installed: installedLayout(ROOT, join(dir, 'installed')) };
    if (BEFORE) {
      const sources = join(dir, 'before-src');
      mkdirSync(sources);
      execFileSync('bash', [
        '-c',
        `git archive ${JSON.stringify(BEFORE)} | tar -x -C ${JSON.stringify(sources)}`,
      ]);
      symlinkSync(join(ROOT, 'node_modules'), join(sources, 'node_modules'));
      bins[`before (${BEFORE}), installed`] = installedLayout(sources, join(dir, 'before'));
    }
    bins.checkout = join(ROOT, 'bin', 'erp-sync.js');

    // A deployment for status and check: the sample ERP folder, an existing store, Redis, the sandbox.
    const erp = join(dir, 'erp');
    mkdirSync(erp);
    cpSync(join(ROOT, 'config', 'sample'), erp, { recursive: true });
    const configFile = join(dir, 'erp-sync.yaml');
    writeConfigFile(configFile, {
      api: { baseUrl: sandbox.url, apiKey: sandbox.keys.primary },
      erp: { type: 'file', path: erp },
      store: { path: join(dir, 'erp-sync.db') },
      redis: { url: redis.url, prefix: 'bench-cli' },
    });
    openStore(join(dir, 'erp-sync.db')).close();

    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TMPDIR: tmpdir() };
    const cases: Case[] = [{ name: FLOOR, args: ['-e', '0'] }];
    for (const [layout, bin] of Object.entries(bins)) {
      // With the V8 flags of the bin's first line, as an executable start gets them.
      const start = [...nodeFlagsOf(bin), bin];
      cases.push(
        { name: `${layout}: --version`, args: [...start, '--version'] },
        { name: `${layout}: --help`, args: [...start, '--help'] },
        { name: `${layout}: status`, args: [...start, 'status', '-c', configFile] },
        { name: `${layout}: check`, args: [...start, 'check', '-c', configFile] },
      );
    }

    const wall = new Map<string, number[]>(cases.map((c) => [c.name, []]));
    for (let round = -2; round < RUNS; round++) {
      for (const c of cases) {
        const ms = await timed(c.args, env);
        if (round >= 0) wall.get(c.name)!.push(ms);
      }
      if (round >= 0) process.stderr.write(`\rround ${round + 1}/${RUNS}`);
    }
    process.stderr.write('\n');
    const used = new Map<string, Usage[]>(cases.map((c) => [c.name, []]));
    for (let round = 0; round < 5; round++)
      for (const c of cases) used.get(c.name)!.push(await usage(c.args, env, dir));

    const floor = median(wall.get(FLOOR)!);
    const floorCpu = median(used.get(FLOOR)!.map((u) => u.cpuMs));
    const rows = cases.map((c) => {
      const ms = median(wall.get(c.name)!);
      const cpu = median(used.get(c.name)!.map((u) => u.cpuMs));
      const rss = median(used.get(c.name)!.map((u) => u.rssMb));
      const within = c.name === FLOOR ? '' : ms / floor <= GOAL ? 'yes' : 'no';
      return `| ${c.name} | ${ms.toFixed(0)} | ${(ms / floor).toFixed(1)}x | ${cpu.toFixed(0)} | ${(cpu / floorCpu).toFixed(1)}x | ${rss.toFixed(0)} | ${within} |`;
    });
    const section = [
      '## CLI start',
      '',
      `Command: \`npm run bench:cli${BEFORE ? ` -- --before ${BEFORE}` : ''}\` (\`bench/cli.ts\`, ${RUNS} rounds). ` +
        `${machineLine()} Load average ${loadavg()[0]!.toFixed(1)} at the end (the machine is shared).`,
      'Each command as a whole process against a bare `node -e 0` in the same run (goal: at most 3x its',
      'wall time): wall time (median), CPU time (user + system, median; steadier than wall time on a',
      'loaded machine) and peak RSS. "installed" is bin/erp-sync.js running dist/ as in the Docker image;',
      '"checkout" is bin/erp-sync.js in a checkout, running the sources through tsx. `status` and `check`',
      'read a real deployment: the sample ERP folder, an existing store, a private redis-server, the',
      'sandbox (check calls GET /account). Each bin runs with the V8 flags of its first line, as an',
      'executable start gets them.',
      '',
      '| command | wall ms | wall vs node -e 0 | CPU ms | CPU vs node -e 0 | peak RSS MB | within 3x |',
      '|---|---|---|---|---|---|---|',
      ...rows,
    ].join('\n');
    process.stdout.write(`${section}\n`);
    if (RECORD) recordSection('## CLI start', section);
  } finally {
    await sandbox.close();
    await redis.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
