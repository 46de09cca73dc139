import { join } from 'node:path';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditFix } from '../../src/cli/healAuditDrift.js';
import { openStore } from '../../src/store/index.js';
import type { AuditReport } from '../../src/diagnostics/audit.js';
import { eventually, type DaemonProcess } from '../../dev/daemonProcess.js';
import { runCli } from '../support/cli.js';
import { writeCsv } from '../support/syncHarness.js';
import { platformStock, startDaemonWorld, type DaemonWorld } from '../support/daemonWorld.js';

const sku = (n: number): string => `BULK-${String(n).padStart(6, '0')}`;
/** The ERP's stock now, by product number: each test changes it from where the last one left it. */
const erpStock = new Map([1, 2, 3, 4, 5].map((n) => [n, n * 10]));

function setStock(n: number, quantity: number): void {
  erpStock.set(n, quantity);
  world.writeStock([...erpStock].map(([m, q]) => ({ sku: sku(m), quantity: q })));
}

let world: DaemonWorld;
let daemon: DaemonProcess;

function writePrices(prices: Record<number, number>): void {
  writeCsv(
    join(world.erpDir, 'prices.csv'),
    ['sku', 'price', 'vat_rate'],
    Object.entries(prices).map(([n, price]) => ({ sku: sku(Number(n)), price, vat_rate: 19 })),
  );
}

const cli = (args: string[]) =>
  runCli([...args, '--config', world.configFile], world.env, { timeoutMs: 90_000 });

/** The write requests in the sandbox's log: path and items, stock before prices. */
function writes(): { path: string; items: unknown }[] {
  return world.sandbox.requestLog
    .entries()
    .filter((entry) => entry.method !== 'GET')
    .map((entry) => ({ path: entry.path, items: (entry.body as { items?: unknown }).items }))
    .sort((a, b) => b.path.localeCompare(a.path));
}

beforeAll(async () => {
  world = await startDaemonWorld({
    extraProducts: 5,
    recordBodies: true,
    // No schedule: only `audit --fix` may make the daemon push.
    schedules: { stock: 'off', orders: 'off', prices: 'off' },
  });
  setStock(1, 10);
  writePrices({ 1: 11, 2: 12, 3: 13, 4: 14, 5: 15 });
  // The baseline, acknowledged: sent from this process, before any daemon runs.
  expect((await cli(['sync', 'stock', '--inline'])).code).toBe(0);
  expect((await cli(['sync', 'prices', '--inline'])).code).toBe(0);
  expect((await cli(['audit', '--pipeline', 'stock,prices'])).code).toBe(0);
  daemon = await world.start();
}, 120_000);

afterAll(async () => {
  await world.close();
});

describe('erp-sync audit --fix with a running daemon', () => {
  it('enqueues exactly the healing pushes as flows, the daemon sends them, and the next audit is in step', async () => {
    // A new ERP value, a value changed on the platform after our push, a new ERP price.
    setStock(1, 11);
    writePrices({ 1: 11, 2: 12, 3: 13, 4: 99, 5: 15 });
    const product = (await world.api.products.list({ search: sku(2), per_page: 10 })).data[0]!;
    await world.api.products.updateStock(product.id, { quantity: 7 });
    world.sandbox.requestLog.clear();

    const fixed = await cli(['audit', '--pipeline', 'stock,prices', '--fix', '--json']);
    expect(fixed.code).toBe(1);
    const report = JSON.parse(fixed.stdout) as AuditReport & { fix: AuditFix };
    expect(report.drift).toBe(3);
    expect(report.fix).toMatchObject({
      why: expect.stringMatching(/^1 daemon\(s\) running on redis:\/\/127\.0\.0\.1:\d+, prefix e2e$/),
      outcome: { via: 'daemon', summaries: [], failures: [] },
      waited: false,
    });
    const enqueued = report.fix.outcome.enqueued;
    expect(enqueued.map((e) => [e.pipeline, e.items, e.pushJobs.length])).toEqual([
      ['stock', 2, 1],
      ['prices', 1, 1],
    ]);
    expect(enqueued[0]!.job).toMatch(/^runs\/audit-fix-stock-/);
    expect(enqueued[0]!.pushJobs[0]).toMatch(/^pushes\/[\w-]+$/);

    await eventually('the daemon sent the healing pushes', async () => {
      const stock = await platformStock(world.api);
      return stock.get(sku(1)) === 11 && stock.get(sku(2)) === 20;
    });
    const runs = new Queue('runs', {
      connection: { host: '127.0.0.1', port: world.redis.port },
      prefix: 'e2e',
    });
    try {
      const parent = enqueued[0]!.job.slice('runs/'.length);
      await eventually(
        'the fix flow summed up its pushes',
        async () => (await runs.getJobState(parent)) === 'completed',
      );
      const job = await runs.getJob(parent);
      expect(job?.name).toBe('stock-scan');
      expect(job?.data).toMatchObject({ trigger: 'audit', step: 'scanned' });
      expect(job?.returnvalue).toMatchObject({ pipeline: 'stock', read: 2, sent: 2, applied: 2, failed: 0 });
      await eventually(
        'the prices flow summed up its pushes',
        async () => (await runs.getJobState(enqueued[1]!.job.slice('runs/'.length))) === 'completed',
      );
    } finally {
      await runs.close();
    }
    // Exactly the healing writes, nothing else (the daemon has no schedule of its own here).
    expect(writes()).toEqual([
      {
        path: '/api/v2/products/stock/bulk',
        items: [
          { sku: sku(1), quantity: 11 },
          { sku: sku(2), quantity: 20 },
        ],
      },
      {
        path: '/api/v2/products/prices/bulk',
        items: [{ sku: sku(4), price: 99, vat_rate: 19 }],
      },
    ]);
    // Each flow gave the pipeline lease back: a scan can start at once.
    const store = openStore(join(world.dir, 'erp-sync.db'));
    try {
      expect(store.leases.holder('sync:stock')).toBeUndefined();
      expect(store.leases.holder('sync:prices')).toBeUndefined();
    } finally {
      store.close();
    }
    const again = await cli(['audit', '--pipeline', 'stock,prices']);
    expect(again.stdout).toContain('in step: no drift found');
    expect(again.code).toBe(0);
  }, 120_000);

  it('--wait waits for the daemon and shows what it sent', async () => {
    setStock(5, 55);
    world.sandbox.requestLog.clear();
    const fixed = await cli(['audit', '--pipeline', 'stock', '--fix', '--wait']);
    expect(fixed.code).toBe(1);
    expect(fixed.stdout).toMatch(/fix: enqueued in the daemon \(1 daemon\(s\) running on .*\):/);
    expect(fixed.stdout).toMatch(
      /stock: 1 item\(s\) in 1 push job\(s\) \(pushes\/[\w-]+\), summed up by runs\/audit-fix-stock-/,
    );
    // The daemon's summary of the flow, as `sync --wait` shows it.
    expect(fixed.stdout).toMatch(/^stock\s+1\s+0\s+1\s+1\s+0\s+0\s+1\s/m);
    expect(writes()).toEqual([
      { path: '/api/v2/products/stock/bulk', items: [{ sku: sku(5), quantity: 55 }] },
    ]);
    expect((await cli(['audit', '--pipeline', 'stock'])).code).toBe(0);
  }, 120_000);

  it('a scan that read the ERP after the audit wins over the queued fix (the fix carries the older generation)', async () => {
    const pushes = new Queue('pushes', {
      connection: { host: '127.0.0.1', port: world.redis.port },
      prefix: 'e2e',
    });
    try {
      setStock(2, 21);
      await pushes.pause();
      const fixed = await cli(['audit', '--pipeline', 'stock', '--fix', '--json']);
      const { fix } = JSON.parse(fixed.stdout) as { fix: AuditFix };
      expect(fix.outcome.enqueued.map((e) => e.items)).toEqual([1]);
      // The ERP moves on and a scan sends the newer value while the fix still waits in the queue.
      setStock(2, 22);
      world.sandbox.requestLog.clear();
      expect((await cli(['sync', 'stock', '--inline'])).code).toBe(0);
      await pushes.resume();
      const runs = new Queue('runs', {
        connection: { host: '127.0.0.1', port: world.redis.port },
        prefix: 'e2e',
      });
      try {
        const parent = fix.outcome.enqueued[0]!.job.slice('runs/'.length);
        await eventually('the fix flow ended', async () => (await runs.getJobState(parent)) === 'completed');
        expect((await runs.getJob(parent))?.returnvalue).toMatchObject({
          applied: 0,
          extra: { superseded: 1 },
        });
      } finally {
        await runs.close();
      }
      expect(writes()).toEqual([
        { path: '/api/v2/products/stock/bulk', items: [{ sku: sku(2), quantity: 22 }] },
      ]);
      expect((await platformStock(world.api)).get(sku(2))).toBe(22);
    } finally {
      await pushes.resume();
      await pushes.close();
    }
  }, 120_000);

  it('pushes inline when no daemon serves the queues, or with --inline', async () => {
    daemon.kill('SIGTERM');
    await daemon.exited;
    setStock(3, 33);
    world.sandbox.requestLog.clear();
    const fixed = await cli(['audit', '--pipeline', 'stock', '--fix']);
    expect(fixed.code).toBe(1);
    expect(fixed.stdout).toMatch(
      /fix: pushed inline \(no daemon is running on redis:\/\/127\.0\.0\.1:\d+, prefix e2e\)/,
    );
    expect(writes()).toEqual([
      { path: '/api/v2/products/stock/bulk', items: [{ sku: sku(3), quantity: 33 }] },
    ]);
    expect((await cli(['audit', '--pipeline', 'stock'])).code).toBe(0);

    daemon = await world.start();
    setStock(3, 34);
    world.sandbox.requestLog.clear();
    const forced = await cli(['audit', '--pipeline', 'stock', '--fix', '--inline']);
    expect(forced.stdout).toMatch(/fix: pushed inline \(--inline\)/);
    expect(writes()).toEqual([
      { path: '/api/v2/products/stock/bulk', items: [{ sku: sku(3), quantity: 34 }] },
    ]);
  }, 120_000);

  it("a flow the daemon's Redis refuses to take exits 2, naming the pipeline, the flow and why", async () => {
    setStock(4, 44);
    world.sandbox.requestLog.clear();
    const redis = world.redis.client();
    // Redis refuses every write past maxmemory (noeviction): the daemon is found, the enqueue fails.
    await redis.config('SET', 'maxmemory', '1');
    let fixed;
    try {
      fixed = await cli(['audit', '--pipeline', 'stock', '--fix']);
    } finally {
      await redis.config('SET', 'maxmemory', '0');
      await redis.quit();
    }
    expect(fixed.stdout).toMatch(/fix: for the daemon \(1 daemon\(s\) running on /);
    expect(fixed.stdout).toMatch(
      /\nfix failed: stock flow runs\/audit-fix-stock-[\w-]+ \(1 item\(s\)\): could not be enqueued: (EXECABORT|OOM)/,
    );
    expect(fixed.code).toBe(2);
    expect(writes()).toEqual([]);
  }, 120_000);

  it('refuses --wait or --inline without --fix', async () => {
    const bad = await cli(['audit', '--wait']);
    expect(bad.stderr).toMatch(/--inline and --wait go with --fix/);
    expect(bad.code).toBe(64);
  });
});
