import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCatalog } from '../../../src/sync/catalog/catalog.js';
import { runPrices } from '../../../src/sync/push/prices.js';
import { NOT_ON_PLATFORM } from '../../../src/sync/push/pushBatch.js';
import { runStock } from '../../../src/sync/push/stock.js';
import { silentLogger } from '../../../src/logger.js';
import { closeSyncContext, createSyncContext } from '../../../src/sync/context.js';
import { startGateProxy } from '../../support/gateProxy.js';
import {
  bulkSku,
  createHarness,
  writeCsv,
  type Harness,
  type PriceRow,
  type StockRow,
} from '../../support/syncHarness.js';

const RUN = { full: false, dryRun: false };
let harness: Harness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

function stockRows(count: number, quantity: (n: number) => number): StockRow[] {
  return Array.from({ length: count }, (_, i) => ({ sku: bulkSku(i + 1), quantity: quantity(i + 1) }));
}

function priceRows(count: number, price: (n: number) => number): PriceRow[] {
  return Array.from({ length: count }, (_, i) => ({
    sku: bulkSku(i + 1),
    price: price(i + 1),
    sale_price: '',
    cost_price: 1.25,
    vat_rate: 19,
  }));
}

function bulkBodies(h: Harness, path: string): { items: Record<string, unknown>[] }[] {
  return h
    .writes()
    .filter((entry) => entry.path.endsWith(path))
    .map((entry) => entry.body as { items: Record<string, unknown>[] });
}

describe('stock and prices pipelines against the sandbox', () => {
  it('leaves every SKU on the platform equal to the files, and a second run sends no write request', async () => {
    harness = await createHarness({ extraProducts: 250 });
    harness.writeStock(stockRows(250, (n) => (n * 7) % 40));
    harness.writePrices(priceRows(250, (n) => 10 + n / 100));
    const ctx = await harness.context();

    const stock = await runStock(ctx, RUN);
    const prices = await runPrices(ctx, RUN);
    expect(stock).toMatchObject({
      read: 250,
      sent: 250,
      applied: 250,
      rejected: 0,
      notFound: 0,
      writeRequests: 3,
    });
    expect(prices).toMatchObject({ read: 250, sent: 250, applied: 250, rejected: 0, writeRequests: 3 });

    const platform = await harness.platform(ctx);
    for (let n = 1; n <= 250; n++) {
      expect(platform.get(bulkSku(n))).toMatchObject({
        stock: (n * 7) % 40,
        price: 10 + n / 100,
        vatRate: 19,
      });
    }

    harness.sandbox.requestLog.clear();
    const again = await harness.context();
    const stock2 = await runStock(again, RUN);
    const prices2 = await runPrices(again, RUN);
    expect(harness.writes()).toEqual([]);
    expect(stock2).toMatchObject({ read: 250, unchanged: 250, sent: 0, writeRequests: 0 });
    expect(prices2).toMatchObject({ read: 250, unchanged: 250, sent: 0, writeRequests: 0 });
  });

  it('sends exactly the 10 changed rows in one bulk request', async () => {
    harness = await createHarness({ extraProducts: 300 });
    const quantities = new Map(Array.from({ length: 300 }, (_, i) => [i + 1, 5]));
    harness.writeStock([...quantities].map(([n, q]) => ({ sku: bulkSku(n), quantity: q })));
    await runStock(await harness.context(), RUN);

    const changed = [3, 17, 42, 99, 100, 101, 150, 222, 298, 300];
    for (const n of changed) quantities.set(n, 50 + n);
    harness.writeStock([...quantities].map(([n, q]) => ({ sku: bulkSku(n), quantity: q })));
    harness.sandbox.requestLog.clear();
    const summary = await runStock(await harness.context(), RUN);

    const bodies = bulkBodies(harness, '/products/stock/bulk');
    expect(harness.writes()).toHaveLength(1);
    expect(bodies[0]!.items).toEqual(changed.map((n) => ({ sku: bulkSku(n), quantity: 50 + n })));
    expect(summary).toMatchObject({ unchanged: 290, sent: 10, applied: 10 });
  });

  it('records unknown SKUs and bad rows as rejects while every good row applies, and reports a missing SKU once', async () => {
    harness = await createHarness({ extraProducts: 20 });
    harness.writeStock([
      ...stockRows(20, (n) => n),
      { sku: 'NOT-THERE-1', quantity: 4 },
      { sku: 'BAD-QTY', quantity: 'lots' },
      { sku: 'NEGATIVE', quantity: -3 },
    ]);
    const ctx = await harness.context();
    const summary = await runStock(ctx, RUN);
    expect(summary).toMatchObject({ read: 23, applied: 20, notFound: 1, rejected: 2 });

    const platform = await harness.platform(ctx);
    for (let n = 1; n <= 20; n++) expect(platform.get(bulkSku(n))?.stock).toBe(n);
    const rejects = ctx.store.rejects.list({ pipeline: 'stock' });
    expect(rejects.map((r) => r.key).sort()).toEqual(['BAD-QTY', 'NEGATIVE', 'NOT-THERE-1']);
    expect(rejects.find((r) => r.key === 'NOT-THERE-1')).toMatchObject({
      reason: NOT_ON_PLATFORM,
      source: { file: 'stock.csv', line: 22 },
    });
    expect(rejects.find((r) => r.key === 'BAD-QTY')?.source?.line).toBeGreaterThan(1);

    // Not pushed again: the second run makes no write request and does not report it again.
    harness.sandbox.requestLog.clear();
    const second = await runStock(await harness.context(), RUN);
    expect(harness.writes()).toEqual([]);
    expect(second.extra.knownMissing).toBe(1);
    expect(ctx.store.rejects.list({ pipeline: 'stock' }).find((r) => r.key === 'NOT-THERE-1')?.count).toBe(1);

    // It appears on the platform: the catalog clears the mark and the next run pushes exactly it.
    await ctx.client.products.create({ name: 'Now there', sku: 'NOT-THERE-1' });
    const catalog = await runCatalog(await harness.context(), RUN);
    expect(catalog.extra.appeared).toBe(1);
    harness.sandbox.requestLog.clear();
    await runStock(await harness.context(), RUN);
    expect(bulkBodies(harness, '/products/stock/bulk').map((b) => b.items)).toEqual([
      [{ sku: 'NOT-THERE-1', quantity: 4 }],
    ]);
    expect(ctx.store.rejects.list({ pipeline: 'stock' }).map((r) => r.key)).not.toContain('NOT-THERE-1');
  });

  it('keeps a reject open while its row is still bad, and resolves it once the row is fixed or gone', async () => {
    harness = await createHarness({ extraProducts: 5 });
    const good = stockRows(4, () => 3);
    const bad = [
      { sku: bulkSku(1), quantity: 9 }, // duplicate of line 2
      { sku: bulkSku(5), quantity: -1 },
      { sku: 'GONE-1', quantity: 1 }, // not on the platform
    ];
    harness.writeStock([...good, ...bad]);
    const open = async () =>
      (await harness!.context()).store.rejects
        .list({ pipeline: 'stock' })
        .map((r) => `${r.key} ${r.reason}`)
        .sort();
    const first = [
      `${bulkSku(1)} duplicate of line 2 (the first occurrence is used)`,
      'GONE-1 not on the platform',
      `${bulkSku(5)} quantity must be at least 0, got -1`,
    ].sort();
    await runStock(await harness.context(), RUN);
    expect(await open()).toEqual(first);
    // Unchanged file: every reject still stands (the duplicate's SKU is unchanged, not healed).
    await runStock(await harness.context(), RUN);
    expect(await open()).toEqual(first);
    // The bad rows are fixed or removed: their rejects are over; the missing SKU stays reported.
    harness.writeStock([...good, { sku: bulkSku(5), quantity: 1 }, { sku: 'GONE-1', quantity: 1 }]);
    const summary = await runStock(await harness.context(), RUN);
    expect(summary).toMatchObject({ unchanged: 4, applied: 1, notFound: 1, rejected: 0 });
    expect(await open()).toEqual(['GONE-1 not on the platform']);
  });

  it('with archived drops, resolves only the rejects of rows a drop brings again in good shape', async () => {
    harness = await createHarness({ extraProducts: 3 });
    const archiving = () => harness!.context({}, { archive: true });
    const open = async () =>
      (await harness!.context()).store.rejects
        .list({ pipeline: 'stock' })
        .map((r) => r.key)
        .sort();
    harness.writeStock([
      { sku: bulkSku(1), quantity: -1 },
      { sku: bulkSku(2), quantity: -2 },
      { sku: 'GONE-1', quantity: 1 },
    ]);
    await runStock(await archiving(), RUN);
    expect(await open()).toEqual([bulkSku(1), bulkSku(2), 'GONE-1']);
    // No new drop: nothing read, nothing resolved.
    expect(await runStock(await archiving(), RUN)).toMatchObject({ read: 0 });
    expect(await open()).toEqual([bulkSku(1), bulkSku(2), 'GONE-1']);
    // A drop with only the first SKU, fixed: only its reject is over.
    harness.writeStock([{ sku: bulkSku(1), quantity: 1 }]);
    expect(await runStock(await archiving(), RUN)).toMatchObject({ read: 1, applied: 1 });
    expect(await open()).toEqual([bulkSku(2), 'GONE-1']);
  });

  it('reads bulk answers of another shape (updated as text, not_found as a map), and one it cannot read fails only its batch', async () => {
    harness = await createHarness({ extraProducts: 30, sync: { batchSize: 10, concurrency: 1 } });
    harness.writeStock([...stockRows(30, (n) => n + 100), { sku: 'GONE-1', quantity: 4 }]);
    const proxy = await startGateProxy(harness.sandbox.url);
    let answers = 0;
    proxy.rewrite(
      (method, path) => method === 'PATCH' && path === '/products/stock/bulk',
      (json) => {
        answers += 1;
        const { updated, not_found } = (
          json as { data: { updated: number; not_found: (string | { sku: string })[] } }
        ).data;
        // The second batch's answer names what was not found in a shape nobody can read.
        if (answers === 2) return { data: { updated: String(updated), not_found: 'some' } };
        const skus = not_found.map((entry) => (typeof entry === 'string' ? entry : entry.sku));
        return {
          updated: String(updated),
          not_found: Object.fromEntries(skus.map((sku) => [sku, 'unknown'])),
        };
      },
    );
    const ctx = await createSyncContext(
      { ...harness.config, api: { ...harness.config.api, baseUrl: proxy.url } },
      silentLogger(),
    );
    try {
      const run = await runStock(ctx, RUN);
      expect(run).toMatchObject({ sent: 31, applied: 20, notFound: 1, failed: 10 });
      expect(run.error?.code).toBe('api_schema');
      expect(ctx.store.rejects.list({ pipeline: 'stock' }).map((r) => [r.key, r.reason])).toEqual([
        ['GONE-1', NOT_ON_PLATFORM],
      ]);
      // The unconfirmed batch, and only it, is sent again; its answer reads now.
      const again = await runStock(ctx, RUN);
      expect(again).toMatchObject({ sent: 10, applied: 10, failed: 0 });
      expect(again.error).toBeUndefined();
      const platform = await harness.platform(ctx);
      expect(
        stockRows(30, (n) => n + 100).every((row) => platform.get(row.sku)?.stock === row.quantity),
      ).toBe(true);
    } finally {
      await closeSyncContext(ctx);
      await proxy.close();
    }
  });

  it('splits a batch the platform refuses as a whole, applies the rest, and sets variant stock by variant SKU', async () => {
    harness = await createHarness({ seed: 'demo', sync: { batchSize: 50 } });
    const ctx = await harness.context();
    const products = [];
    for await (const product of ctx.client.products.iterate()) products.push(product);
    const variable = products.find((p) => p.type === 'variable' && (p.variants?.length ?? 0) > 0)!;
    const simple = products.filter((p) => p.type !== 'variable').slice(0, 30);
    // A variable product's stock is set per variant: the platform refuses it without variant_sku.
    harness.writeStock([
      ...simple.slice(0, 15).map((p) => ({ sku: p.sku, quantity: 11 })),
      { sku: variable.sku, quantity: 5 },
      ...variable.variants!.map((v) => ({ sku: variable.sku, variant_sku: v.sku!, quantity: 4 })),
      ...simple.slice(15).map((p) => ({ sku: p.sku, quantity: 12 })),
    ]);
    const summary = await runStock(ctx, RUN);
    const variants = variable.variants!.length;
    expect(summary).toMatchObject({ sent: 31 + variants, applied: 30 + variants, rejected: 1 });
    const reject = ctx.store.rejects.list({ pipeline: 'stock' }).find((r) => r.key === variable.sku);
    expect(reject?.reason).toMatch(/variable product/); // the platform's own reason
    expect(reject?.source).toEqual({ file: 'stock.csv', line: 17 });
    const platform = await harness.platform(ctx);
    simple.forEach((p, i) => expect(platform.get(p.sku)?.stock).toBe(i < 15 ? 11 : 12));
    for (const v of variable.variants!) expect(platform.get(`${variable.sku}/${v.sku}`)?.stock).toBe(4);

    // The refused value is not resent while unchanged, even though our variant pushes moved the
    // product's updated_at and the catalog saw it.
    await runCatalog(await harness.context(), RUN);
    harness.sandbox.requestLog.clear();
    await runStock(await harness.context(), RUN);
    expect(harness.writes()).toEqual([]);
  });

  it('splits a request the platform refuses as too large (413) until the oversized item stands alone', async () => {
    // A platform with a small body limit: a few short items fit in one request, the longest valid
    // SKU (100 characters) does not even alone. (The sandbox's 1 MiB cannot be reached with valid SKUs.)
    harness = await createHarness({ extraProducts: 6, bodyLimit: 120 });
    const huge = `HUGE-${'x'.repeat(95)}`;
    harness.writeStock([
      ...stockRows(3, () => 2),
      { sku: huge, quantity: 1 },
      ...stockRows(6, () => 2).slice(3),
    ]);
    const ctx = await harness.context();
    const summary = await runStock(ctx, RUN);
    expect(summary).toMatchObject({ read: 7, sent: 7, applied: 6, rejected: 1, failed: 0 });
    expect(summary.error).toBeUndefined();
    const statuses = harness.writes().map((entry) => entry.status);
    expect(statuses.filter((status) => status === 413).length).toBeGreaterThanOrEqual(2);
    const platform = await harness.platform(ctx);
    for (let n = 1; n <= 6; n++) expect(platform.get(bulkSku(n))?.stock).toBe(2);
    const [reject] = ctx.store.rejects.list({ pipeline: 'stock' });
    expect(reject).toMatchObject({ key: huge, reason: expect.stringMatching(/^refused: .*120 bytes/) });
    // Remembered as refused: not sent again while the ERP value stays the same.
    harness.sandbox.requestLog.clear();
    expect(await runStock(await harness.context(), RUN)).toMatchObject({ sent: 0, rejected: 1 });
    expect(harness.writes()).toEqual([]);
  });

  it('holds back the safety buffer per glob rule and never pushes below 0', async () => {
    harness = await createHarness({
      extraProducts: 3,
      sync: { safetyBuffer: { units: 1, rules: [{ pattern: 'bulk-000002', units: 5 }] } },
    });
    harness.writeStock([
      { sku: bulkSku(1), quantity: 10 },
      { sku: bulkSku(2), quantity: 10 },
      { sku: bulkSku(3), quantity: 0 },
    ]);
    const ctx = await harness.context();
    await runStock(ctx, RUN);
    const platform = await harness.platform(ctx);
    expect([1, 2, 3].map((n) => platform.get(bulkSku(n))?.stock)).toEqual([9, 5, 0]);
  });

  it('subtracts units held by open platform orders (oversell guard hook) before the buffer', async () => {
    harness = await createHarness({ extraProducts: 2 });
    harness.writeStock([
      { sku: bulkSku(1), quantity: 10 },
      { sku: bulkSku(2), quantity: 1 },
    ]);
    const ctx = await harness.context();
    ctx.reservations = { unitsHeld: (keys) => new Map(keys.map((key) => [key, 3])) };
    await runStock(ctx, RUN);
    const platform = await harness.platform(ctx);
    expect([platform.get(bulkSku(1))?.stock, platform.get(bulkSku(2))?.stock]).toEqual([7, 0]);
  });

  it('with --dry-run sends and records nothing but shows what would be sent; --full resends everything', async () => {
    harness = await createHarness({ extraProducts: 30 });
    harness.writeStock(stockRows(30, () => 8));
    const dry = await runStock(await harness.context(), { full: false, dryRun: true });
    expect(harness.writes()).toEqual([]);
    expect(dry).toMatchObject({ sent: 30, applied: 0, writeRequests: 0 });
    expect(dry.preview?.[0]).toEqual({ sku: bulkSku(1), quantity: 8 });

    const ctx = await harness.context();
    await runStock(ctx, RUN);
    expect(ctx.store.fingerprints.count('stock').total).toBe(30);
    harness.sandbox.requestLog.clear();
    const full = await runStock(await harness.context(), { full: true, dryRun: false });
    expect(full).toMatchObject({ sent: 30, applied: 30, unchanged: 0 });
    expect(harness.writes()).toHaveLength(1);
  });

  it('stops at once on a revoked key with a clear fatal error and no retry storm', async () => {
    harness = await createHarness({ extraProducts: 500 });
    harness.writeStock(stockRows(500, () => 1));
    const ctx = await harness.context();
    const revoked = await harness.context();
    // Same store and files, but the revoked key.
    const { createApiClient } = await import('../../../src/api/createApiClient.js');
    revoked.client = createApiClient({ baseUrl: harness.sandbox.url, apiKey: harness.sandbox.keys.revoked });
    harness.sandbox.requestLog.clear();
    const summary = await runStock(revoked, RUN);
    await revoked.client.close();
    expect(summary.error?.kind).toBe('fatal');
    expect(summary.error?.code).toBe('api_auth');
    // At most the requests already in flight (concurrency 4), no retries of any of them.
    const bulk = harness.sandbox.requestLog.entries().filter((e) => e.path.endsWith('/stock/bulk'));
    expect(bulk.length).toBeGreaterThanOrEqual(1);
    expect(bulk.length).toBeLessThanOrEqual(4);
    expect(bulk.every((e) => e.status === 401)).toBe(true);
    expect(ctx.store.fingerprints.count('stock').total).toBe(0);
  });
});

describe('ending a promotion (an empty sale_price)', () => {
  it('clears the sale price on the platform once, echoes nothing back, and leaves it alone when the column is absent', async () => {
    harness = await createHarness({ seed: 'demo' });
    const h = harness;
    const variant = { sku: 'DEMO-0006', variant_sku: 'DEMO-0006-S' };
    h.writePrices([
      { sku: 'DEMO-0001', price: 50, sale_price: 40 },
      { ...variant, price: 30, sale_price: 25 },
    ]);
    const ctx = await h.context();
    expect(await runPrices(ctx, RUN)).toMatchObject({ applied: 2, rejected: 0 });
    let platform = await h.platform(ctx);
    expect(platform.get('DEMO-0001')).toMatchObject({ price: 50, salePrice: 40 });
    expect(platform.get('DEMO-0006/DEMO-0006-S')).toMatchObject({ price: 30, salePrice: 25 });

    // The ERP ends the promotion: the cells are emptied.
    h.sandbox.requestLog.clear();
    h.writePrices([
      { sku: 'DEMO-0001', price: 50, sale_price: '' },
      { ...variant, price: 30, sale_price: '' },
    ]);
    expect(await runPrices(ctx, RUN)).toMatchObject({ sent: 2, applied: 2, rejected: 0, writeRequests: 1 });
    expect(bulkBodies(h, '/products/prices/bulk').flatMap((b) => b.items)).toEqual([
      { sku: 'DEMO-0001', price: 50, sale_price: null },
      { sku: 'DEMO-0006', variant_sku: 'DEMO-0006-S', price: 30, sale_price: null },
    ]);
    platform = await h.platform(ctx);
    expect(platform.get('DEMO-0001')).toMatchObject({ price: 50, salePrice: null });
    expect(platform.get('DEMO-0006/DEMO-0006-S')).toMatchObject({ price: 30, salePrice: null });

    // A rerun sends nothing; the catalog sees our own clear (null = null), not a platform change.
    h.sandbox.requestLog.clear();
    expect(await runPrices(await h.context(), RUN)).toMatchObject({ sent: 0, writeRequests: 0 });
    const catalog = await runCatalog(await h.context(), RUN);
    expect(catalog.extra).toMatchObject({ changedOnPlatform: 0 });
    expect(await runPrices(await h.context(), RUN)).toMatchObject({ sent: 0, writeRequests: 0 });
    expect(h.writes()).toEqual([]);

    // A file without the sale_price column says nothing about it: a new promotion stays.
    h.writePrices([{ sku: 'DEMO-0001', price: 50, sale_price: 35 }]);
    expect(await runPrices(await h.context(), RUN)).toMatchObject({ applied: 1 });
    h.sandbox.requestLog.clear();
    writeCsv(join(h.dir, 'prices.csv'), ['sku', 'price'], [{ sku: 'DEMO-0001', price: 51 }]);
    expect(await runPrices(await h.context(), RUN)).toMatchObject({ applied: 1 });
    expect(bulkBodies(h, '/products/prices/bulk').flatMap((b) => b.items)).toEqual([
      { sku: 'DEMO-0001', price: 51 },
    ]);
    expect((await h.platform(ctx)).get('DEMO-0001')).toMatchObject({ price: 51, salePrice: 35 });
  });
});
