import { Queue, UnrecoverableError, Worker } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunSummary } from '../../src/sync/frame/types.js';
import { outboxIds, platformOrderIds } from '../support/orderChecks.js';
import { runCli } from '../support/cli.js';
import { eventually } from '../../dev/daemonProcess.js';
import {
  opsGet,
  platformStock,
  startDaemonWorld,
  worldQueue,
  type DaemonWorld,
} from '../support/daemonWorld.js';

let world: DaemonWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('erp-sync sync in a running daemon', () => {
  it('never runs an "off" pipeline; sync --full --wait fans the scan out into one push job per batch and waits for all', async () => {
    world = await startDaemonWorld({
      extraProducts: 250,
      schedules: { stock: 'off', orders: 'off' },
      config: { sync: { batchSize: 50, concurrency: 4 } },
    });
    const rows = Array.from({ length: 250 }, (_, i) => ({
      sku: `BULK-${String(i + 1).padStart(6, '0')}`,
      quantity: 900 + i,
    }));
    world.writeStock(rows);
    await world.start();
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(world.sandbox.requestLog.entries().filter((entry) => entry.method !== 'GET')).toEqual([]);

    const result = await runCli(
      ['sync', 'stock', '--full', '--wait', '--json', '--config', world.configFile],
      world.env,
      {
        timeoutMs: 60_000,
      },
    );
    expect(result.stderr).not.toContain('no daemon is running');
    expect(result.code).toBe(0);
    const { summaries } = JSON.parse(result.stdout) as { summaries: RunSummary[] };
    expect(summaries).toHaveLength(1);
    expect(summaries[0]).toMatchObject({ pipeline: 'stock', full: true, sent: 250, applied: 250, failed: 0 });
    expect(summaries[0]!.error).toBeUndefined();
    // The run is done only when every push was acknowledged: the platform already has every value.
    const platform = await platformStock(world.api);
    expect(rows.every((row) => platform.get(row.sku) === row.quantity)).toBe(true);
    const bulks = world.sandbox.requestLog
      .entries()
      .filter((entry) => entry.path.endsWith('/products/stock/bulk'));
    expect(bulks).toHaveLength(5);

    const pushes = new Queue('pushes', {
      connection: { host: '127.0.0.1', port: world.redis.port },
      prefix: 'e2e',
    });
    try {
      const done = await pushes.getCompleted();
      expect(done.map((job) => job.name)).toEqual(Array(5).fill('stock-push'));
      expect(new Set(done.map((job) => job.parentKey))).toEqual(
        new Set([expect.stringContaining(':runs:manual-stock-')]),
      );
      // Each returns counts to its scan, not the batch's keys (kept in Redis until the flow is summed).
      for (const job of done) {
        expect(job.returnvalue).toMatchObject({ items: 50, applied: 50, notFound: 0 });
        expect(job.returnvalue).not.toHaveProperty('rejectedKeys');
      }
    } finally {
      await pushes.close();
    }
  }, 120_000);

  it('counts the orders its import jobs imported in erp_sync_items_total{pipeline="orders",outcome="applied"}', async () => {
    world = await startDaemonWorld({ schedules: { stock: 'off' } });
    const expected = await platformOrderIds(world.api, ['new', 'confirmed']);
    expect(expected.length).toBeGreaterThan(0);
    const daemon = await world.start();
    await eventually(
      'every order in the outbox',
      async () => (await outboxIds(world!.erpDir)).ids.length === expected.length,
    );
    const applied = async () => {
      const { text } = await opsGet(daemon.url, '/metrics');
      const match = /^erp_sync_items_total\{pipeline="orders",outcome="applied"\} (\S+)$/m.exec(text);
      return match ? Number(match[1]) : 0;
    };
    await eventually('the imports counted', async () => (await applied()) === expected.length);
  }, 120_000);

  it('imports an order whose earlier import job failed and was kept: the poll retries that job under its id', async () => {
    world = await startDaemonWorld({ schedules: { stock: 'off' } });
    const expected = await platformOrderIds(world.api, ['new', 'confirmed']);
    const orderId = expected[0]!;
    const imports = worldQueue(world, 'imports');
    // An earlier daemon's import of the order, failed for good and kept for `erp-sync jobs`.
    const earlier = new Worker(
      'imports',
      async () => {
        throw new UnrecoverableError('the ERP refused it');
      },
      { connection: { host: '127.0.0.1', port: world.redis.port }, prefix: 'e2e' },
    );
    try {
      await imports.add('order-import', { orderId }, { jobId: `order-${orderId}` });
      await eventually(
        'the earlier import failed',
        async () => (await imports.getJobState(`order-${orderId}`)) === 'failed',
      );
      await earlier.close();
      await world.start();
      await eventually(
        'every order in the outbox',
        async () => (await outboxIds(world!.erpDir)).ids.length === expected.length,
      );
      expect((await outboxIds(world.erpDir)).ids).toEqual([...expected].sort((a, b) => a - b));
      expect(await imports.getJobState(`order-${orderId}`)).toBe('completed');
    } finally {
      await earlier.close();
      await imports.close();
    }
  }, 120_000);
});
