/**
 * npm run bench:cli [-- --runs 15] [-- --record]
 *
 * How fast the erp-sync command starts: the whole process's wall time and peak RSS of
 * `--version`, `--help`, `status` and `check`, against a bare `node -e 0` measured in the same run
 * (the floor: Node's own start). Two layouts:
 * - installed: bin/erp-sync.js beside dist/ and no src/, as the Docker image runs it (dist is
 *   compiled into a temporary folder by `tsc -p tsconfig.build.json` first);
 * - checkout: bin/erp-sync.js of this checkout, which runs the sources through tsx.
 * `status` and `check` run against a real configuration: the sandbox (in this process), a private
 * redis-server, the file adapter on config/sample, an existing store. Runs go round-robin (each
 * round runs every command once) so that the machine's load falls on all of them alike; the
 * median of --runs rounds is reported, after two warm-up rounds (the compile cache and tsx's
 * cache fill). Peak RSS comes from separate runs that report getrusage's maxRSS at exit.
 * --record rewrites the "## CLI start" section of bench/RESULTS.md.
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { writeConfigFile } from '../src/config.js';
import { startSandbox } from '../src/sandbox/index.js';
import { openStore } from '../src/store/index.js';
import { startPrivateRedis } from '../test/support/redisServer.js';
import { hasFlag, numberArg } from './support/benchArgs.js';
import { machineLine } from './support/machineLine.js';
import { recordSection } from './support/recordSection.js';

const RUNS = numberArg('runs', 15);
const RECORD = hasFlag('record');
/** The goal of issue 19: each command within 3x a bare `node -e 0`. */
const GOAL = 3;
const ROOT = resolve('.');
const log = (text: string): void => void process.stderr.write(`${text}\n`);

interface Case {
  name: string;
  args: string[];
  env?: Record<string, string>;
  okCodes?: number[];
}

/** Runs `node ARGS` to its end; resolves with the wall time in ms. */
async function timed(args: string[], env: Record<string, string>, okCodes: number[]): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number];
  const ms = performance.now() - started;
  if (!okCodes.includes(code)) throw new Error(`node ${args.join(' ')} exited ${code}: ${stderr}`);
  return ms;
}

/** Peak RSS in MB of `node ARGS`: the process writes getrusage's maxRSS when it exits. */
async function peakRss(
  args: string[],
  env: Record<string, string>,
  okCodes: number[],
  dir: string,
): Promise<number> {
  const file = join(dir, 'max-rss');
  const reporter = join(dir, 'reportMaxRss.mjs');
  await timed(['--import', reporter, ...args], { ...env, MAX_RSS_FILE: file }, okCodes);
  return Number(readFileSync(file, 'utf8')) / 1024;
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
      join(dir, 'reportMaxRss.mjs'),
      "import { writeFileSync } from 'node:fs';\n" +
        "process.on('exit', () => writeFileSync(process.env.MAX_RSS_FILE, String(process.resourceUsage().maxRSS)));\n",
    );
    // The installed layout: bin/, dist/, package.json and the dependencies, no src/.
    const installed = join(dir, 'installed');
    log('compiling dist/ for the installed layout ...');
    execFileSync(
      process.execPath,
      ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json', '--outDir', join(installed, 'dist')],
      { stdio: 'inherit' },
    );
    cpSync(join(ROOT, 'bin'), join(installed, 'bin'), { recursive: true });
    cpSync(join(ROOT, 'package.json'), join(installed, 'package.json'));
    symlinkSync(join(ROOT, 'node_modules'), join(installed, 'node_modules'));

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
    const bins = {
      installed: join(installed, 'bin', 'erp-sync.js'),
      checkout: join(ROOT, 'bin', 'erp-sync.js'),
    };
    const cases: Case[] = [{ name: 'node -e 0', args: ['-e', '0'] }];
    for (const [layout, bin] of Object.entries(bins)) {
      cases.push(
        { name: `${layout}: --version`, args: [bin, '--version'] },
        { name: `${layout}: --help`, args: [bin, '--help'] },
        { name: `${layout}: status`, args: [bin, 'status', '-c', configFile] },
        // check's exit code is 0 only when every line is ok: the sample folder has bad rows (not a check line).
        { name: `${layout}: check`, args: [bin, 'check', '-c', configFile] },
      );
    }

    const wall = new Map<string, number[]>(cases.map((c) => [c.name, []]));
    for (let round = -2; round < RUNS; round++) {
      for (const c of cases) {
        const ms = await timed(c.args, { ...env, ...c.env }, c.okCodes ?? [0]);
        if (round >= 0) wall.get(c.name)!.push(ms);
      }
      if (round >= 0) process.stderr.write(`\rround ${round + 1}/${RUNS}`);
    }
    process.stderr.write('\n');
    const rss = new Map<string, number[]>(cases.map((c) => [c.name, []]));
    for (let round = 0; round < 3; round++)
      for (const c of cases)
        rss.get(c.name)!.push(await peakRss(c.args, { ...env, ...c.env }, c.okCodes ?? [0], dir));

    const floor = median(wall.get('node -e 0')!);
    const rows = cases.map((c) => {
      const ms = median(wall.get(c.name)!);
      const ratio = ms / floor;
      return `| ${c.name} | ${ms.toFixed(0)} | ${ratio.toFixed(1)}x | ${median(rss.get(c.name)!).toFixed(0)} | ${c.name === 'node -e 0' ? '' : ratio <= GOAL ? 'yes' : 'no'} |`;
    });
    const section = [
      '## CLI start',
      '',
      `Command: \`npm run bench:cli\` (\`bench/cli.ts\`, ${RUNS} rounds). ${machineLine()} Load average ` +
        `${loadavg()[0]!.toFixed(1)} at the end (the machine is shared).`,
      'Whole-process wall time (median) and peak RSS of each command, against a bare `node -e 0` in the',
      'same run (goal: at most 3x). "installed" is bin/erp-sync.js running dist/ as in the Docker image;',
      '"checkout" is bin/erp-sync.js in a checkout, running the sources through tsx. `status` and `check`',
      'read a real deployment: the sample ERP folder, an existing store, a private redis-server, the',
      'sandbox (check calls GET /account).',
      '',
      '| command | wall ms | vs node -e 0 | peak RSS MB | within 3x |',
      '|---|---|---|---|---|',
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
