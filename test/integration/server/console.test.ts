import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleSources } from '../../../src/cli/consoleSources.js';
import { loadConfig, writeConfigFile, type Config } from '../../../src/config.js';
import { silentLogger } from '../../../src/logger.js';
import { createRedisConnection } from '../../../src/queue/redisConnection.js';
import { startSandbox, type Sandbox } from '../../../src/sandbox/index.js';
import { createMetrics, startOpsServer, type OpsServer } from '../../../src/server/index.js';
import { closeSyncContext, createSyncContext } from '../../../src/sync/context.js';
import { runStock } from '../../../src/sync/push/stock.js';
import type { SyncContext } from '../../../src/sync/frame/types.js';
import { eventually } from '../../../dev/daemonProcess.js';
import { startPrivateRedis, type PrivateRedis } from '../../../dev/redisServer.js';
import { createTestDatabase, type TestDatabase } from '../../support/sqlDatabases.js';
import { createPlatformOrder, sellableSku } from '../../support/orderChecks.js';

// The console on a real ops server, over the daemon's real sources: the sandbox, a SQL ERP on the
// shared PostgreSQL (trust auth: any password is taken, so the configured one is a marker), a
// private redis-server with a password, and the store. Every secret is a marker that must never
// appear in a page, a fragment, the stylesheet or the script.

const DB_SECRET = `db-secret-${randomUUID()}`;
const REDIS_SECRET = `redis-secret-${randomUUID()}`;
const DASHBOARD_SECRET = `dash-secret-${randomUUID()}`;
const prefix = `console-${randomUUID().slice(0, 8)}`;

let sandbox: Sandbox;
let redis: PrivateRedis;
let database: TestDatabase;
let dir: string;
let config: Config;
let ctx: SyncContext;
let runs: Queue;
let pushes: Queue;
let producers: Redis[] = [];
let goodSku: string;
let parkedOrderId: number;
const servers: OpsServer[] = [];

const auth = (password = DASHBOARD_SECRET) => ({
  authorization: `Basic ${Buffer.from(`ops:${password}`).toString('base64')}`,
});
const connection = () => ({
  host: '127.0.0.1',
  port: redis.port,
  password: REDIS_SECRET,
  maxRetriesPerRequest: null,
});

async function requirePassword(): Promise<void> {
  const client = redis.client();
  await client.config('SET', 'requirepass', REDIS_SECRET);
  client.disconnect();
}

/** The ops server with the console, reachable at 127.0.0.1 whatever it listens on. */
async function start(options: { host?: string; readOnly?: boolean } = {}): Promise<string> {
  const server = await startOpsServer({
    host: options.host ?? '0.0.0.0',
    port: 0,
    metrics: createMetrics(),
    readiness: async () => ({ ready: true, reasons: [] }),
    queues: [runs, pushes],
    dashboardPassword: DASHBOARD_SECRET,
    logger: silentLogger(),
    console: consoleSources(config, ctx, [runs, pushes]),
    readOnly: options.readOnly,
  });
  servers.push(server);
  return server.url.replace('0.0.0.0', '127.0.0.1');
}

async function get(url: string, path: string): Promise<{ status: number; text: string; type: string }> {
  const response = await fetch(`${url}${path}`, { headers: auth() });
  return {
    status: response.status,
    text: await response.text(),
    type: response.headers.get('content-type') ?? '',
  };
}

function post(url: string, path: string, form: Record<string, string>, headers: Record<string, string> = {}) {
  return fetch(`${url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { ...auth(), 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
}

const tokenOf = (page: string): string => /name="_csrf" value="([^"]+)"/.exec(page)![1]!;

beforeAll(async () => {
  sandbox = await startSandbox({ seed: 'demo' });
  redis = await startPrivateRedis();
  await requirePassword();
  database = await createTestDatabase('pg');
  dir = mkdtempSync(join(tmpdir(), 'erp-sync-console-'));
  const file = writeConfigFile(join(dir, 'config.yaml'), {
    erp: {
      type: 'sql',
      client: 'pg',
      connection: { ...database.connection },
      queries: { stock: 'select sku, quantity from erp_stock order by sku' },
    },
    store: { path: join(dir, 'erp-sync.db') },
    redis: { prefix },
    orders: { oversellGuard: { enabled: false } },
    log: { level: 'silent' },
  });
  config = loadConfig({
    file,
    env: {
      CMS_BASE_URL: sandbox.url,
      CMS_API_KEY: sandbox.keys.primary,
      ERP_DB_PASSWORD: DB_SECRET,
      REDIS_URL: `redis://:${REDIS_SECRET}@127.0.0.1:${redis.port}`,
    },
  });
  expect(config.erp.type === 'sql' && config.erp.connection.password).toBe(DB_SECRET);
  ctx = await createSyncContext(config, silentLogger());
  goodSku = await sellableSku(ctx.client);
  await database.db.schema.createTable('erp_stock', (t) => {
    t.text('sku');
    t.text('quantity');
  });
  await database.db('erp_stock').insert([
    { sku: goodSku, quantity: '7' },
    { sku: 'BAD-ROW', quantity: 'lots' },
    { sku: 'NOT-ON-PLATFORM', quantity: '3' },
  ]);
  const summary = await runStock(ctx, { full: false, dryRun: false });
  expect(summary).toMatchObject({ applied: 1, rejected: 1, notFound: 1 });
  const order = await createPlatformOrder(ctx.client, goodSku, 1);
  parkedOrderId = order.id;
  ctx.store.orders.parked.park({
    platformOrderId: order.id,
    number: String(order.number),
    code: 'erp_rejected',
    reason: 'unknown SKU in the ERP: NOPE-1',
  });
  // As the daemon's: a producer connection fails fast while Redis is away.
  producers = [
    createRedisConnection(config.redis.url, 'producer'),
    createRedisConnection(config.redis.url, 'producer'),
  ];
  for (const producer of producers) producer.on('error', () => undefined);
  runs = new Queue('runs', { connection: producers[0]!, prefix });
  pushes = new Queue('pushes', { connection: producers[1]!, prefix });
  for (const queue of [runs, pushes]) queue.on('error', () => undefined);
}, 60_000);

afterAll(async () => {
  for (const server of servers) await server.close();
  await runs?.close();
  await pushes?.close();
  for (const producer of producers) producer.disconnect();
  if (ctx) await closeSyncContext(ctx);
  await database?.drop();
  await redis?.close();
  await sandbox?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the console', () => {
  it('serves every page and fragment as HTML with the daemon state, and never a secret', async () => {
    const url = await start({ readOnly: false });
    const paths = [
      '/',
      '/fragments/overview',
      '/rejects',
      '/rejects?pipeline=stock&sku=BAD-ROW',
      '/fragments/rejects?pipeline=stock',
      '/orders',
      '/fragments/orders',
      '/audit',
      '/fragments/audit',
      `/explain/sku?sku=${goodSku}`,
      '/explain/sku?sku=BAD-ROW',
      `/explain/order?id=${parkedOrderId}`,
      '/console/console.css',
      '/console/console.js',
    ];
    const pages = new Map<string, string>();
    for (const path of paths) {
      const page = await get(url, path);
      expect(page.status, path).toBe(200);
      expect(page.type, path).toMatch(/^text\/(html|css|javascript); charset=utf-8$/);
      pages.set(path, page.text);
    }
    for (const [path, text] of pages)
      for (const secret of [sandbox.keys.primary, DB_SECRET, REDIS_SECRET, DASHBOARD_SECRET])
        expect(text.includes(secret), `${path} shows a secret`).toBe(false);

    const overview = pages.get('/')!;
    expect(overview).toContain('data-live="/fragments/overview"');
    expect(overview).toContain('<strong>stock</strong>');
    // The adapter's own check: the database answers, the order staging tables are not there.
    expect(overview).toMatch(/sql\s*<span class="badge bad">check failed<\/span>/);
    expect(overview).toContain(
      'staging tables: NOT FOUND erp_sync_orders, erp_sync_order_lines, erp_sync_order_changes',
    );
    expect(overview).toContain(`redis://:***@127.0.0.1:${redis.port}`);
    expect(overview).toMatch(/1 daemon\(s\)|0 daemon\(s\)/);
    const rejects = pages.get('/rejects?pipeline=stock&sku=BAD-ROW')!;
    expect(rejects).toContain('<a href="/explain/sku?sku=BAD-ROW">BAD-ROW</a>');
    expect(rejects).toContain('stock query:1');
    expect(rejects).toContain('1–1 of 1 open');
    expect(pages.get('/rejects')).toContain('NOT-ON-PLATFORM');
    expect(pages.get('/orders')).toContain('unknown SKU in the ERP: NOPE-1');
    expect(pages.get('/explain/sku?sku=BAD-ROW')).toMatch(/blocked: the ERP row is rejected/);
    // the ERP's row and where it is; the platform's value; the verdict (the order below took one unit)
    expect(pages.get(`/explain/sku?sku=${goodSku}`)).toMatch(
      /7\s*<span class="muted mono">\(stock query:2\)<\/span>/,
    );
    expect(pages.get(`/explain/sku?sku=${goodSku}`)).toMatch(/note verdict (in_step|pending)/);
    const order = pages.get(`/explain/order?id=${parkedOrderId}`)!;
    expect(order).toContain('parked: unknown SKU in the ERP: NOPE-1');
    expect(order).toContain('action="/actions/retry"');
    const headers = (await fetch(`${url}/`, { headers: auth() })).headers;
    expect(headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(headers.get('cache-control')).toBe('no-store');
    // Bull Board's page, offline: no font from a CDN
    const board = await get(url, '/queues');
    expect(board.status).toBe(200);
    expect(board.text).toContain('static/js/');
    expect(board.text).not.toContain('googleapis');
  });

  it('opens an item from the search box, and says what is wrong with a bad id or an empty SKU', async () => {
    const url = await start({ readOnly: false });
    const find = (query: string) => fetch(`${url}/explain?${query}`, { headers: auth(), redirect: 'manual' });
    expect((await find('q=BAD-ROW&kind=sku')).headers.get('location')).toBe('/explain/sku?sku=BAD-ROW');
    expect((await find('q=%2012%20&kind=order')).headers.get('location')).toBe('/explain/order?id=12');
    expect((await find('q=A%26B%2FC&kind=sku')).headers.get('location')).toBe('/explain/sku?sku=A%26B%2FC');
    const bad = await get(url, '/explain/order?id=12abc');
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('a platform order id is a positive whole number, not &quot;12abc&quot;');
    expect((await get(url, '/explain/sku?sku=%20')).status).toBe(400);
  });

  it('beyond loopback, every page of the console needs the dashboard password', async () => {
    const url = await start({ readOnly: false });
    for (const path of ['/', '/fragments/overview', '/rejects', '/orders', '/explain/sku?sku=X']) {
      expect((await fetch(`${url}${path}`)).status, path).toBe(401);
      expect((await fetch(`${url}${path}`, { headers: auth('wrong') })).status, path).toBe(401);
    }
    const anonymous = await fetch(`${url}/actions/sync`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'pipeline=stock',
    });
    expect(anonymous.status).toBe(401);
  });

  it('carries out an action only with a token this console issued, from its own pages', async () => {
    const url = await start({ readOnly: false });
    const before = await runs.getJobCounts('waiting');
    const refused = [
      await post(url, '/actions/sync', { pipeline: 'stock' }),
      await post(url, '/actions/sync', { pipeline: 'stock', _csrf: 'forged' }),
      await post(
        url,
        '/actions/sync',
        { pipeline: 'stock', _csrf: tokenOf((await get(url, '/')).text) },
        {
          'sec-fetch-site': 'cross-site',
        },
      ),
    ];
    for (const response of refused) {
      expect(response.status).toBe(403);
      expect(await response.text()).toMatch(/reload the page|another site/);
    }
    expect(await runs.getJobCounts('waiting')).toEqual(before);

    // a token of another console (another process, or before a restart) is no token here
    const other = await start({ readOnly: false });
    const foreign = tokenOf((await get(other, '/')).text);
    expect((await post(url, '/actions/sync', { pipeline: 'stock', _csrf: foreign })).status).toBe(403);

    const done = await post(url, '/actions/sync', {
      pipeline: 'stock',
      _csrf: tokenOf((await get(url, '/')).text),
      back: '/',
    });
    expect(done.status).toBe(303);
    const location = done.headers.get('location')!;
    const job = /^\/\?notice=sync%3Astock%3A(manual-stock-[\w-]+)$/.exec(location)![1]!;
    expect((await runs.getJob(job))?.data).toMatchObject({ pipeline: 'stock', trigger: 'manual' });
    expect((await get(url, location)).text).toContain(
      `A stock run was enqueued (job <span class="mono">runs/${job}</span>)`,
    );
  });

  it('retries a parked order: makes it due and enqueues an orders run', async () => {
    const url = await start({ readOnly: false });
    const page = (await get(url, '/orders')).text;
    const response = await post(url, '/actions/retry', {
      order: String(parkedOrderId),
      _csrf: tokenOf(page),
      back: '/orders',
    });
    expect(response.status).toBe(303);
    const job = /notice=retry%3A1%3A(manual-orders-[\w-]+)$/.exec(response.headers.get('location')!)![1]!;
    expect((await runs.getJob(job))?.data).toMatchObject({ pipeline: 'orders', trigger: 'manual' });
    expect(Date.parse(ctx.store.orders.parked.get(parkedOrderId)!.nextAttemptAt)).toBe(0);
    const again = await post(url, '/actions/retry', {
      order: '999999',
      _csrf: tokenOf(page),
      back: '/orders',
    });
    expect(again.headers.get('location')).toBe('/orders?notice=retry-none');
  });

  it('runs a read-only audit in the background and shows its report', async () => {
    const url = await start({ readOnly: false });
    const writesBefore = sandbox.requestLog.entries().filter((e) => e.method !== 'GET').length;
    const started = await post(url, '/actions/audit', { _csrf: tokenOf((await get(url, '/audit')).text) });
    expect(started.status).toBe(303);
    expect(started.headers.get('location')).toBe('/audit?notice=audit');
    let report = '';
    await eventually('the audit report', async () => {
      report = (await get(url, '/fragments/audit')).text;
      return report.includes('Nothing was written');
    });
    expect(report).toMatch(/Drift: \d+/);
    expect(report).toContain('NOT-ON-PLATFORM');
    expect(sandbox.requestLog.entries().filter((e) => e.method !== 'GET').length).toBe(writesBefore);
  });

  it('is read-only by default beyond loopback: no action drawn, every action refused, Bull Board refuses writes', async () => {
    const worker = new Worker(
      'pushes',
      async () => {
        throw new Error('refused on purpose');
      },
      { connection: connection(), prefix },
    );
    worker.on('error', () => undefined);
    const job = await pushes.add('stock-push', { n: 1 }, { attempts: 1 });
    await eventually('the job failed', async () => (await job.getState()) === 'failed');
    await worker.close();

    const shown = await start();
    for (const path of ['/', '/orders', '/audit', `/explain/order?id=${parkedOrderId}`]) {
      const text = (await get(shown, path)).text;
      expect(text, path).not.toContain('method="post"');
      expect(text, path).not.toContain('_csrf');
    }
    const refused = await post(shown, '/actions/sync', { pipeline: 'stock', _csrf: 'x' });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('server.dashboard.readOnly');
    const board = (await (
      await fetch(`${shown}/queues/api/queues?activeQueue=pushes&status=failed&page=1`, { headers: auth() })
    ).json()) as { queues: { name: string; readOnlyMode: boolean }[] };
    expect(board.queues.map((q) => [q.name, q.readOnlyMode])).toEqual([
      ['runs', true],
      ['pushes', true],
    ]);
    const retry = await fetch(`${shown}/queues/api/queues/pushes/${job.id}/retry`, {
      method: 'PUT',
      headers: auth(),
    });
    expect(retry.status).toBe(405);
    expect(await job.getState()).toBe('failed');
    const clean = await fetch(`${shown}/queues/api/queues/pushes/clean/failed`, {
      method: 'PUT',
      headers: auth(),
    });
    expect(clean.status).toBe(405);
    expect(await pushes.getJobCounts('failed')).toEqual({ failed: 1 });

    // Asked for: server.dashboard.readOnly false lets Bull Board retry the job.
    const writable = await start({ readOnly: false });
    const allowed = await fetch(`${writable}/queues/api/queues/pushes/${job.id}/retry`, {
      method: 'PUT',
      headers: auth(),
    });
    expect(allowed.status).toBeLessThan(300);
    expect(await job.getState()).toBe('waiting');
    await pushes.obliterate({ force: true });
  });

  it('is not read-only on a loopback host unless set, and read-only there when set', async () => {
    const local = await start({ host: '127.0.0.1' });
    expect((await get(local, '/')).text).toContain('action="/actions/sync"');
    const set = await start({ host: '127.0.0.1', readOnly: true });
    expect((await get(set, '/')).text).not.toContain('method="post"');
    expect((await post(set, '/actions/audit', { _csrf: 'x' })).status).toBe(403);
  });

  it('shows Redis away and an ERP that cannot be read as messages in the page, never a 500', async () => {
    const url = await start({ readOnly: false });
    await redis.stop();
    try {
      const overview = await get(url, '/');
      expect(overview.status).toBe(200);
      expect(overview.text).toContain('Redis not reachable');
      expect(overview.text).toContain('<strong>stock</strong>'); // the store's part still shows
      expect(overview.text).not.toContain(REDIS_SECRET);
      const action = await post(url, '/actions/sync', { pipeline: 'stock', _csrf: tokenOf(overview.text) });
      expect(action.status).toBe(503);
      expect(await action.text()).toMatch(/could not be enqueued/);
    } finally {
      await redis.start();
      await requirePassword();
    }

    await database.db.schema.renameTable('erp_stock', 'erp_stock_away');
    try {
      const story = await get(url, `/explain/sku?sku=${goodSku}`);
      expect(story.status).toBe(200);
      const { host, port, database: name, user } = database.connection;
      expect(story.text).toContain(
        `could not be read: erp_query: the ERP database (pg ${host}:${port}/${name} as ${user}) refused the stock query: relation &quot;erp_stock&quot; does not exist`,
      );
      expect(story.text).not.toContain(DB_SECRET);
      expect(story.text).not.toMatch(/at .*\.ts:\d+/);
    } finally {
      await database.db.schema.renameTable('erp_stock_away', 'erp_stock');
    }
  });
});
