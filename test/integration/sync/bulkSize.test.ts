import { afterEach, describe, expect, it } from 'vitest';
import { BULK_PROBE_AFTER_MS } from '../../../src/sync/push/bulkSize.js';
import { runStock } from '../../../src/sync/push/stock.js';
import { bulkSku, createHarness, type Harness } from '../../support/syncHarness.js';

const RUN = { full: false, dryRun: false };
const SKUS = 450;
let harness: Harness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const stock = (quantity: (n: number) => number) =>
  Array.from({ length: SKUS }, (_, i) => ({ sku: bulkSku(i + 1), quantity: quantity(i + 1) }));

/** The bulk requests of the sandbox's log since the last clear: status and the SKUs each carried. */
function bulkRequests(h: Harness, path: string): { status: number | null; skus: string[] }[] {
  return h
    .writes()
    .filter((entry) => entry.path.endsWith(path))
    .map((entry) => ({
      status: entry.status,
      skus: ((entry.body as { items?: { sku: string }[] } | undefined)?.items ?? []).map((item) => item.sku),
    }));
}

/** Every SKU applied exactly once across the accepted requests: nothing lost, nothing sent twice. */
function expectEachOnce(requests: { status: number | null; skus: string[] }[]): void {
  const applied = requests.filter((r) => r.status === 200).flatMap((r) => r.skus);
  expect(applied.length).toBe(SKUS);
  expect(new Set(applied).size).toBe(SKUS);
}

describe('bulk size against a platform that takes at most 100 items a request', () => {
  it('falls from 1000 to the 100 the platform names on its first refusal, remembers it across runs, and converges', async () => {
    harness = await createHarness({ extraProducts: SKUS, bulkMax: 100, sync: { batchSize: 1000 } });
    const h = harness;
    h.writeStock(stock((n) => n % 7));

    const first = await runStock(await h.context(), RUN);
    expect(first).toMatchObject({ read: SKUS, sent: SKUS, applied: SKUS, failed: 0, rejected: 0 });
    expect(first.error).toBeUndefined();
    const firstRequests = bulkRequests(h, '/products/stock/bulk');
    // One refusal (the scan's 450-item batch), then parts of at most 100.
    expect(firstRequests.map((r) => r.status)).toEqual([422, 200, 200, 200, 200, 200]);
    expect(firstRequests[0]!.skus.length).toBe(SKUS);
    expect(firstRequests.slice(1).map((r) => r.skus.length)).toEqual([100, 100, 100, 100, 50]);
    expectEachOnce(firstRequests);

    const ctx = await h.context();
    expect(ctx.store.bulkLimits.get('stock')?.size).toBe(100);
    expect(ctx.store.rejects.list({ pipeline: 'stock' })).toEqual([]);
    const platform = await h.platform(ctx);
    for (let n = 1; n <= SKUS; n++) expect(platform.get(bulkSku(n))?.stock).toBe(n % 7);

    // A new process on the same store: batches of 100 from the start, no refusal.
    h.writeStock(stock((n) => (n % 7) + 10));
    h.sandbox.requestLog.clear();
    expect(await runStock(await h.context(), RUN)).toMatchObject({ sent: SKUS, applied: SKUS, failed: 0 });
    const second = bulkRequests(h, '/products/stock/bulk');
    expect(second.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expectEachOnce(second);
    const after = await h.platform(ctx);
    for (let n = 1; n <= SKUS; n++) expect(after.get(bulkSku(n))?.stock).toBe((n % 7) + 10);

    // Learned per endpoint: the prices endpoint learns its own on its first refusal.
    expect(ctx.store.bulkLimits.get('prices')).toBeNull();
  });

  it('a day later tries twice the learned size once, and falls back on the refusal', async () => {
    harness = await createHarness({ extraProducts: SKUS, bulkMax: 100, sync: { batchSize: 1000 } });
    const h = harness;
    const ctx = await h.context();
    ctx.store.bulkLimits.raise('stock', 100, Date.now() - BULK_PROBE_AFTER_MS - 1000);
    h.writeStock(stock((n) => n % 5));
    expect(await runStock(await h.context(), RUN)).toMatchObject({ applied: SKUS, failed: 0 });
    const requests = bulkRequests(h, '/products/stock/bulk');
    // The scan cut batches of 200 (the probe); the first one refused brings every later part back to 100.
    expect(requests[0]).toMatchObject({ status: 422 });
    expect(requests[0]!.skus.length).toBe(200);
    expect(requests.filter((r) => r.status === 422).length).toBeLessThanOrEqual(3);
    expect(requests.filter((r) => r.status === 200).every((r) => r.skus.length <= 100)).toBe(true);
    expectEachOnce(requests);
    const limit = ctx.store.bulkLimits.get('stock')!;
    expect(limit.size).toBe(100);
    expect(Date.now() - limit.learnedAt).toBeLessThan(60_000);
  });

  it('halves on a 413 that names no item count until both halves go through', async () => {
    // Each 1000-item body is ~40 kB; a 12 kB body limit takes about 300 items.
    harness = await createHarness({ extraProducts: SKUS, bodyLimit: 12_000, sync: { batchSize: 1000 } });
    const h = harness;
    h.writeStock(stock((n) => n % 3));
    const summary = await runStock(await h.context(), RUN);
    expect(summary).toMatchObject({ applied: SKUS, failed: 0, rejected: 0 });
    const requests = bulkRequests(h, '/products/stock/bulk');
    expectEachOnce(requests);
    const learned = (await h.context()).store.bulkLimits.get('stock')!.size;
    expect(learned).toBeLessThan(SKUS);
    expect(requests.filter((r) => r.status === 200).every((r) => r.skus.length <= Math.ceil(SKUS / 2))).toBe(
      true,
    );
    h.sandbox.requestLog.clear();
    h.writeStock(stock((n) => (n % 3) + 1));
    expect(await runStock(await h.context(), RUN)).toMatchObject({ applied: SKUS, failed: 0 });
    expect(bulkRequests(h, '/products/stock/bulk').every((r) => r.status === 200)).toBe(true);
  });
});
