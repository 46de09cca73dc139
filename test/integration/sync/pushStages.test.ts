import { afterEach, describe, expect, it } from 'vitest';
import { pushBatch, type PushBatch } from '../../../src/sync/push/pushBatch.js';
import { bindRun } from '../../../src/sync/frame/runInFrame.js';
import { acquireLease, LeaseLostError } from '../../../src/sync/frame/lease.js';
import { scanPush } from '../../../src/sync/push/scanPush.js';
import { runStock } from '../../../src/sync/push/stock.js';
import { runPrices } from '../../../src/sync/push/prices.js';
import { bulkSku, createHarness, type Harness } from '../../support/syncHarness.js';

const RUN = { full: false, dryRun: false };
let harness: Harness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const stock = (count: number, quantity: number) =>
  Array.from({ length: count }, (_, i) => ({ sku: bulkSku(i + 1), quantity }));

/** What a queue does to a job's data: JSON there and back. */
const overTheQueue = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

describe('push stages for a queue: scan in one job, send and record each batch in another', () => {
  it('scans into JSON batches, sends them later from another context, and a stale batch never overwrites a newer value', async () => {
    harness = await createHarness({ extraProducts: 250, sync: { batchSize: 100 } });
    harness.writeStock(stock(250, 5));
    const scanner = await harness.context();
    const queued: PushBatch[] = [];
    const scan = await scanPush('stock', scanner, RUN, async (batch) => {
      queued.push(overTheQueue(batch));
    });
    expect(scan).toMatchObject({ pipeline: 'stock', read: 250, sent: 250, requests: 0, writeRequests: 0 });
    expect(scan.error).toBeUndefined();
    expect(queued.map((b) => b.items.length)).toEqual([100, 100, 50]);
    expect(new Set(queued.map((b) => b.generation)).size).toBe(1);
    expect(harness.writes()).toEqual([]);

    // The ERP moves on and a later run confirms 7 for every SKU before the old batches go out.
    harness.writeStock(stock(250, 7));
    expect(await runStock(await harness.context(), RUN)).toMatchObject({ applied: 250 });
    harness.sandbox.requestLog.clear();

    // A push worker (another context: another process's connection) gets the stale batches.
    const worker = await harness.context();
    const { ctx, counter } = bindRun(worker);
    for (const batch of queued) {
      expect(await pushBatch(ctx, batch)).toMatchObject({ superseded: batch.items.length, applied: 0 });
    }
    expect(counter).toEqual({ total: 0, writes: 0 });
    expect(harness.writes()).toEqual([]);
    const platform = await harness.platform(worker);
    for (let n = 1; n <= 250; n++) expect(platform.get(bulkSku(n))?.stock).toBe(7);

    // A fresh scan's batches are sent and recorded by the worker; the next run has nothing to do.
    harness.writeStock(stock(250, 9));
    const fresh: PushBatch[] = [];
    await scanPush('stock', scanner, RUN, async (batch) => {
      fresh.push(overTheQueue(batch));
    });
    for (const batch of fresh)
      expect(await pushBatch(ctx, batch)).toMatchObject({ applied: batch.items.length });
    expect(counter).toEqual({ total: 3, writes: 3 });
    expect((await harness.platform(worker)).get(bulkSku(250))?.stock).toBe(9);
    expect(await runStock(await harness.context(), RUN)).toMatchObject({
      unchanged: 250,
      sent: 0,
      writeRequests: 0,
    });
  });

  it('marks nothing and sends nothing for a run that lost its lease; a held lease is renewed with the mark', async () => {
    harness = await createHarness({ extraProducts: 3 });
    harness.writeStock(stock(3, 5));
    const queued: PushBatch[] = [];
    await scanPush('stock', await harness.context(), RUN, async (batch) => {
      queued.push(overTheQueue(batch));
    });
    expect(queued).toHaveLength(1);
    const worker = await harness.context();
    const { ctx } = bindRun(worker);
    const lease = await acquireLease(worker.store, 'sync:stock', { ttlMs: 60_000, waitMs: 0 });
    // Another run takes the lease over (as after this one stalled past its TTL).
    const other = await harness.context();
    other.store.leases.release('sync:stock', lease.owner);
    expect(other.store.leases.acquire('sync:stock', 'other-host:1:x', 60_000)).toBe(true);
    await expect(pushBatch(ctx, queued[0]!, { lease })).rejects.toBeInstanceOf(LeaseLostError);
    expect(harness.writes()).toEqual([]);
    expect(worker.store.db.prepare('SELECT count(*) FROM inflight_batches').pluck().get()).toBe(0);

    // The lease held again: the batch is marked, sent and recorded.
    other.store.leases.release('sync:stock', 'other-host:1:x');
    const held = await acquireLease(worker.store, 'sync:stock', { ttlMs: 60_000, waitMs: 0 });
    expect(await pushBatch(ctx, queued[0]!, { lease: held })).toMatchObject({ applied: 3 });
    expect(harness.writes()).toHaveLength(1);
    expect(worker.store.leases.holder('sync:stock')?.owner).toBe(held.owner);
    held.release();
  });

  it('scans prices the same way', async () => {
    harness = await createHarness({ extraProducts: 3 });
    harness.writePrices([1, 2, 3].map((n) => ({ sku: bulkSku(n), price: 10 + n })));
    const queued: PushBatch[] = [];
    await scanPush('prices', await harness.context(), RUN, async (batch) => {
      queued.push(overTheQueue(batch));
    });
    expect(queued).toHaveLength(1);
    expect(queued[0]).toMatchObject({ pipeline: 'prices' });
    expect(queued[0]!.items.map((item) => item.wire)).toEqual(
      [1, 2, 3].map((n) => ({ sku: bulkSku(n), price: 10 + n, sale_price: null })),
    );
    const { ctx } = bindRun(await harness.context());
    expect(await pushBatch(ctx, queued[0]!)).toMatchObject({ applied: 3 });
    expect(await runPrices(await harness.context(), RUN)).toMatchObject({ unchanged: 3, writeRequests: 0 });
  });
});
