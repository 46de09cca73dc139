import type { Queue } from 'bullmq';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ScanPayload } from '../../src/queue/jobTypes.js';
import { eventually, type DaemonProcess } from '../../dev/daemonProcess.js';
import { openStore } from '../../src/store/Store.js';
import { acquirePipelineLease } from '../../src/sync/frame/pipelineLease.js';
import type { Lease } from '../../src/sync/frame/lease.js';
import {
  bulkStockRequests,
  olderAfterNewer,
  olderFromFirstNewer,
  platformStock,
  useDaemonWorlds,
  type DaemonWorld,
} from '../support/daemonWorld.js';

let world: DaemonWorld | undefined;
const worlds = useDaemonWorlds();

const SKUS = 3000;
const CONCURRENCY = 4;
const sku = (n: number): string => `BULK-${String(n).padStart(6, '0')}`;
// Disjoint ranges: any quantity below 1000 is a value of the first file.
const rows = (quantity: (n: number) => number) =>
  Array.from({ length: SKUS }, (_, i) => ({ sku: sku(i + 1), quantity: quantity(i + 1) }));
const older = rows((n) => 1 + (n % 400));
const newer = rows((n) => 1000 + (n % 400));
const isOlder = (quantity: number): boolean => quantity < 1000;

function queue(name: string): Queue {
  return worlds.queue(world!, name);
}

function bulkRequests(from = 0): { sku: string; quantity: number }[][] {
  return bulkStockRequests(world!.sandbox, from);
}

describe('a scan killed while it reads, the ERP changed, the daemon restarted', () => {
  it('ends with the newest values: no batch of the first attempt goes out beside or after the new scan', async () => {
    world = await worlds.start({
      extraProducts: SKUS,
      recordBodies: true,
      // Slow bulk answers: most batches of the first attempt are still waiting when it dies.
      faults: 'latency=50-100,only=PATCH /products/stock/bulk',
      schedules: { orders: 'off' },
      config: { sync: { batchSize: 10, concurrency: CONCURRENCY, lease: { ttlSeconds: 5 } } },
    });
    const pushes = queue('pushes');
    const runs = queue('runs');
    world.writeStock(older);
    const first = await world.start();
    await eventually(
      'the first batches of the scan',
      async () => (await pushes.getJobCountByTypes('waiting', 'active', 'completed', 'prioritized')) >= 8,
      30_000,
      5,
    );
    first.kill('SIGKILL');
    await first.exited;

    // What the test is about: the scan died while reading, with batches of it waiting in Redis.
    const scans = (await runs.getJobs(['active'])).filter((job) => job.name === 'stock-scan');
    expect(scans).toHaveLength(1);
    expect((scans[0]!.data as ScanPayload).step).toBeUndefined();
    expect(await pushes.getJobCountByTypes('waiting', 'prioritized')).toBeGreaterThan(0);

    // Another run (a run-once, say) takes the stock lease from the dead scan (its process is gone: at
    // once), so the restarted daemon sends none of the first attempt's batches before the scan job
    // itself restarts (once the dead worker's lock lapses) and settles them. Without it, the new
    // daemon's push workers could send them all first, or not, as the two queues' stall checks and the
    // bulk slots' leases fell.
    const store = openStore(join(world.dir, 'erp-sync.db'), { mustExist: true });
    let other: Lease | undefined;
    let second: DaemonProcess;
    let mark: number;
    try {
      other = await acquirePipelineLease(store, 'stock', { ttlMs: 120_000, waitMs: 0 });
      world.writeStock(newer);
      mark = world.sandbox.requestLog.entries().length;
      second = await world.start();
      // The scan found them (all waiting, or some taken by a push worker and awaited): the lease goes.
      await eventually(
        'the restarted scan settling the batches of its earlier attempt',
        async () => /(settled|waiting for) the batches of an earlier attempt/.test(second.stderr()),
        60_000,
      );
    } finally {
      other?.release();
      store.close();
    }
    await eventually(
      'the platform equal to the newer file',
      async () => {
        const platform = await platformStock(world!.api);
        return newer.every((row) => platform.get(row.sku) === row.quantity);
      },
      90_000,
      1_000,
    );

    // Per SKU, once a newer value went out no older one followed (the platform's answer order).
    expect(olderAfterNewer(bulkRequests(), isOlder)).toEqual([]);
    // Stronger, and what the restarted scan guarantees: batches of the first attempt go out (if at
    // all) before the new scan starts; once it sends, no older value goes out for any SKU.
    const { firstNewer, olderLater } = olderFromFirstNewer(bulkRequests(mark), isOlder);
    expect(firstNewer).toBeGreaterThanOrEqual(0);
    expect(olderLater).toEqual([]);
    expect(second.stderr()).toContain('settled the batches of an earlier attempt');
    expect(await pushes.getFailedCount()).toBe(0);
    second.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
  }, 150_000);
});
