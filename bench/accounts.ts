/**
 * npm run bench:accounts [-- --skus 20000] [-- --runs 3] [-- --record]
 *
 * Two accounts in one daemon (`erp-sync start` with `accounts:`, a child process), each against its
 * own sandbox (its own company) on a private redis-server. Per run, every one of N SKUs changes:
 * 1. account a alone: a's stock run through its queues, trigger to the last bulk request its
 *    sandbox answered;
 * 2. both accounts at once: both runs enqueued together, each one's trigger to its last answer;
 * 3. a while b is throttled: b's sandbox answers 429 beyond 2 requests a second, both runs
 *    enqueued together, a's time (b goes on slowly, waiting as told);
 * then the floor: the same bulk bodies from one keep-alive client to a's sandbox, 4 in flight.
 * --record rewrites the "## Accounts" section of bench/RESULTS.md.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeConfigFile } from '../src/config.js';
import { PIPELINE_ORDER } from '../src/domain/pipelineNames.js';
import { openQueueClient, type QueueClient } from '../src/queue/queueClient.js';
import { startSandbox, type Sandbox } from '../src/sandbox/index.js';
import { startDaemonProcess } from '../dev/daemonProcess.js';
import { startPrivateRedis } from '../dev/redisServer.js';
import { hasFlag, numberArg } from './support/benchArgs.js';
import { machineLine } from './support/machineLine.js';
import { median, sendRawFloor } from './support/rawFloor.js';
import { recordSection } from './support/recordSection.js';
import { runThroughQueue } from './support/runThroughQueue.js';
import { bulkSku, writeStockCsv } from './support/writeStockCsv.js';

const SKUS = numberArg('skus', 20_000);
const RUNS = numberArg('runs', 3);
const CONCURRENCY = 4;
const RECORD = hasFlag('record');
const THROTTLE = 'rate_limit=2/s';

const log = (text: string): void => void process.stderr.write(`${text}\n`);
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ');

interface BenchAccount {
  name: string;
  sandbox: Sandbox;
  stockCsv: string;
  queues?: QueueClient;
}

/** Seconds from the trigger to the last bulk stock request the account's sandbox answered. */
function lastAckSeconds(account: BenchAccount, triggeredAt: number): number {
  const bulk = account.sandbox.requestLog
    .entries()
    .filter((e) => e.method === 'PATCH' && e.path.endsWith('/products/stock/bulk') && e.status === 200);
  return (Math.max(...bulk.map((e) => Date.parse(e.at) + e.durationMs)) - triggeredAt) / 1000;
}

/** Every SKU of each account changes, then each account's run is triggered at once; seconds per account. */
async function push(accounts: BenchAccount[], value: number): Promise<number[]> {
  await Promise.all(accounts.map((a) => writeStockCsv(a.stockCsv, (n) => (n % 89) + value, SKUS)));
  for (const account of accounts) account.sandbox.requestLog.clear();
  const runs = await Promise.all(accounts.map((a) => runThroughQueue(a.queues!, 'stock')));
  return accounts.map((account, i) => lastAckSeconds(account, runs[i]!.triggeredAt));
}

async function main(): Promise<void> {
  log(`starting Redis and two sandboxes with ${SKUS} products each...`);
  const redis = await startPrivateRedis();
  const dir = mkdtempSync(join(tmpdir(), 'erp-sync-bench-accounts-'));
  const accounts: BenchAccount[] = [];
  for (const name of ['a', 'b']) {
    const sandbox = await startSandbox({ port: 0, seed: 'empty', extraProducts: SKUS, recordBodies: false });
    mkdirSync(join(dir, name));
    accounts.push({ name, sandbox, stockCsv: join(dir, name, 'stock.csv') });
  }
  const [a, b] = accounts as [BenchAccount, BenchAccount];
  const configFile = writeConfigFile(join(dir, 'config.yaml'), {
    sync: { batchSize: 1000, concurrency: CONCURRENCY },
    orders: { oversellGuard: { enabled: false } },
    log: { level: 'warn' },
    redis: { prefix: 'bench' },
    server: { host: '127.0.0.1', port: 0 },
    schedules: Object.fromEntries(PIPELINE_ORDER.map((pipeline) => [pipeline, 'off'])),
    accounts: accounts.map((account) => ({
      name: account.name,
      api: { baseUrl: account.sandbox.url, apiKeyEnv: `${account.name.toUpperCase()}_KEY` },
      erp: { type: 'file', path: join(dir, account.name), stableMs: 0 },
    })),
  });
  const env = { REDIS_URL: redis.url, A_KEY: a.sandbox.keys.primary, B_KEY: b.sandbox.keys.primary };
  const daemon = await startDaemonProcess(configFile, env, { readyTimeoutMs: 120_000 });
  const rows: string[] = [];
  const ratios = { alone: [] as number[], both: [] as number[], throttled: [] as number[] };
  try {
    for (const account of accounts)
      account.queues = await openQueueClient({ url: redis.url, prefix: `bench-${account.name}` });
    log('first push of both accounts (fresh stores)...');
    await push(accounts, 1);
    for (let r = 1; r <= RUNS; r++) {
      const started = load();
      const [alone] = await push([a], 100 * r);
      const [aBoth, bBoth] = await push(accounts, 100 * r + 10);
      b.sandbox.setFaults(THROTTLE);
      const [aThrottled, bThrottled] = await push(accounts, 100 * r + 20);
      const throttled429 = b.sandbox.requestLog.entries().filter((e) => e.status === 429).length;
      b.sandbox.setFaults(null);
      const floor = await sendRawFloor(
        a.sandbox,
        Array.from({ length: SKUS }, (_, i) => bulkSku(i + 1)),
        (i) => (i % 89) + 50 + r * 100,
        {
          batch: 1000,
          concurrency: CONCURRENCY,
        },
      );
      ratios.alone.push(alone! / floor);
      ratios.both.push(aBoth! / alone!);
      ratios.throttled.push(aThrottled! / alone!);
      rows.push(
        `| ${r} | ${started} | ${alone!.toFixed(2)} | ${aBoth!.toFixed(2)} / ${bBoth!.toFixed(2)} | ${aThrottled!.toFixed(2)} (b: ${bThrottled!.toFixed(2)}, ${throttled429} x 429) | ${floor.toFixed(2)} |`,
      );
      log(rows.at(-1)!);
    }
  } finally {
    for (const account of accounts) await account.queues?.close();
    daemon.kill('SIGTERM');
    await daemon.exited;
    for (const account of accounts) await account.sandbox.close();
    await redis.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const heading = '## Accounts (two accounts in one daemon)';
  const section = [
    heading,
    '',
    `Command: \`npm run bench:accounts -- --skus ${SKUS}${RUNS !== 3 ? ` --runs ${RUNS}` : ''}\` (batch 1000, concurrency ${CONCURRENCY} per account, ${RUNS} runs). ${machineLine()}`,
    '`erp-sync start` with two `accounts:` entries runs as a child process on a private redis-server; each account',
    'has its own sandbox (company) in the bench process. Every SKU of an account changes, its run is enqueued',
    'through its own queues (prefix bench-a, bench-b); the time is the trigger to the last bulk request its sandbox',
    `answered. "b throttled": b's sandbox answers 429 beyond ${THROTTLE.replace('rate_limit=', '')} (Retry-After) while both push. Floor: the same`,
    `bodies from one keep-alive client to a's sandbox, ${CONCURRENCY} in flight. Load average (1 / 5 / 15 min) at each run's start.`,
    '',
    `| run (${SKUS / 1000}k SKUs each) | load | a alone s | both at once s (a / b) | a while b is throttled s | floor s |`,
    '|---|---|---|---|---|---|',
    ...rows,
    `| median | | ${median(ratios.alone).toFixed(2)}x the floor | a: ${median(ratios.both).toFixed(2)}x alone | a: **${median(ratios.throttled).toFixed(2)}x alone** | |`,
    '',
    'Aim: a throttled account costs the other nothing beyond sharing the 2 cores (a while b is throttled within',
    '1.5x of a alone); both at once share the CPU of one process (each about 2x alone at most on 2 cores).',
    '',
  ].join('\n');
  process.stdout.write(`\n${section}\n`);
  if (RECORD) recordSection(heading, section);
}

await main();
