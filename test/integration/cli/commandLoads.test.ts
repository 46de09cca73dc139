import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeConfigFile } from '../../../src/config.js';
import { startSandbox, type Sandbox } from '../../../src/sandbox/index.js';
import { openStore } from '../../../src/store/index.js';
import { CLI_ENTRY, PROJECT_ROOT } from '../../support/cli.js';
import { startPrivateRedis, type PrivateRedis } from '../../../dev/redisServer.js';

// A command loads what it needs when it runs (src/cli/createProgram.ts): the start of `--version`
// and `--help` is commander alone, `status` and `check` load the libraries of their own job only.
// Observed on real child processes, by the packages of package.json's dependencies they load
// (imported or required, transitively), so a new static import of a heavy library fails here
// without any timing.

const DEPENDENCIES = Object.keys(
  (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { dependencies: object })
    .dependencies,
);
/** What the configuration alone needs: the parser, its schema (zod, cron expressions); iconv-lite only for an encoding other than UTF-8. */
const CONFIG = ['commander', 'node-cron', 'yaml', 'zod'];
/** Never for these four commands: the daemon, the servers, the SQL drivers, the progress bar. */
const NEVER = [
  '@bull-board/api',
  '@bull-board/fastify',
  'chokidar',
  'cli-progress',
  'fastify',
  'knex',
  'mysql2',
  'pg',
  'pg-cursor',
  'prom-client',
  'tedious',
];

let dir: string;
let redis: PrivateRedis;
let sandbox: Sandbox;
const configs = { redisUp: '', redisAway: '' };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'erp-sync-loads-'));
  redis = await startPrivateRedis();
  sandbox = await startSandbox({ port: 0 });
  writeFileSync(join(dir, 'stock.csv'), 'sku,quantity\nA,1\n');
  const deployment = (url: string) => ({
    api: { baseUrl: sandbox.url, apiKey: sandbox.keys.primary },
    erp: { type: 'file' as const, path: dir },
    store: { path: join(dir, 'store.db') },
    redis: { url, prefix: 'loads' },
  });
  configs.redisUp = join(dir, 'up.yaml');
  configs.redisAway = join(dir, 'away.yaml');
  writeConfigFile(configs.redisUp, deployment(redis.url));
  writeConfigFile(configs.redisAway, deployment('redis://127.0.0.1:9'));
  openStore(join(dir, 'store.db')).close(); // status shows a store, it never creates one
});

afterAll(async () => {
  await sandbox?.close();
  await redis?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The dependencies (package.json) that `erp-sync ARGS` loaded, sorted, and its exit code. */
function dependenciesLoadedBy(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; loaded: string[] }> {
  const loads = join(dir, 'loads.txt');
  writeFileSync(loads, '');
  const recorder = join(PROJECT_ROOT, 'test/support/recordModuleLoads.mjs');
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--import', recorder, CLI_ENTRY, ...args], {
      cwd: PROJECT_ROOT,
      env: { PATH: process.env.PATH ?? '', ...env, MODULE_LOADS_FILE: loads },
      stdio: 'ignore',
    });
    child.once('error', fail);
    child.once('exit', (code) => {
      const packages = new Set(
        [...readFileSync(loads, 'utf8').matchAll(/\/node_modules\/((?:@[^/]+\/)?[^/]+)\//g)].map(
          (m) => m[1]!,
        ),
      );
      done({ code, loaded: DEPENDENCIES.filter((name) => packages.has(name)).sort() });
    });
  });
}

describe('what each command loads', () => {
  it('--version and --help load commander and nothing else', async () => {
    for (const args of [['--version'], ['--help'], ['status', '--help']]) {
      const run = await dependenciesLoadedBy(args);
      expect(run.code, args.join(' ')).toBe(0);
      expect(run.loaded, args.join(' ')).toEqual(['commander']);
    }
  });

  it('status loads the configuration and the store, and no BullMQ and no ioredis', async () => {
    // Queue counts, pause and workers are read with plain Redis commands (readQueueState) over a
    // RESP connection of its own (RespConnection).
    for (const config of [configs.redisAway, configs.redisUp]) {
      const run = await dependenciesLoadedBy(['status', '--config', config]);
      expect(run.code).toBe(0);
      expect(run.loaded).toEqual([...CONFIG, 'better-sqlite3'].sort());
    }
  });

  it('check loads the file adapter and the store, but no BullMQ, no ioredis, no undici and no pino', async () => {
    const check = await dependenciesLoadedBy(['check', '--config', configs.redisUp]);
    // Exit 0: every line ok, GET /account included (over node:http, the client's oneShot).
    expect(check.code).toBe(0);
    // The file adapter's CSV reader did load: the recorder sees it.
    expect(check.loaded).toEqual(expect.arrayContaining(['csv-parse', 'better-sqlite3']));
    expect(check.loaded).not.toContain('bullmq');
    expect(check.loaded).not.toContain('ioredis');
    expect(check.loaded).not.toContain('iconv-lite');
    expect(check.loaded).not.toContain('undici');
    // Its logger is silent (silentLogger): pino is loaded by a logger that writes.
    expect(check.loaded).not.toContain('pino');
    expect(check.loaded.filter((name) => NEVER.includes(name))).toEqual([]);
  });

  it('run-once loads OpenTelemetry only when OTEL_EXPORTER_OTLP_ENDPOINT names a collector', async () => {
    const tracing = (loaded: string[]) =>
      loaded.filter((name) => name.startsWith('@opentelemetry/') || name === 'bullmq-otel');
    const off = await dependenciesLoadedBy(['run-once', '--only', 'stock', '--config', configs.redisUp]);
    expect(off.loaded).toContain('undici');
    expect(tracing(off.loaded)).toEqual([]);
    // Not on a terminal (stderr is not a TTY here): progress is log lines, the bar is not loaded.
    expect(off.loaded).not.toContain('cli-progress');

    // A collector that is not there: the run goes on, the spans are lost.
    const on = await dependenciesLoadedBy(['run-once', '--only', 'stock', '--config', configs.redisUp], {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
    });
    expect(on.code).toBe(off.code);
    expect(tracing(on.loaded)).toEqual(
      expect.arrayContaining(['@opentelemetry/sdk-trace', '@opentelemetry/instrumentation-undici']),
    );
  });
});
