import { Queue, type Job } from 'bullmq';
import { afterEach } from 'vitest';
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiClient, type ApiClient } from '../../src/api/createApiClient.js';
import { writeConfigFile } from '../../src/config.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/startSandbox.js';
import { startDaemonProcess, type DaemonProcess } from '../../dev/daemonProcess.js';
import { startPrivateRedis, type PrivateRedis } from '../../dev/redisServer.js';

/** Every pipeline every second, except those a test turns off. */
export const FAST_SCHEDULES = {
  catalog: 'off',
  orders: '*/1 * * * * *',
  stock: '*/1 * * * * *',
  prices: 'off',
  feedback: 'off',
  'erp-orders': 'off',
};

export interface DaemonWorld {
  redis: PrivateRedis;
  sandbox: Sandbox;
  dir: string;
  erpDir: string;
  configFile: string;
  env: Record<string, string>;
  /** A client for the test itself. */
  api: ApiClient;
  writeStock(rows: { sku: string; quantity: number }[]): void;
  start(): Promise<DaemonProcess>;
  /**
   * Another "host": a working folder of its own (`dir/hosts/NAME`) with its own copy of the
   * configuration, its daemons started there. It shares what hosts share: Redis, the sandbox, the
   * ERP's folder and the store, which must then be one every host reaches (PostgreSQL).
   */
  host(name: string): DaemonHost;
  close(): Promise<void>;
}

export interface DaemonHost {
  dir: string;
  configFile: string;
  start(): Promise<DaemonProcess>;
}

export interface WorldOptions {
  schedules?: Record<string, string>;
  config?: Record<string, unknown>;
  faults?: string;
  /** BULK-000001... simple products with stock 0 on the platform. */
  extraProducts?: number;
  /** The sandbox keeps request bodies in its log. */
  recordBodies?: boolean;
  /** The private Redis requires this password (in REDIS_URL). */
  redisPassword?: string;
}

/** A private Redis, the sandbox (demo data), a drop folder and a config file for `erp-sync start`. */
export async function startDaemonWorld(options: WorldOptions = {}): Promise<DaemonWorld> {
  const redis = await startPrivateRedis(options.redisPassword ? { password: options.redisPassword } : {});
  const sandbox = await startSandbox({
    seed: 'demo',
    recordBodies: options.recordBodies ?? false,
    faults: options.faults ?? null,
    extraProducts: options.extraProducts ?? 0,
  });
  const dir = mkdtempSync(join(tmpdir(), 'erp-sync-daemon-'));
  const erpDir = join(dir, 'erp');
  mkdirSync(erpDir);
  const config = {
    erp: { type: 'file', path: erpDir, stableMs: 0 },
    store: { path: join(dir, 'erp-sync.db') },
    log: { level: 'info' },
    orders: { oversellGuard: { enabled: false } },
    redis: { prefix: 'e2e' },
    server: { host: '127.0.0.1', port: 0 },
    schedules: { ...FAST_SCHEDULES, ...options.schedules },
    shutdownGraceSeconds: 10,
    ...options.config,
  };
  const configFile = writeConfigFile(join(dir, 'config.yaml'), config);
  const env = { CMS_BASE_URL: sandbox.url, CMS_API_KEY: sandbox.keys.primary, REDIS_URL: redis.url };
  const api = createApiClient({ baseUrl: sandbox.url, apiKey: sandbox.keys.primary, retries: 3 });
  const daemons: DaemonProcess[] = [];
  return {
    redis,
    sandbox,
    dir,
    erpDir,
    configFile,
    env,
    api,
    writeStock(rows) {
      const file = join(erpDir, 'stock.csv');
      writeFileSync(
        `${file}.tmp`,
        ['sku,quantity', ...rows.map((r) => `${r.sku},${r.quantity}`)].join('\n') + '\n',
      );
      renameSync(`${file}.tmp`, file);
    },
    async start() {
      const daemon = await startDaemonProcess(configFile, env);
      daemons.push(daemon);
      return daemon;
    },
    host(name) {
      const hostDir = join(dir, 'hosts', name);
      mkdirSync(hostDir, { recursive: true });
      const hostConfig = writeConfigFile(join(hostDir, 'config.yaml'), config);
      return {
        dir: hostDir,
        configFile: hostConfig,
        async start() {
          const daemon = await startDaemonProcess(hostConfig, env, { cwd: hostDir });
          daemons.push(daemon);
          return daemon;
        },
      };
    },
    async close() {
      for (const daemon of daemons) {
        daemon.kill('SIGKILL');
        await daemon.exited;
      }
      await api.close();
      await sandbox.close();
      await redis.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** GET on the daemon's ops server: status and body text. */
export async function opsGet(url: string, path: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`${url}${path}`);
  return { status: response.status, text: await response.text() };
}

/** The value of an unlabelled metric in a /metrics text, or null. */
export function metricValue(text: string, name: string): number | null {
  const match = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  return match ? Number(match[1]) : null;
}

/** Stock per SKU of simple products on the platform, read through the API. */
export async function platformStock(api: ApiClient): Promise<Map<string, number | null | undefined>> {
  const out = new Map<string, number | null | undefined>();
  for await (const product of api.products.iterate()) out.set(product.sku, product.stock_quantity);
  return out;
}

/** Whether the platform's stock of every row's SKU is the row's quantity. */
export async function platformEquals(
  world: DaemonWorld,
  rows: { sku: string; quantity: number }[],
): Promise<boolean> {
  const platform = await platformStock(world.api);
  return rows.every((row) => platform.get(row.sku) === row.quantity);
}

/** The bulk stock requests the sandbox answered (needs recordBodies), in answer order, with their items. */
export function bulkStockRequests(sandbox: Sandbox, from = 0): { sku: string; quantity: number }[][] {
  return sandbox.requestLog
    .entries()
    .slice(from)
    .filter(
      (entry) =>
        entry.method === 'PATCH' && entry.path.endsWith('/products/stock/bulk') && entry.status === 200,
    )
    .map((entry) => (entry.body as { items: { sku: string; quantity: number }[] }).items);
}

type BulkItems = { sku: string; quantity: number }[];

/** Per SKU, older values answered after a newer value of that SKU (invariant 4: none). */
export function olderAfterNewer(requests: BulkItems[], isOlder: (quantity: number) => boolean): string[] {
  const sentNewer = new Set<string>();
  const out: string[] = [];
  for (const items of requests)
    for (const item of items) {
      if (!isOlder(item.quantity)) sentNewer.add(item.sku);
      else if (sentNewer.has(item.sku)) out.push(item.sku);
    }
  return out;
}

/** The first request with a newer value (-1: none), and the requests from there on with an older one. */
export function olderFromFirstNewer(
  requests: BulkItems[],
  isOlder: (quantity: number) => boolean,
): { firstNewer: number; olderLater: BulkItems[] } {
  const firstNewer = requests.findIndex((items) => items.some((item) => !isOlder(item.quantity)));
  const olderLater =
    firstNewer < 0
      ? []
      : requests.slice(firstNewer).filter((items) => items.some((item) => isOlder(item.quantity)));
  return { firstNewer, olderLater };
}

/**
 * The outcome of each order the completed import jobs in Redis decided, keyed `order-<id>`: an
 * `order-import` job's one order, an `order-imports` job's many. An order decided by two jobs
 * appears twice (the second key `order-<id>#2`), so a duplicate import shows. An order an
 * `order-imports` job found decided when it came to it (a redone job) is `decided_before`.
 */
export async function importOutcomes(world: DaemonWorld): Promise<Map<string, string | undefined>> {
  const imports = worldQueue(world, 'imports');
  try {
    const done = await imports.getCompleted(0, 10_000);
    const out = new Map<string, string | undefined>();
    const put = (orderId: number | string, outcome: string | undefined): void => {
      let key = `order-${orderId}`;
      for (let n = 2; out.has(key); n++) key = `order-${orderId}#${n}`;
      out.set(key, outcome);
    };
    for (const job of done) {
      const value = job.returnvalue as {
        orderId?: number;
        outcome?: string;
        outcomes?: Record<string, string>;
        decidedBefore?: number[];
      } | null;
      if (value?.outcomes) {
        for (const [orderId, outcome] of Object.entries(value.outcomes)) put(orderId, outcome);
        for (const orderId of value.decidedBefore ?? []) put(orderId, 'decided_before');
      } else put(value?.orderId ?? job.id!.replace(/^order-/, ''), value?.outcome);
    }
    return out;
  } finally {
    await imports.close();
  }
}

/** Orders the completed import jobs in Redis imported: an order imported twice would count twice. */
export async function importedCount(world: DaemonWorld): Promise<number> {
  return [...(await importOutcomes(world)).values()].filter((outcome) => outcome === 'imported').length;
}

/** The orders of import jobs (active ones, say), keyed as importOutcomes keys them. */
export function importJobOrders(jobs: readonly Job[]): string[] {
  return jobs.flatMap((job) =>
    job.name === 'order-imports'
      ? (job.data as { orders: { id: number }[] }).orders.map((order) => `order-${order.id}`)
      : [`order-${(job.data as { orderId: number }).orderId}`],
  );
}

/** A queue of the world's daemon (prefix e2e), closed by the caller. */
export function worldQueue(world: DaemonWorld, name: string): Queue {
  return new Queue(name, { connection: { host: '127.0.0.1', port: world.redis.port }, prefix: 'e2e' });
}

export interface DaemonWorlds {
  start(options?: WorldOptions): Promise<DaemonWorld>;
  /** A queue of that world's daemon, closed with it. */
  queue(world: DaemonWorld, name: string): Queue;
}

/** For a test file: the worlds and queues a test opens are closed after it, queues first. */
export function useDaemonWorlds(): DaemonWorlds {
  const worlds: DaemonWorld[] = [];
  const queues: Queue[] = [];
  afterEach(async () => {
    await Promise.all(queues.splice(0).map((queue) => queue.close()));
    await Promise.all(worlds.splice(0).map((world) => world.close()));
  });
  return {
    async start(options) {
      const world = await startDaemonWorld(options);
      worlds.push(world);
      return world;
    },
    queue(world, name) {
      const queue = worldQueue(world, name);
      queues.push(queue);
      return queue;
    },
  };
}
