import { join } from 'node:path';
import type { Config } from '../../src/config.js';
import { silentLogger } from '../../src/logger.js';
import type { RequestLogEntry } from '../../src/sandbox/index.js';
import { closeSyncContext, createSyncContext } from '../../src/sync/context.js';
import type { SyncContext } from '../../src/sync/frame/types.js';
import { createHarness, writeCsv, type Harness } from './syncHarness.js';

export const PRODUCT_COLUMNS = [
  'sku',
  'name',
  'status',
  'price',
  'vat_rate',
  'ean',
  'brand',
  'category',
  'category_id',
  'weight_grams',
  'length_mm',
  'short_description',
  'long_description',
  'highlights',
  'meta_title',
];

export type ProductRow = Partial<Record<(typeof PRODUCT_COLUMNS)[number], string | number>>;

export interface ProductsWorld {
  harness: Harness;
  /** A context (as a new process would build it) with the given products settings. */
  context(products?: Partial<Config['products']>, sync?: Partial<Config['sync']>): Promise<SyncContext>;
  writeProducts(rows: ProductRow[]): void;
  /** POST /products and PATCH /products/{id} requests since the last clear. */
  productWrites(): RequestLogEntry[];
  /** Platform products whose SKU starts with `prefix`, per SKU (several: a duplicate). */
  platformBySku(ctx: SyncContext, prefix: string): Promise<Map<string, Record<string, unknown>[]>>;
  close(): Promise<void>;
}

export async function createProductsWorld(seed: 'demo' | 'empty' = 'demo'): Promise<ProductsWorld> {
  const harness = await createHarness({ seed });
  const contexts: SyncContext[] = [];
  return {
    harness,
    async context(products = {}, sync = {}) {
      const ctx = await createSyncContext(
        {
          ...harness.config,
          sync: { ...harness.config.sync, ...sync },
          products: { ...harness.config.products, enabled: true, ...products },
        },
        silentLogger(),
      );
      contexts.push(ctx);
      return ctx;
    },
    writeProducts(rows) {
      writeCsv(join(harness.dir, 'products.csv'), PRODUCT_COLUMNS, rows);
    },
    productWrites() {
      return harness.writes().filter((entry) => /\/products(\/\d+)?$/.test(entry.path.split('?')[0]!));
    },
    async platformBySku(ctx, prefix) {
      const out = new Map<string, Record<string, unknown>[]>();
      for await (const product of ctx.client.products.iterate({ search: prefix })) {
        if (!product.sku.startsWith(prefix)) continue;
        out.set(product.sku, [...(out.get(product.sku) ?? []), product]);
      }
      return out;
    },
    async close() {
      for (const ctx of contexts) await closeSyncContext(ctx).catch(() => undefined);
      await harness.close();
    },
  };
}
