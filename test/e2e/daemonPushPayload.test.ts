import { join } from 'node:path';
import { FlowProducer } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { eventually } from '../../dev/daemonProcess.js';
import { jobOptionsOf } from '../../src/queue/jobRegistry.js';
import type { PushPayload, ScanPayload } from '../../src/queue/jobTypes.js';
import { packBatch } from '../../src/queue/packedBatch.js';
import type { PushResult } from '../../src/queue/pushJob.js';
import { openStore } from '../../src/store/index.js';
import { emptySummary } from '../../src/sync/frame/summary.js';
import { stockFingerprint } from '../../src/sync/push/fingerprint.js';
import type { PushItem } from '../../src/sync/push/pushBatch.js';
import type { BulkStockItem } from '../../src/api/inputs.js';
import { platformStock, useDaemonWorlds } from '../support/daemonWorld.js';

const worlds = useDaemonWorlds();

const item = (n: number, quantity: number): PushItem<BulkStockItem> => {
  const sku = `BULK-${String(n).padStart(6, '0')}`;
  return {
    key: sku,
    sku,
    source: { file: 'stock.csv', line: n + 1 },
    hash: stockFingerprint(quantity),
    wire: { sku, quantity },
  };
};

describe('push jobs across an upgrade', () => {
  it('sends a batch queued in the object-per-item layout of the version before, beside a packed one, and records both once acknowledged', async () => {
    const world = await worlds.start({
      extraProducts: 4,
      schedules: { stock: 'off', orders: 'off' },
    });
    await world.start();
    const old = [item(1, 11), item(2, 22)];
    const packed = [item(3, 33), item(4, 44)];
    const generation = 1;
    // What the version before left in Redis: a flow whose push job carries `items`, one object each.
    const oldData: PushPayload = { batch: { pipeline: 'stock', generation, items: old }, scanOwner: '' };
    const newData: PushPayload = {
      batch: packBatch({ pipeline: 'stock', generation, items: packed }),
      scanOwner: '',
    };
    expect(JSON.stringify(newData)).not.toContain('"items"');
    const parent: ScanPayload = {
      pipeline: 'stock',
      full: false,
      trigger: 'manual',
      requestedAt: new Date().toISOString(),
      step: 'scanned',
      scan: {
        summary: { ...emptySummary('stock', { full: false, dryRun: false }), read: 4, sent: 4 },
        receipt: null,
        batches: 2,
        scannedAt: Date.now(),
      },
    };
    const flows = new FlowProducer({
      connection: { host: '127.0.0.1', port: world.redis.port },
      prefix: 'e2e',
    });
    try {
      await flows.add({
        name: 'stock-scan',
        queueName: 'runs',
        data: parent,
        opts: { jobId: 'upgrade-flow' },
        children: [oldData, newData].map((data) => ({
          name: 'stock-push',
          queueName: 'pushes',
          data,
          opts: jobOptionsOf('stock-push'),
        })),
      });
    } finally {
      await flows.close();
    }

    const pushes = worlds.queue(world, 'pushes');
    await eventually('both push jobs completed', async () => (await pushes.getCompleted()).length === 2);
    const results = (await pushes.getCompleted()).map((job) => job.returnvalue as PushResult);
    expect(results.map((result) => [result.items, result.applied, result.failed])).toEqual([
      [2, 2, 0],
      [2, 2, 0],
    ]);
    const platform = await platformStock(world.api);
    expect([1, 2, 3, 4].map((n) => platform.get(`BULK-${String(n).padStart(6, '0')}`))).toEqual([
      11, 22, 33, 44,
    ]);
    // Fingerprints after the acknowledgement, the acknowledged values (not in-flight marks).
    const runs = worlds.queue(world, 'runs');
    await eventually(
      'the flow summed up',
      async () => (await runs.getJobState('upgrade-flow')) === 'completed',
    );
    const store = openStore(join(world.dir, 'erp-sync.db'));
    try {
      const prints = store.fingerprints.getMany(
        'stock',
        [...old, ...packed].map((pushed) => pushed.key),
      );
      expect([...old, ...packed].map((pushed) => prints.get(pushed.key)?.hash)).toEqual(
        [...old, ...packed].map((pushed) => pushed.hash),
      );
      expect(store.leases.holder('sync:stock')).toBeUndefined();
    } finally {
      store.close();
    }
  }, 90_000);
});
