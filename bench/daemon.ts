/**
 * npm run bench:daemon [-- --skus 100000] [-- --orders 10000] [-- --record]
 *
 * A running daemon (`erp-sync start` as a child process, a private redis-server, the sandbox in
 * this process, the file adapter):
 * 1. stock: every one of N SKUs changes in stock.csv; a manual run is enqueued through Redis (what
 *    `erp-sync sync stock` does). Measured: from that trigger to the last bulk request the sandbox
 *    answered (its request log), and to the run job's completion. Against it, in the same run and on
 *    the same sandbox, a raw client sends the same bulk bodies (the quantities changed once more, so
 *    they are real changes too) with the same concurrency: the floor of what any sync could do.
 *    Then the same file again, unchanged: the tick (trigger to job done) and its write requests.
 * 2. orders: M new platform orders (created through the sandbox first), one orders run through the
 *    queue until every order is in the outbox: requests, time, the daemon's peak RSS (VmHWM);
 *    against the outbox writes alone (the adapter's atomic writer, synced to disk (O_SYNC) included, the same number
 *    of files, orders.concurrency at a time) in the same run. --orders-concurrency N sets the
 *    daemon's orders.concurrency and the floor's writes at once (default: the file adapter's own bound).
 * 3. --rss-rows N (off by default): one stock run over an N-row stock.csv (SKUs beyond the
 *    sandbox's products are unknown to the platform) in a fresh daemon: its peak RSS.
 * Each part gets a fresh daemon process, so its peak RSS is its own. --record rewrites the
 * "## Daemon" section of bench/RESULTS.md.
 *
 * --store postgres: every part twice in the same run: with the SQLite store (the reference), then
 * with the PostgreSQL store (a schema of its own on BENCH_PG_URL, default
 * postgres://postgres@127.0.0.1:5432/test, dropped at the end), each on a world of its own (Redis,
 * sandbox, folder) so both start from the same state; --record rewrites the "## Daemon, PostgreSQL
 * store against SQLite" section.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { BulkStockItem } from '../src/api/inputs.js';
import { writeConfigFile } from '../src/config.js';
import { writeNewFileAtomic } from '../src/erp/file/orders/atomicFile.js';
import { FILE_IMPORTS_AT_ONCE } from '../src/erp/file/FileErpAdapter.js';
import { enqueueRun } from '../src/queue/enqueueRun.js';
import { openQueueClient, type QueueClient } from '../src/queue/queueClient.js';
import { readRunJob } from '../src/queue/readRunJob.js';
import { startSandbox, type Sandbox } from '../src/sandbox/index.js';
import { startDaemonProcess, type DaemonProcess } from '../dev/daemonProcess.js';
import { startPrivateRedis, type PrivateRedis } from '../dev/redisServer.js';
import { median, sendRawFloor } from './support/rawFloor.js';
import { recordSection } from './support/recordSection.js';
import { hasFlag, numberArg, stringArg } from './support/benchArgs.js';
import { machineLine } from './support/machineLine.js';
import { createPlatformOrders } from './support/createPlatformOrders.js';
import { peakRssMb } from './support/peakRssMb.js';
import { timeOutboxWrites } from './support/timeOutboxWrites.js';
import { bulkSku, writeStockCsv as writeRows } from './support/writeStockCsv.js';
import { redisCpuSeconds } from './support/redisCpuSeconds.js';

const SKUS = numberArg('skus', 100_000);
const ORDERS = numberArg('orders', 10_000);
const BATCH = numberArg('batch', 1000);
/** Milliseconds the sandbox waits before every request (its latency fault): a WAN; 0 is loopback. */
const LATENCY = numberArg('latency', 0);
const RUNS = numberArg('runs', 3);
const RSS_ROWS = numberArg('rss-rows', 0);
const PROFILE_DIR = stringArg('cpu-prof');
const CONCURRENCY = numberArg('concurrency', 4);
/** orders.concurrency of the daemon (default: the file adapter's own bound); the outbox floor writes as many at once. */
const ORDERS_CONCURRENCY = numberArg('orders-concurrency', FILE_IMPORTS_AT_ONCE);
const RECORD = hasFlag('record');
const STORE = stringArg('store') ?? 'sqlite';
if (STORE !== 'sqlite' && STORE !== 'postgres') {
  process.stderr.write(`--store is sqlite or postgres, got '${STORE}'\n`);
  process.exit(64);
}
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
/** SQLite then PostgreSQL in the same run. */
const COMPARE = STORE === 'postgres';
const PREFIX = 'bench';

/** Where the daemon's time goes, printed under the table. */
const breakdown: string[] = [];
/** The unchanged ticks' rows. */
const unchanged: string[] = [];
/** User + system CPU seconds of a process so far (/proc/PID/stat, clock ticks of 10 ms). */
const cpuSeconds = (pid: number | undefined): number => {
  const { user, system } = cpuSplit(pid);
  return user + system;
};
/**
 * The same, user and system apart: the kernel's file work (fsync, link) moves with the disk's other load.
 * `jsThread`: the process's main thread alone (the event loop's, without libuv's and V8's helper threads).
 */
const cpuSplit = (pid: number | undefined, jsThread = false): { user: number; system: number } => {
  const path = jsThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`;
  const fields = readFileSync(path, 'utf8').split(') ')[1]!.split(' ');
  return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 };
};
const sku = bulkSku;
const cpuOf = (usage: NodeJS.CpuUsage): number => (usage.user + usage.system) / 1e6;
const log = (text: string): void => void process.stderr.write(`${text}\n`);
const uptime = (): string =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ');

const writeStockCsv = (path: string, quantity: (n: number) => number, rows = SKUS): Promise<void> =>
  writeRows(path, quantity, rows);

interface World {
  redis: PrivateRedis;
  sandbox: Sandbox;
  dir: string;
  erpDir: string;
  configFile: string;
  env: Record<string, string>;
}

async function runThroughQueue(
  queues: QueueClient,
  pipeline: 'stock' | 'orders',
): Promise<{ triggeredAt: number; completedAt: number; scanSeconds: number }> {
  const runs = queues.queue('runs');
  const triggeredAt = Date.now();
  const job = await enqueueRun(runs, pipeline, { trigger: 'manual' });
  for (;;) {
    const view = await readRunJob(runs, job.id!);
    if (view?.state === 'completed')
      return { triggeredAt, completedAt: Date.now(), scanSeconds: view.summary?.seconds ?? NaN };
    if (view?.state === 'failed') throw new Error(`${pipeline} run failed: ${JSON.stringify(view)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function withDaemon<T>(world: World, body: (daemon: DaemonProcess, queues: QueueClient) => Promise<T>) {
  const daemon = await startDaemonProcess(world.configFile, world.env, { readyTimeoutMs: 120_000 });
  const queues = await openQueueClient({ url: world.redis.url, prefix: PREFIX });
  try {
    return await body(daemon, queues);
  } finally {
    await queues.close();
    daemon.kill('SIGTERM');
    await daemon.exited;
  }
}

async function stockPart(world: World): Promise<string[]> {
  const rows: string[] = [];
  const { sandbox } = world;
  const stockCsv = join(world.erpDir, 'stock.csv');
  const skus = Array.from({ length: SKUS }, (_, i) => sku(i + 1));
  await writeStockCsv(stockCsv, (n) => (n % 89) + 1);
  const redisClient = world.redis.client();
  return withDaemon(world, async (daemon, queues) => {
    log(`first push of ${SKUS} SKUs (fresh store)...`);
    sandbox.requestLog.clear();
    await runThroughQueue(queues, 'stock');
    const ratios: number[] = [];
    const cpuRatios: number[] = [];
    for (let r = 1; r <= RUNS; r++) {
      await writeStockCsv(stockCsv, (n) => (n % 89) + 1 + r * 100);
      const load = uptime();
      log(`run ${r}: every SKU changed, pushing through the daemon...`);
      sandbox.requestLog.clear();
      const cpuBefore = cpuSeconds(daemon.child.pid);
      const benchBefore = process.cpuUsage();
      const redisBefore = await redisCpuSeconds(redisClient);
      const run = await runThroughQueue(queues, 'stock');
      const daemonCpu = cpuSeconds(daemon.child.pid) - cpuBefore;
      // The sandbox (this process, polling included) and Redis: the work the daemon's run costs besides its own.
      const sandboxCpu = cpuOf(process.cpuUsage(benchBefore));
      const redisCpu = (await redisCpuSeconds(redisClient)) - redisBefore;
      const entries = sandbox.requestLog.entries();
      const bulk = entries.filter((e) => e.method === 'PATCH' && e.path.endsWith('/products/stock/bulk'));
      const lastAck = Math.max(...bulk.map((e) => Date.parse(e.at) + e.durationMs));
      const firstSent = Math.min(...bulk.map((e) => Date.parse(e.at)));
      const daemonSeconds = (lastAck - run.triggeredAt) / 1000;
      const jobSeconds = (run.completedAt - run.triggeredAt) / 1000;
      const items = bulk
        .filter((e) => e.status === 200)
        .reduce((sum, e) => sum + ((e.body as { items: BulkStockItem[] }).items.length ?? 0), 0);
      log(`run ${r}: the floor, pre-built bodies of 1000 from one client...`);
      const floorBefore = process.cpuUsage();
      const floor = await sendRawFloor(sandbox, skus, (i) => (i % 89) + 50 + r * 100, {
        batch: 1000,
        concurrency: CONCURRENCY,
      });
      const floorCpu = cpuOf(process.cpuUsage(floorBefore));
      ratios.push(daemonSeconds / floor);
      cpuRatios.push((daemonCpu + sandboxCpu + redisCpu) / floorCpu);
      rows.push(
        `| ${r} | ${load} | ${items} | ${bulk.length} | ${((firstSent - run.triggeredAt) / 1000).toFixed(2)} | ${daemonSeconds.toFixed(2)} | ${jobSeconds.toFixed(2)} | ${daemonCpu.toFixed(2)} | ${sandboxCpu.toFixed(2)} | ${redisCpu.toFixed(2)} | ${floor.toFixed(2)} | ${floorCpu.toFixed(2)} | ${(daemonSeconds / floor).toFixed(2)}x | ${cpuRatios.at(-1)!.toFixed(2)}x |`,
      );
      log(rows.at(-1)!);
    }
    rows.push(
      `| median | | | | | | | | | | | | **${median(ratios).toFixed(2)}x** | ${median(cpuRatios).toFixed(2)}x |`,
    );
    const ticks: number[] = [];
    for (let r = 1; r <= RUNS; r++) {
      log(`unchanged tick ${r}: the same file again...`);
      const load = uptime();
      sandbox.requestLog.clear();
      const cpuBefore = cpuSeconds(daemon.child.pid);
      const run = await runThroughQueue(queues, 'stock');
      const daemonCpu = cpuSeconds(daemon.child.pid) - cpuBefore;
      const writes = sandbox.requestLog.entries().filter((e) => e.method !== 'GET').length;
      const seconds = (run.completedAt - run.triggeredAt) / 1000;
      ticks.push(seconds);
      unchanged.push(
        `| ${r} | ${load} | ${writes} | ${sandbox.requestLog.entries().length} | ${seconds.toFixed(2)} | ${daemonCpu.toFixed(2)} |`,
      );
      log(unchanged.at(-1)!);
    }
    unchanged.push(`| median | | | | **${median(ticks).toFixed(2)}** | |`);
    breakdown.push(
      `Peak RSS of the daemon over the stock part: ${peakRssMb(daemon.child.pid).toFixed(0)} MB.`,
    );
    return rows;
  });
}

async function ordersPart(world: World): Promise<string[]> {
  const { sandbox } = world;
  log(`creating ${ORDERS} platform orders...`);
  await createPlatformOrders(sandbox, ORDERS);
  return withDaemon(world, async (daemon, queues) => {
    log('importing them through the queue...');
    sandbox.requestLog.clear();
    const load = uptime();
    const cpuBefore = cpuSplit(daemon.child.pid);
    const jsBefore = cpuSplit(daemon.child.pid, true);
    const run = await runThroughQueue(queues, 'orders');
    const filesAtPollEnd = existsSync(join(world.erpDir, 'outbox', 'orders'))
      ? readdirSync(join(world.erpDir, 'outbox', 'orders')).filter((name) => /^\d+\.(json|xml)$/.test(name))
          .length
      : 0;
    // The run job completes once the poll has enqueued the imports; the imports (rate-limited
    // like every API-bound queue) go on after it: wait for the last order file in the outbox.
    const outbox = join(world.erpDir, 'outbox', 'orders');
    // Order files only (`<id>.json`): not the temporary files of writes under way.
    // (absent until the first import: the run job may complete before any import ran)
    const count = (): number =>
      existsSync(outbox) ? readdirSync(outbox).filter((name) => /^\d+\.(json|xml)$/.test(name)).length : 0;
    const deadline = Date.now() + 900_000;
    while (count() < ORDERS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const files = count();
    const lastFileSeconds = (Date.now() - run.triggeredAt) / 1000;
    const cpuAfter = cpuSplit(daemon.child.pid);
    const jsAfter = cpuSplit(daemon.child.pid, true);
    const jsUser = jsAfter.user - jsBefore.user;
    const jsSystem = jsAfter.system - jsBefore.system;
    const daemonUser = cpuAfter.user - cpuBefore.user;
    const daemonSystem = cpuAfter.system - cpuBefore.system;
    const daemonCpu = daemonUser + daemonSystem;
    const jobSeconds = (run.completedAt - run.triggeredAt) / 1000;
    const requests = sandbox.requestLog.entries().length;
    const peak = peakRssMb(daemon.child.pid);
    // Where the poll's time goes: the list requests (answered by the sandbox in this process).
    const lists = sandbox.requestLog
      .entries()
      .filter((e) => e.method === 'GET' && e.path.endsWith('/orders'));
    const lastAnswered = Math.max(...lists.map((e) => Date.parse(e.at) + e.durationMs));
    const served = lists.reduce((sum, e) => sum + e.durationMs, 0) / 1000;
    breakdown.push(
      `Orders: ${lists.length} list requests, the last answered ${((lastAnswered - run.triggeredAt) / 1000).toFixed(2)} s after the trigger (the sandbox's own time in them ${served.toFixed(2)} s); the poll job done at ${jobSeconds.toFixed(2)} s, with ${filesAtPollEnd} order files in the outbox by then.`,
    );
    log(breakdown.at(-1)!);
    log('timing the outbox writes alone...');
    const sample = readFileSync(
      join(
        outbox,
        readdirSync(outbox).find((n) => n.endsWith('.json'))!,
      ),
      'utf8',
    );
    const floorCpu = process.cpuUsage();
    const alone = await timeOutboxWrites(
      join(world.dir, 'outbox-alone'),
      ORDERS,
      sample,
      writeNewFileAtomic,
      ORDERS_CONCURRENCY,
    );
    const { user, system } = process.cpuUsage(floorCpu);
    const floorCpuSeconds = (user + system) / 1e6;
    const floorCpuSplit = `user ${(user / 1e6).toFixed(2)}, system ${(system / 1e6).toFixed(2)}`;
    const rows = [
      `| daemon: ${ORDERS} new platform orders, one orders run through the queue (to the last order file in the outbox; daemon CPU ${daemonCpu.toFixed(2)} s: user ${daemonUser.toFixed(2)}, system ${daemonSystem.toFixed(2)}; its JS thread: user ${jsUser.toFixed(2)}, system ${jsSystem.toFixed(2)}; load ${load}) | ${files} | ${requests} | ${lastFileSeconds.toFixed(2)} | ${jobSeconds.toFixed(2)} | ${peak.toFixed(0)} |`,
      `| the outbox writes alone: ${ORDERS} files, writeNewFileAtomic (on disk: O_SYNC), ${ORDERS_CONCURRENCY} at a time (CPU ${floorCpuSeconds.toFixed(2)} s: ${floorCpuSplit}) | ${ORDERS} | | ${alone.toFixed(2)} | | |`,
      `| ratio: last order file / the writes alone | | | **${(lastFileSeconds / alone).toFixed(2)}x** | | |`,
    ];
    rows.forEach(log);
    return rows;
  });
}

/** One stock run over RSS_ROWS rows in a fresh daemon: its peak RSS. */
async function rssPart(world: World): Promise<string[]> {
  await writeStockCsv(join(world.erpDir, 'stock.csv'), (n) => (n % 89) + 500, RSS_ROWS);
  return withDaemon(world, async (daemon, queues) => {
    log(`one stock run over ${RSS_ROWS} rows...`);
    world.sandbox.requestLog.clear();
    const load = uptime();
    const run = await runThroughQueue(queues, 'stock');
    const requests = world.sandbox.requestLog.entries().length;
    const row = `| daemon: one stock run over a ${RSS_ROWS}-row stock.csv (${SKUS} SKUs known to the platform; load ${load}) | ${RSS_ROWS} | ${requests} | | ${((run.completedAt - run.triggeredAt) / 1000).toFixed(2)} | ${peakRssMb(daemon.child.pid).toFixed(0)} |`;
    log(row);
    return [row];
  });
}

type StoreKind = 'sqlite' | 'postgres';

/** The store section of the daemon's configuration, and how to remove that store afterwards. */
function benchStore(kind: StoreKind, dir: string): { config: object; drop(): Promise<void> } {
  if (kind === 'sqlite') return { config: { path: join(dir, 'erp-sync.db') }, drop: async () => {} };
  const schema = `bench_${process.pid}_${Date.now().toString(36)}`;
  return {
    config: { type: 'postgres', url: PG_URL, schema },
    async drop() {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
}

/** Every part on a world of its own (Redis, sandbox, folder, store): each store starts from the same state. */
async function measure(kind: StoreKind): Promise<{ stock: string[]; rows: string[] }> {
  log(`[${kind} store] starting Redis and the sandbox with ${SKUS} products...`);
  const redis = await startPrivateRedis();
  const sandbox = await startSandbox({
    port: 0,
    seed: 'empty',
    extraProducts: SKUS,
    recordBodies: true,
    faults: LATENCY > 0 ? `latency=${LATENCY}` : null,
  });
  const dir = mkdtempSync(join(tmpdir(), 'erp-sync-bench-daemon-'));
  const erpDir = join(dir, 'erp');
  mkdirSync(erpDir);
  const store = benchStore(kind, dir);
  const configFile = writeConfigFile(join(dir, 'config.yaml'), {
    api: { baseUrl: sandbox.url, apiKey: sandbox.keys.primary },
    erp: { type: 'file', path: erpDir, stableMs: 0 },
    store: store.config,
    sync: { batchSize: BATCH, concurrency: CONCURRENCY },
    // the raw floor reads no orders: neither does the stock run here
    orders: { oversellGuard: { enabled: false }, concurrency: ORDERS_CONCURRENCY },
    log: { level: 'warn' },
    redis: { prefix: PREFIX },
    server: { host: '127.0.0.1', port: 0 },
    schedules: {
      catalog: 'off',
      orders: 'off',
      stock: 'off',
      prices: 'off',
      feedback: 'off',
      'erp-orders': 'off',
    },
  });
  const world: World = {
    redis,
    sandbox,
    dir,
    erpDir,
    configFile,
    env: {
      REDIS_URL: redis.url,
      // --cpu-prof DIR: a V8 CPU profile of the daemon, for where its time goes
      ...(PROFILE_DIR ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${PROFILE_DIR}` } : {}),
    },
  };
  const rows: string[] = [];
  const stock: string[] = [];
  const notesFrom = breakdown.length;
  const unchangedFrom = unchanged.length;
  try {
    if (RUNS > 0) stock.push(...(await stockPart(world)));
    if (ORDERS > 0) rows.push(...(await ordersPart(world)));
    if (RSS_ROWS > 0) rows.push(...(await rssPart(world)));
  } finally {
    await sandbox.close();
    await redis.close();
    await store.drop();
    rmSync(dir, { recursive: true, force: true });
  }
  if (!COMPARE) return { stock, rows };
  const label = (row: string) => row.replace(/^\| /, `| ${kind} | `);
  for (let i = notesFrom; i < breakdown.length; i++) breakdown[i] = `${kind} store: ${breakdown[i]}`;
  for (let i = unchangedFrom; i < unchanged.length; i++) unchanged[i] = label(unchanged[i]!);
  return { stock: stock.map(label), rows: rows.map(label) };
}

async function main(): Promise<void> {
  const rows: string[] = [];
  const stock: string[] = [];
  for (const kind of COMPARE ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const)) {
    const measured = await measure(kind);
    stock.push(...measured.stock);
    rows.push(...measured.rows);
  }

  const where =
    LATENCY > 0 ? `${LATENCY} ms latency on every request (the sandbox's latency fault)` : 'loopback';
  const heading = COMPARE ? `## Daemon, PostgreSQL store against SQLite (${where})` : `## Daemon (${where})`;
  /** A table's two header lines, with a store column first when both stores were measured. */
  const head = (...cells: string[]): string[] => {
    const all = COMPARE ? ['store', ...cells] : cells;
    return [`| ${all.join(' | ')} |`, `|${all.map(() => '---').join('|')}|`];
  };
  const section = [
    heading,
    '',
    `Command: \`npm run bench:daemon -- --skus ${SKUS} --orders ${ORDERS}${LATENCY > 0 ? ` --latency ${LATENCY}` : ''}${RSS_ROWS > 0 ? ` --rss-rows ${RSS_ROWS}` : ''}${RUNS !== 3 ? ` --runs ${RUNS}` : ''}${ORDERS_CONCURRENCY !== FILE_IMPORTS_AT_ONCE ? ` --orders-concurrency ${ORDERS_CONCURRENCY}` : ''}${COMPARE ? ' --store postgres' : ''}\` (batch ${BATCH}, concurrency ${CONCURRENCY}, ${RUNS} runs). ` +
      machineLine(),
    ...(COMPARE
      ? [
          'Each store on a world of its own (a private redis-server, a fresh sandbox, an empty store), SQLite first,',
          'then PostgreSQL (a schema of its own on the local server, its default settings), in the same process.',
        ]
      : []),
    '`erp-sync start` runs as a child process (schedules off) on a private redis-server; the sandbox runs in',
    'the bench process. A run is triggered by enqueueing it through Redis (what `erp-sync sync` does).',
    '"to last ack" ends when the sandbox answered the last bulk request (its request log); "to job done"',
    'when the run job is completed in Redis. The floor, measured right after each run in the same process and',
    `behind the same latency: the same SKUs' new values as pre-built bodies of 1000 items from one keep-alive`,
    `client, ${CONCURRENCY} in flight. Load average (1 / 5 / 15 min) when each run started (the machine is shared).`,
    '"sandbox CPU" and "Redis CPU" are what the run cost besides the daemon (this process, where the sandbox runs,',
    'and the private redis-server); "floor CPU" is this process while the floor ran (the sandbox and the bare client). Their',
    "ratio, (daemon + sandbox + Redis) / floor, is the work the run costs against the floor's: on a machine whose",
    'cores are all busy (load above the core count) the wall-time ratio tends to it, and it moves far less with the load.',
    '',
    ...head(
      `run (${SKUS / 1000}k SKUs changed)`,
      'load',
      'items',
      'requests',
      's to first request',
      's to last ack',
      's to job done',
      'daemon CPU s',
      'sandbox CPU s',
      'Redis CPU s',
      'floor s',
      'floor CPU s',
      'daemon / floor',
      'CPU / floor CPU',
    ),
    ...stock,
    '',
    ...(unchanged.length
      ? [
          ...head(
            `unchanged tick (the same ${SKUS / 1000}k rows again)`,
            'load',
            'write requests',
            'all requests',
            's trigger to job done',
            'daemon CPU s',
          ),
          ...unchanged,
          '',
        ]
      : []),
    ...(rows.length
      ? [
          ...head('scenario', 'items / files', 'requests', 's to last ack', 's to job done', 'peak RSS MB'),
          ...rows,
          '',
        ]
      : []),
    ...breakdown,
    `Aims: the daemon within ${LATENCY > 0 ? '1.3x' : '2x'} of the floor (median of the runs); an unchanged tick under 0.5 s with 0 writes; ` +
      'about 100 list requests for 10k new orders, the last order file within 2x of the outbox writes alone; under 300 MB peak RSS for 1M rows.',
    '',
  ].join('\n');
  process.stdout.write(`\n${section}\n`);
  if (RECORD) recordSection(heading, section);
}

await main();
