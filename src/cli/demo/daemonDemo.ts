import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createApiClient, type ApiClient } from '../../api/createApiClient.js';
import { loadConfig } from '../../config.js';
import { createLogger } from '../../createLogger.js';
import type { RunSummary } from '../../sync/frame/types.js';
import { openDaemon } from '../openDaemon.js';
import type { DemoOptions } from './DemoOptions.js';
import type { DemoRedis } from './obtainDemoRedis.js';
import { openDemoWorld } from './openDemoWorld.js';
import { detail, say } from './say.js';
import type { DemoJanitor } from './startDemoJanitor.js';
import { untilAborted } from './untilAborted.js';
import { waitFor } from './waitFor.js';

/** Fast enough to watch: the file watch moves stock at once, the schedules do the rest within seconds. */
const DEMO_SCHEDULES = {
  products: 'off',
  catalog: '*/30 * * * * *',
  orders: '*/2 * * * * *',
  stock: '*/10 * * * * *',
  prices: '*/10 * * * * *',
  feedback: '*/5 * * * * *',
  'erp-orders': '*/5 * * * * *',
};
const STEP_TIMEOUT_MS = 60_000;
const CHANGED_SKU = 'DEMO-0001';
const ORDER_SKUS = ['DEMO-0002', 'DEMO-0003', 'DEMO-0004'];

/**
 * The demo with Redis: the real daemon (`erp-sync start`'s code, in this process) on a copy of
 * the sample ERP folder, with its own BullMQ prefix; it narrates the start runs, a stock file
 * change reaching the platform and new platform orders reaching the outbox once, then runs until
 * Ctrl-C (or --for SECONDS).
 */
export async function runDaemonDemo(
  options: DemoOptions,
  redis: DemoRedis,
  signal: AbortSignal,
  janitor?: DemoJanitor,
): Promise<number> {
  const prefix = `erp-sync-demo-${randomBytes(4).toString('hex')}`;
  process.env.REDIS_URL = redis.url;
  const world = await openDemoWorld({
    dir: options.dir,
    keep: options.keep,
    janitor,
    config: {
      redis: { prefix },
      server: { host: '127.0.0.1', port: 0 },
      schedules: DEMO_SCHEDULES,
      shutdownGraceSeconds: 5,
      // The platform then shows exactly the file's value; the guard is explained in docs/orders.md.
      orders: { oversellGuard: { enabled: false } },
    },
  });
  const api = createApiClient({ baseUrl: world.sandbox.url, apiKey: world.sandbox.keys.primary });
  const runs = new RunLog();
  let daemon;
  try {
    say(redis.description);
    say(
      `Sandbox (API v2) at ${world.sandbox.url}; ERP drop folder (a copy of config/sample) ${world.erpDir}`,
    );
    const config = loadConfig({ file: world.configFile });
    // The narration reports every run; the daemon's warnings (the sample's deliberate bad rows) would
    // repeat it as JSON lines in the middle of it. Errors still show.
    daemon = await openDaemon(config, createLogger({ level: 'error' }), {
      onRun: (summary) => runs.add(summary),
    });
    await daemon.start();
    say(`The daemon runs (BullMQ prefix ${prefix}), its ops server:`);
    detail(`console    ${daemon.url}/`);
    detail(`dashboard  ${daemon.url}/queues`);
    detail(`metrics    ${daemon.url}/metrics`);
    detail(`readiness  ${daemon.url}/readyz`);

    const steps = [startRuns, stockChange, newOrders];
    for (const step of steps) {
      if (signal.aborted) break;
      if (!(await step({ api, erpDir: world.erpDir, runs, signal }))) break;
    }
    if (!signal.aborted) {
      say(
        `The daemon keeps running ${options.forSeconds === undefined ? 'until Ctrl-C' : `for ${options.forSeconds} s (--for)`}: ` +
          `edit ${join(world.erpDir, 'stock.csv')} and watch the runs here, the dashboard and the metrics`,
      );
      await untilAborted(signal, options.forSeconds);
    }
    say('Stopping: the daemon lets running jobs finish, then the sandbox and Redis stop');
    return 0;
  } finally {
    runs.quiet = true;
    try {
      await daemon?.close();
      await redis.dropPrefix(prefix);
    } finally {
      await api.close();
      await world.close();
    }
  }
}

interface Step {
  api: ApiClient;
  erpDir: string;
  runs: RunLog;
  signal: AbortSignal;
}

/** Step 1: every enabled pipeline runs once at start; the platform's new orders land in the outbox. */
async function startRuns({ api, erpDir, runs, signal }: Step): Promise<boolean> {
  say('1. Start runs: every pipeline once (catalog, orders, stock, prices, feedback, erp-orders)');
  const started = await waitFor(
    'the start runs of catalog, orders and stock',
    () => ['catalog', 'orders', 'stock'].every((p) => runs.count(p) > 0),
    signal,
    STEP_TIMEOUT_MS,
  );
  if (!started) return false;
  const imports = runs.first('orders')?.extra.toImport ?? 0;
  const imported = await waitFor(
    `${imports} order(s) in the outbox`,
    () => outboxOrders(erpDir).length >= imports,
    signal,
    STEP_TIMEOUT_MS,
  );
  if (!imported) return false;
  detail(
    `outbox/orders: ${outboxOrders(erpDir).length} order file(s), one per new platform order ` +
      '(a poll that lists an order again hands it to no second job: each order is claimed by one)',
  );
  detail(
    `${CHANGED_SKU} on the platform: ${await platformStock(api, CHANGED_SKU)} (stock.csv: ${fileStock(erpDir, CHANGED_SKU)})`,
  );
  return true;
}

/** Step 2: the ERP writes a new stock.csv; the file watch (or the schedule) moves it to the platform. */
async function stockChange({ api, erpDir, signal }: Step): Promise<boolean> {
  const was = fileStock(erpDir, CHANGED_SKU);
  const next = was === '7' ? '8' : '7';
  say(`2. The ERP changes stock: stock.csv now says ${CHANGED_SKU} ${next} (was ${was})`);
  const before = await platformStock(api, CHANGED_SKU);
  writeFileStock(erpDir, CHANGED_SKU, next);
  const written = Date.now();
  let after: number | null | undefined;
  const moved = await waitFor(
    `${CHANGED_SKU} at ${next} on the platform`,
    async () => String((after = await platformStock(api, CHANGED_SKU))) === next,
    signal,
    STEP_TIMEOUT_MS,
  );
  if (!moved) return false;
  detail(
    `${CHANGED_SKU} on the platform (GET /products): before ${before}, after ${after}, ` +
      `${seconds(written)} s after the file was written`,
  );
  return true;
}

/** Step 3: orders placed on the platform reach the ERP's outbox, once each. */
async function newOrders({ api, erpDir, runs, signal }: Step): Promise<boolean> {
  say(`3. Customers order on the platform: ${ORDER_SKUS.length} new orders (POST /orders on the sandbox)`);
  const before = outboxOrders(erpDir).length;
  const ids: number[] = [];
  for (const [i, sku] of ORDER_SKUS.entries()) {
    const order = await api.orders.create({
      customer: { name: `Demo Customer ${i + 1}`, email: `customer${i + 1}@demo-shop.example` },
      items: [{ sku, quantity: 1 }],
    });
    ids.push(order.id);
  }
  const created = Date.now();
  const arrived = await waitFor(
    `orders ${ids.join(', ')} in the outbox`,
    () => ids.every((id) => outboxOrders(erpDir).includes(id)),
    signal,
    STEP_TIMEOUT_MS,
  );
  if (!arrived) return false;
  detail(
    `${ids.map((id) => `outbox/orders/${id}.json`).join(', ')}: ${seconds(created)} s after the orders were placed`,
  );
  // Later polls list the same orders again: they must not come back.
  const polls = runs.count('orders');
  const polled = await waitFor(
    'two more order polls',
    () => runs.count('orders') >= polls + 2,
    signal,
    STEP_TIMEOUT_MS,
  );
  if (!polled) return false;
  const now = outboxOrders(erpDir).length;
  detail(`2 polls later: outbox/orders holds ${now} file(s) (${before} + ${now - before}): each order once`);
  return true;
}

/** The daemon's runs as they finish, narrated when they did something (or for a pipeline's first run). */
class RunLog {
  private readonly seen: RunSummary[] = [];
  quiet = false;

  add(summary: RunSummary): void {
    const first = this.count(summary.pipeline) === 0;
    this.seen.push(summary);
    if (this.quiet || !(first || summary.sent > 0 || summary.error)) return;
    detail(`daemon: ${describeRun(summary)}`);
  }

  count(pipeline: string): number {
    return this.seen.filter((s) => s.pipeline === pipeline).length;
  }

  first(pipeline: string): RunSummary | undefined {
    return this.seen.find((s) => s.pipeline === pipeline);
  }
}

function describeRun(s: RunSummary): string {
  const counts = (
    [
      ['read', s.read],
      ['unchanged', s.unchanged],
      [s.pipeline === 'orders' ? 'to import' : 'sent', s.sent],
      ['applied', s.applied],
      ['not found', s.notFound],
      ['rejected', s.rejected],
      ['failed', s.failed],
    ] as const
  )
    .filter(([, n]) => n > 0)
    .map(([name, n]) => `${n} ${name}`);
  const what = counts.length ? counts.join(', ') : 'nothing to do';
  return `${s.pipeline} run: ${what} (${s.seconds.toFixed(2)} s)${s.error ? `; ${s.error.message}` : ''}`;
}

function outboxOrders(erpDir: string): number[] {
  try {
    return readdirSync(join(erpDir, 'outbox', 'orders'))
      .filter((name) => /^\d+\.(json|xml)$/.test(name))
      .map((name) => Number.parseInt(name, 10));
  } catch {
    return [];
  }
}

async function platformStock(api: ApiClient, sku: string): Promise<number | null | undefined> {
  for await (const product of api.products.iterate()) if (product.sku === sku) return product.stock_quantity;
  return undefined;
}

function fileStock(erpDir: string, sku: string): string | undefined {
  const line = readFileSync(join(erpDir, 'stock.csv'), 'utf8')
    .split('\n')
    .find((row) => row.startsWith(`${sku},`));
  return line?.split(',').at(-1)?.trim();
}

/** Rewrites the SKU's row as an ERP export would: a new file renamed into place. */
function writeFileStock(erpDir: string, sku: string, quantity: string): void {
  const file = join(erpDir, 'stock.csv');
  const rows = readFileSync(file, 'utf8')
    .split('\n')
    .map((row) => (row.startsWith(`${sku},`) ? `${row.slice(0, row.lastIndexOf(',') + 1)}${quantity}` : row));
  writeFileSync(`${file}.tmp`, rows.join('\n'));
  renameSync(`${file}.tmp`, file);
}

function seconds(since: number): string {
  return ((Date.now() - since) / 1000).toFixed(1);
}
