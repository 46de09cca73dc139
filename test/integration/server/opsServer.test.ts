import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue, Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/logger.js';
import {
  OpsServerError,
  createMetrics,
  startOpsServer,
  type OpsServer,
  type Readiness,
} from '../../../src/server/index.js';

// The ops server on a free port, with real BullMQ queues on the shared Redis (6379) under a
// prefix of its own (only added jobs, nothing flushed; the queues are obliterated at the end).

const prefix = `ops-test-${randomUUID().slice(0, 8)}`;
const connection = { host: '127.0.0.1', port: 6379 };
const queues: Queue[] = [];
const servers: OpsServer[] = [];

function queue(name: string): Queue {
  const q = new Queue(name, { connection, prefix });
  queues.push(q);
  return q;
}

async function start(options: Partial<Parameters<typeof startOpsServer>[0]> = {}): Promise<OpsServer> {
  const server = await startOpsServer({
    host: '127.0.0.1',
    port: 0,
    metrics: createMetrics(),
    readiness: async () => ({ ready: true, reasons: [] }),
    queues: [],
    logger: silentLogger(),
    ...options,
  });
  servers.push(server);
  return server;
}

const basic = (password: string): string => `Basic ${Buffer.from(`ops:${password}`).toString('base64')}`;

afterAll(async () => {
  for (const server of servers) await server.close();
  for (const q of queues) {
    await q.obliterate({ force: true });
    await q.close();
  }
});

describe('ops server', () => {
  let stock: Queue;
  let orders: Queue;
  beforeAll(async () => {
    stock = queue('stock');
    orders = queue('orders');
    await stock.add('push', { n: 1 });
    await stock.add('push', { n: 2 });
    await orders.add('import', { n: 3 }, { delay: 60_000 });
  });

  it('listens on a free port with port 0 and says where', async () => {
    const server = await start();
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.url).not.toMatch(/:0$/);
  });

  it('/healthz answers 200 with the event-loop lag while the loop is responsive', async () => {
    const server = await start();
    const response = await fetch(`${server.url}/healthz`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { status: string; eventLoopLagMs: number };
    expect(body.status).toBe('ok');
    expect(body.eventLoopLagMs).toBeGreaterThanOrEqual(0);
    expect(body.eventLoopLagMs).toBeLessThan(1_000);
  });

  it('/healthz turns 503 after the event loop was blocked longer than the limit', async () => {
    const server = await start({ maxLoopLagMs: 300 });
    await new Promise((resolve) => setTimeout(resolve, 600)); // a few ticks of the monitor
    const until = performance.now() + 900;
    while (performance.now() < until) {
      // a synchronous busy loop: nothing else runs meanwhile
    }
    const response = await fetch(`${server.url}/healthz`);
    const body = (await response.json()) as { status: string; eventLoopLagMs: number };
    expect(response.status).toBe(503);
    expect(body.eventLoopLagMs).toBeGreaterThan(300);
  });

  it('/readyz is 200 when ready and 503 with the reasons when not', async () => {
    let state: Readiness = { ready: true, reasons: [] };
    const server = await start({ readiness: async () => state });
    const ok = await fetch(`${server.url}/readyz`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ ready: true, reasons: [] });

    state = { ready: false, reasons: ['Redis is unreachable', 'paused: the API key was refused'] };
    const down = await fetch(`${server.url}/readyz`);
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({
      ready: false,
      reasons: ['Redis is unreachable', 'paused: the API key was refused'],
    });
  });

  it('/readyz is 503 when the readiness check itself throws', async () => {
    const server = await start({
      readiness: async () => {
        throw new Error('boom');
      },
    });
    const response = await fetch(`${server.url}/readyz`);
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ ready: false, reasons: ['the readiness check failed'] });
  });

  it('/metrics exposes every required metric, the queue counts and the default process metrics', async () => {
    const metrics = createMetrics();
    metrics.setPaused(true);
    metrics.recordRun({
      pipeline: 'stock',
      read: 10,
      unchanged: 4,
      sent: 6,
      applied: 5,
      notFound: 1,
      rejected: 0,
      failed: 0,
      requests: 1,
      writeRequests: 1,
      seconds: 1,
      full: false,
      dryRun: false,
      extra: {},
    });
    metrics.recordApiResponse({
      method: 'PATCH',
      path: '/products/stock/bulk',
      route: '/products/stock/bulk',
      status: 429,
      durationMs: 12,
      attempt: 1,
    });
    await stock.setGlobalConcurrency(3);
    const server = await start({ metrics, queues: [stock, orders] });
    const response = await fetch(`${server.url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await response.text();
    for (const line of [
      'erp_sync_items_total{pipeline="stock",outcome="read"} 10',
      'erp_sync_items_total{pipeline="stock",outcome="unchanged"} 4',
      'erp_sync_items_total{pipeline="stock",outcome="sent"} 6',
      'erp_sync_items_total{pipeline="stock",outcome="applied"} 5',
      'erp_sync_items_total{pipeline="stock",outcome="not_found"} 1',
      'erp_sync_items_total{pipeline="stock",outcome="rejected"} 0',
      'erp_sync_items_total{pipeline="stock",outcome="failed"} 0',
      'erp_sync_runs_total{pipeline="stock",status="ok"} 1',
      'erp_sync_api_requests_total{method="PATCH",route="/products/stock/bulk",status="429"} 1',
      'erp_sync_api_request_duration_seconds_count{method="PATCH",route="/products/stock/bulk"} 1',
      'erp_sync_queue_jobs{queue="stock",state="waiting"} 2',
      'erp_sync_queue_jobs{queue="orders",state="delayed"} 1',
      'erp_sync_queue_jobs{queue="orders",state="waiting"} 0',
      'erp_sync_paused 1',
      'erp_sync_queue_global_concurrency{queue="stock"} 3',
    ]) {
      expect(text).toContain(line);
    }
    // A queue without a global concurrency has no such line.
    expect(text).not.toContain('erp_sync_queue_global_concurrency{queue="orders"}');
    expect(text).toMatch(/^erp_sync_last_success_timestamp_seconds\{pipeline="stock"\} \d+(\.\d+)?$/m);
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds /m);
  });

  it('serves Bull Board at /queues with the daemon queues', async () => {
    const server = await start({ queues: [stock, orders] });
    const page = await fetch(`${server.url}/queues`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(await page.text()).toContain('erp-sync');
    const api = await fetch(`${server.url}/queues/api/queues?activeQueue=stock&status=waiting&page=1`);
    expect(api.status).toBe(200);
    const body = (await api.json()) as { queues: { name: string }[] };
    expect(body.queues.map((q) => q.name).sort()).toEqual(['orders', 'stock']);
  });

  it('refuses to listen beyond loopback without a dashboard password', async () => {
    const attempt = start({ host: '0.0.0.0' });
    await expect(attempt).rejects.toBeInstanceOf(OpsServerError);
    await expect(attempt).rejects.toThrow(/ERP_SYNC_DASHBOARD_PASSWORD/);
    await expect(start({ host: '0.0.0.0', dashboardPassword: '' })).rejects.toBeInstanceOf(OpsServerError);
  });

  it('beyond loopback, /metrics and /queues need the password; health and readiness do not', async () => {
    const password = `pw-${randomUUID()}`;
    const server = await start({ host: '0.0.0.0', dashboardPassword: password, queues: [stock] });
    const local = server.url.replace('0.0.0.0', '127.0.0.1');
    for (const path of ['/metrics', '/queues', '/queues/api/queues']) {
      const anonymous = await fetch(`${local}${path}`);
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toMatch(/^Basic /);
      const wrong = await fetch(`${local}${path}`, { headers: { authorization: basic(`${password}x`) } });
      expect(wrong.status).toBe(401);
      const right = await fetch(`${local}${path}`, { headers: { authorization: basic(password) } });
      expect(right.status).toBe(200);
      expect(await right.text()).not.toContain(password);
    }
    expect((await fetch(`${local}/healthz`)).status).toBe(200);
    expect((await fetch(`${local}/readyz`)).status).toBe(200);
  });

  it('keeps serving /metrics with the last queue counts when a queue cannot answer', async () => {
    const broken = new Queue('broken', {
      connection: { host: '127.0.0.1', port: 1, maxRetriesPerRequest: 1, enableOfflineQueue: false },
      prefix,
    });
    broken.on('error', () => {});
    const metrics = createMetrics();
    metrics.setQueueJobs('broken', { waiting: 7 });
    const server = await start({ metrics, queues: [broken] });
    const started = performance.now();
    const response = await fetch(`${server.url}/metrics`);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('erp_sync_queue_jobs{queue="broken",state="waiting"} 7');
    expect(performance.now() - started).toBeLessThan(5_000);
    await broken.close();
  });
});

describe('ops server output never carries secrets', () => {
  it('shows no Redis password in the dashboard API (stats, queues, workers) nor in /metrics', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ops-redis-'));
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const address = probe.address();
        probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
      });
    });
    const secret = `redis-secret-${randomUUID()}`;
    const redisServer = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--requirepass', secret],
      { stdio: 'ignore' },
    );
    const connection = { host: '127.0.0.1', port, password: secret, maxRetriesPerRequest: null };
    const guarded = new Queue('stock', { connection, prefix });
    const worker = new Worker('stock', async () => undefined, { connection, prefix, autorun: false });
    // until redis-server listens, the connections retry (and say so)
    guarded.on('error', () => {});
    worker.on('error', () => {});
    try {
      await guarded.waitUntilReady();
      await worker.waitUntilReady();
      await guarded.add('push', { items: 3 });
      const server = await start({ queues: [guarded] });
      const bodies: string[] = [];
      for (const path of [
        '/queues',
        '/queues/api/redis/stats',
        '/queues/api/queues?activeQueue=stock&status=latest&page=1',
        '/queues/api/queues/stock/workers',
        '/metrics',
      ]) {
        const response = await fetch(`${server.url}${path}`);
        expect(response.status, path).toBe(200);
        bodies.push(await response.text());
      }
      expect(bodies.join('\n')).toContain('"name":"stock"');
      for (const body of bodies) expect(body).not.toContain(secret);
    } finally {
      await worker.close();
      await guarded.close();
      redisServer.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
