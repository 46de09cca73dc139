import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/logger.js';
import { runCatalog } from '../../../src/sync/catalog/catalog.js';
import { closeSyncContext, createSyncContext } from '../../../src/sync/context.js';
import { runProducts } from '../../../src/sync/catalog/products.js';
import { runStock } from '../../../src/sync/push/stock.js';
import type { SyncContext } from '../../../src/sync/frame/types.js';
import { startGateProxy } from '../../support/gateProxy.js';
import { createProductsWorld, type ProductRow, type ProductsWorld } from '../../support/productsWorld.js';

const RUN = { full: false, dryRun: false };
let world: ProductsWorld | undefined;

afterEach(async () => {
  await world?.close();
  world = undefined;
});

const sku = (n: number): string => `NEW-${String(n).padStart(4, '0')}`;

function rows(count: number, extra: (n: number) => ProductRow = () => ({})): ProductRow[] {
  return Array.from({ length: count }, (_, i) => ({
    sku: sku(i + 1),
    name: `New item ${i + 1}`,
    status: 'active',
    price: 10 + i,
    vat_rate: 19,
    weight_grams: 100 + i,
    short_description: `Short ${i + 1}`,
    long_description: `Long text ${i + 1}`,
    highlights: 'Fast|Robust',
    ...extra(i + 1),
  }));
}

async function firstBrandId(ctx: SyncContext): Promise<number> {
  for await (const product of ctx.client.products.iterate()) {
    const id = (product as { brand_id?: unknown }).brand_id;
    if (typeof id === 'number') return id;
  }
  throw new Error('the demo company has no product with a brand');
}

async function firstCategoryId(ctx: SyncContext): Promise<number> {
  const page = await ctx.client.categories.list();
  return page.data[0]!.id;
}

describe('products pipeline against the sandbox', () => {
  it('is off unless products.enabled: nothing read, nothing sent', async () => {
    world = await createProductsWorld();
    world.writeProducts(rows(3));
    const ctx = await world.context({ enabled: false });
    const summary = await runProducts(ctx, RUN);
    expect(summary).toMatchObject({ read: 0, sent: 0, requests: 0, extra: { disabled: 1 } });
  });

  it('creates each new SKU once with every field, links it, and a second run sends nothing', async () => {
    world = await createProductsWorld();
    world.writeProducts(rows(30));
    const ctx = await world.context();
    const first = await runProducts(ctx, RUN);
    expect(first).toMatchObject({ read: 30, sent: 30, applied: 30, rejected: 0, failed: 0 });
    expect(first.extra.created).toBe(30);
    const posts = world.productWrites().filter((entry) => entry.method === 'POST');
    expect(posts).toHaveLength(30);
    const platform = await world.platformBySku(ctx, 'NEW-');
    expect(platform.size).toBe(30);
    const one = (await ctx.client.products.get(platform.get(sku(7))![0]!.id as number)) as Record<
      string,
      unknown
    >;
    expect(one).toMatchObject({
      name: 'New item 7',
      status: 'active',
      price: 16,
      weight_grams: 106,
      long_description: 'Long text 7',
      highlights: ['Fast', 'Robust'],
    });
    expect(ctx.store.productLinks.get(sku(7))?.productId).toBe(one.id);

    world.harness.sandbox.requestLog.clear();
    const second = await runProducts(ctx, RUN);
    expect(second).toMatchObject({ read: 30, sent: 0, unchanged: 30, writeRequests: 0 });
    expect(world.productWrites()).toEqual([]);
  });

  it('patches only the fields that changed, and never a platform-owned field', async () => {
    world = await createProductsWorld();
    world.writeProducts(rows(5));
    const owned = { platformOwned: ['long_description' as const, 'meta_title' as const] };
    const ctx = await world.context(owned);
    await runProducts(ctx, RUN);
    const created = world.productWrites().map((entry) => entry.body as Record<string, unknown>);
    expect(created).toHaveLength(5);
    for (const body of created) {
      expect(body).not.toHaveProperty('long_description');
      expect(body).toHaveProperty('short_description');
    }

    world.harness.sandbox.requestLog.clear();
    world.writeProducts(
      rows(5, (n) =>
        n === 2
          ? { name: 'Renamed two', long_description: 'ERP text', meta_title: 'SEO' }
          : n === 4
            ? { price: 99.5, weight_grams: 777 }
            : {},
      ),
    );
    const second = await runProducts(await world.context(owned), RUN);
    expect(second).toMatchObject({ read: 5, sent: 2, applied: 2, unchanged: 3 });
    const patches = world.productWrites();
    expect(patches.map((entry) => entry.method)).toEqual(['PATCH', 'PATCH']);
    const bodies = patches.map((entry) => entry.body as Record<string, unknown>);
    expect(bodies).toContainEqual({ name: 'Renamed two' });
    expect(bodies).toContainEqual({ price: 99.5, weight_grams: 777 });
  });

  it('rejects bad rows with file:line and reason, and sends the rest', async () => {
    world = await createProductsWorld();
    const ctx = await world.context({ categories: { Garden: await firstCategoryId(await world.context()) } });
    world.writeProducts([
      ...rows(2),
      { sku: 'BAD-NAME', name: 'x'.repeat(192), price: 1 },
      { sku: 'BAD-VAT', name: 'Vat', vat_rate: 150 },
      { sku: 'BAD-WEIGHT', name: 'Weight', weight_grams: 1.5 },
      { sku: 'BAD-CAT', name: 'Cat', category: 'Nowhere' },
      { sku: 'BAD-CATID', name: 'Cat id', category_id: 999999 },
      { sku: 'GOOD-CAT', name: 'Cat ok', category: 'garden' },
    ]);
    const summary = await runProducts(ctx, RUN);
    expect(summary).toMatchObject({ read: 8, applied: 3, rejected: 5 });
    const rejects = new Map(ctx.store.rejects.list({ pipeline: 'products' }).map((r) => [r.key, r]));
    expect([...rejects.keys()].sort()).toEqual(['BAD-CAT', 'BAD-CATID', 'BAD-NAME', 'BAD-VAT', 'BAD-WEIGHT']);
    expect(rejects.get('BAD-NAME')!.reason).toMatch(/name is longer than 191/);
    expect(rejects.get('BAD-VAT')!.reason).toMatch(/vat_rate must be between 0 and 100/);
    expect(rejects.get('BAD-WEIGHT')!.reason).toMatch(/weight_grams must be a whole number/);
    expect(rejects.get('BAD-CAT')!.reason).toMatch(/category "Nowhere" is not in products.categories/);
    expect(rejects.get('BAD-CATID')!.reason).toMatch(/category_id 999999 does not exist/);
    expect(rejects.get('BAD-VAT')).toMatchObject({ source: { file: 'products.csv', line: 5 } });
    const platform = await world.platformBySku(ctx, 'GOOD-CAT');
    expect(platform.get('GOOD-CAT')![0]).toMatchObject({ category_id: await firstCategoryId(ctx) });
    expect((await world.platformBySku(ctx, 'BAD-')).size).toBe(0);
  });

  it('creates every SKU exactly once when POST /products answers are dropped', async () => {
    world = await createProductsWorld();
    world.writeProducts(rows(40));
    world.harness.sandbox.setFaults('drop_rate=0.5,only=POST /products');
    let runs = 0;
    let found = 0;
    let summary;
    do {
      summary = await runProducts(await world.context({}, { concurrency: 4 }), RUN);
      found += summary.extra.foundExisting ?? 0;
      runs += 1;
    } while ((summary.failed > 0 || summary.error) && runs < 20);
    // Lost answers were reconciled by searching the SKU, not by a second POST.
    expect(found).toBeGreaterThan(0);
    world.harness.sandbox.setFaults(null);
    expect(summary.error).toBeUndefined();
    const ctx = await world.context();
    const platform = await world.platformBySku(ctx, 'NEW-');
    expect(platform.size).toBe(40);
    for (const products of platform.values()) expect(products).toHaveLength(1);
    const posts = world.productWrites().filter((entry) => entry.method === 'POST');
    // Answers were lost (so some SKUs were searched and found, not created twice).
    expect(posts.length).toBeGreaterThanOrEqual(40);
    expect(ctx.store.products.creates.countOpen()).toBe(0);
    world.harness.sandbox.requestLog.clear();
    expect(await runProducts(ctx, RUN)).toMatchObject({ sent: 0, unchanged: 40 });
    expect(world.productWrites()).toEqual([]);
  });

  it('finds a product whose POST answer cannot be read by its SKU (created once), and creates the others', async () => {
    world = await createProductsWorld();
    world.writeProducts(rows(3));
    const proxy = await startGateProxy(world.harness.sandbox.url);
    // Another platform's answer to one create: the id and SKU only.
    proxy.rewrite(
      (method, path) => method === 'POST' && path === '/products',
      (json) => {
        const data = (json as { data: { id: number; sku: string } }).data;
        return data.sku === sku(2) ? { data: { id: data.id, sku: data.sku } } : json;
      },
    );
    const { harness } = world;
    const ctx = await createSyncContext(
      {
        ...harness.config,
        api: { ...harness.config.api, baseUrl: proxy.url },
        products: { ...harness.config.products, enabled: true },
      },
      silentLogger(),
    );
    try {
      const run = await runProducts(ctx, RUN);
      expect(run.error).toBeUndefined();
      expect(run).toMatchObject({ applied: 3, failed: 0, extra: { created: 2, foundExisting: 1 } });
      expect(world.productWrites().filter((entry) => entry.method === 'POST')).toHaveLength(3);
      const platform = await world.platformBySku(ctx, 'NEW-');
      expect([...platform.values()].map((products) => products.length)).toEqual([1, 1, 1]);
      expect(ctx.store.productLinks.get(sku(2))).toBeDefined();
    } finally {
      await closeSyncContext(ctx);
      await proxy.close();
    }
  });

  it('sends a PATCH again next run when its answer was lost, even if the ERP value went back', async () => {
    world = await createProductsWorld();
    world.writeProducts(rows(1));
    await runProducts(await world.context(), RUN);
    world.writeProducts(rows(1, () => ({ name: 'Changed' })));
    world.harness.sandbox.setFaults('drop_rate=1,only=PATCH /products');
    const lost = await runProducts(await world.context(), RUN);
    expect(lost.failed).toBe(1);
    world.harness.sandbox.setFaults(null);
    // The ERP goes back to the old name: the platform may hold "Changed", so it is sent.
    world.writeProducts(rows(1));
    world.harness.sandbox.requestLog.clear();
    const healed = await runProducts(await world.context(), RUN);
    expect(healed).toMatchObject({ sent: 1, applied: 1 });
    expect(world.productWrites().map((entry) => entry.body)).toEqual([{ name: 'New item 1' }]);
    const ctx = await world.context();
    expect((await world.platformBySku(ctx, 'NEW-')).get(sku(1))![0]).toMatchObject({ name: 'New item 1' });
  });

  it('sees its own writes as echo in the catalog, and re-asserts a field changed on the platform', async () => {
    world = await createProductsWorld();
    world.writeProducts(rows(10));
    const ctx = await world.context();
    await runProducts(ctx, RUN);
    world.writeProducts(rows(10, (n) => (n === 3 ? { name: 'Three v2' } : {})));
    await runProducts(ctx, RUN);
    const catalog = await runCatalog(ctx, RUN);
    expect(catalog.extra.changedOnPlatform).toBe(0);
    world.harness.sandbox.requestLog.clear();
    expect(await runProducts(ctx, RUN)).toMatchObject({ sent: 0, unchanged: 10 });

    const id = ctx.store.productLinks.get(sku(5))!.productId;
    await ctx.client.products.update(id, { name: 'Edited by hand', short_description: 'Short 5' });
    const seen = await runCatalog(ctx, RUN);
    expect(seen.extra.changedOnPlatform).toBe(1);
    world.harness.sandbox.requestLog.clear();
    const again = await runProducts(ctx, RUN);
    expect(again).toMatchObject({ sent: 1, applied: 1 });
    expect(world.productWrites().map((entry) => entry.body)).toEqual([{ name: 'New item 5' }]);
  });

  it('makes stock waiting for a new SKU flow once the product is created', async () => {
    world = await createProductsWorld();
    world.harness.writeStock([{ sku: sku(1), quantity: 7 }]);
    const ctx = await world.context();
    expect(await runStock(ctx, RUN)).toMatchObject({ notFound: 1 });
    world.writeProducts(rows(1));
    await runProducts(ctx, RUN);
    expect(await runStock(ctx, RUN)).toMatchObject({ applied: 1, notFound: 0 });
    expect((await world.harness.platform(ctx)).get(sku(1))?.stock).toBe(7);
  });

  it('creates a variable product with its variants from a JSON file, and links every variant', async () => {
    world = await createProductsWorld();
    writeFileSync(
      join(world.harness.dir, 'products.json'),
      JSON.stringify([
        {
          cod: 'TEE-1',
          denumire: 'T-shirt',
          tip: 'variable',
          marca: 'acme',
          highlights: ['Cotton', 'Printed'],
          length: 700,
          variants: [
            { sku: 'TEE-1-S', name: 'T-shirt S', price: 50, stock_quantity: 3 },
            { sku: 'TEE-1-M', name: 'T-shirt M', price: 52 },
          ],
        },
      ]),
    );
    const brand = await firstBrandId(await world.context());
    const ctx = await world.context({ brands: { ACME: brand } });
    expect(await runProducts(ctx, RUN)).toMatchObject({ read: 1, applied: 1, rejected: 0 });
    const body = world.productWrites()[0]!.body as Record<string, unknown>;
    expect(body).toMatchObject({
      type: 'variable',
      brand_id: brand,
      length_mm: 700,
      highlights: ['Cotton', 'Printed'],
    });
    const product = (await world.platformBySku(ctx, 'TEE-1')).get('TEE-1')![0]!;
    expect(product).toMatchObject({ type: 'variable', brand_id: brand });
    expect(ctx.store.productLinks.get('TEE-1', 'TEE-1-M')?.productId).toBe(product.id);
    expect(ctx.store.productLinks.get('TEE-1', 'TEE-1-S')?.variantId).toEqual(expect.any(Number));
  });

  it('--dry-run lists creates and updates field by field and writes nothing', async () => {
    world = await createProductsWorld();
    world.writeProducts(rows(2));
    const ctx = await world.context();
    await runProducts(ctx, RUN);
    world.writeProducts([...rows(2, (n) => (n === 1 ? { price: 55 } : {})), ...rows(3).slice(2)]);
    world.harness.sandbox.requestLog.clear();
    const dry = await runProducts(ctx, { full: false, dryRun: true });
    expect(dry).toMatchObject({ sent: 2, writeRequests: 0 });
    expect(dry.preview).toContainEqual({
      action: 'update',
      sku: sku(1),
      product_id: ctx.store.productLinks.get(sku(1))!.productId,
      fields: { price: 55 },
    });
    expect(dry.preview).toContainEqual(
      expect.objectContaining({
        action: 'create',
        sku: sku(3),
        fields: expect.objectContaining({ name: 'New item 3' }),
      }),
    );
    expect(world.productWrites()).toEqual([]);
    expect(ctx.store.productLinks.get(sku(3))).toBeUndefined();
  });
});
