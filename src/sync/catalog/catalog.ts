import type { ApiProduct } from '../../api/schemas.js';
import { ErpSyncError } from '../../domain/errors.js';
import { itemKeyString, type Reject } from '../../domain/records.js';
import type { FingerprintPipeline, ProductLink } from '../../store/index.js';
import { batches } from '../frame/batches.js';
import { alreadySeen, CursorTracker, scanFrom } from './catalogCursor.js';
import { isInFlightFingerprint, isRefusedFingerprint, type PlatformValues } from '../push/fingerprint.js';
import { inStep } from '../push/inStep.js';
import { productFieldsChangedOnPlatform } from './productEcho.js';
import { runInFrame, type PipelineRun } from '../frame/runInFrame.js';
import type { RunOptions, RunSummary, SyncContext } from '../frame/types.js';

export const CATALOG_CURSOR = 'catalog.products';

/** One product or variant as the platform reports it, in the terms the fingerprints use. */
export interface PlatformItem extends PlatformValues {
  key: string;
  link: ProductLink;
}

export function platformItems(product: ApiProduct): PlatformItem[] {
  const base = { productId: product.id, platformUpdatedAt: product.updated_at };
  const items: PlatformItem[] = [
    {
      key: product.sku,
      link: { ...base, sku: product.sku, variantSku: null, variantId: null },
      // A variable product's own stock is the sum of its variants: never pushed, never compared.
      stock: product.type === 'variable' ? undefined : product.stock_quantity,
      prices: {
        price: product.price,
        salePrice: product.sale_price,
        costPrice: product.cost_price,
        vatRate: product.vat_rate,
      },
    },
  ];
  for (const variant of product.variants ?? []) {
    if (!variant.sku) continue;
    items.push({
      key: itemKeyString({ sku: product.sku, variantSku: variant.sku }),
      link: { ...base, sku: product.sku, variantSku: variant.sku, variantId: variant.id },
      stock: variant.stock_quantity,
      prices: {
        price: variant.price,
        salePrice: variant.sale_price,
        costPrice: product.cost_price,
        vatRate: product.vat_rate,
      },
    });
  }
  return items;
}

/**
 * Platform -> store. Reads products changed since the cursor (less an overlap window), keeps the
 * product links, and compares what the platform holds with our acknowledged fingerprints:
 * equal is the echo of our own push (nothing to do); different is a change made on the platform,
 * so the fingerprint is dropped and the next scan re-asserts the ERP value. A SKU we had marked
 * "not on the platform" that shows up is cleared and pushed by the next scan.
 */
export function runCatalog(ctx: SyncContext, options: RunOptions): Promise<RunSummary> {
  return runInFrame('catalog', ctx, options, scanCatalog);
}

async function scanCatalog(run: PipelineRun): Promise<void> {
  const { ctx, options, summary } = run;
  const { store, config } = ctx;
  const scanStartedAt = Date.now();
  summary.extra = { links: 0, changedOnPlatform: 0, appeared: 0 };
  const previous = store.cursors.get(CATALOG_CURSOR);
  const from = options.full ? undefined : scanFrom(previous, config.sync.catalog.overlapSeconds);
  const tracker = new CursorTracker();
  // One record the schema cannot read is a reject naming it and the field; the others go on.
  const unreadable: Reject[] = [];
  const products = ctx.client.products.iterate(from ? { updated_after: from } : {}, ({ record, error }) => {
    const raw = (record ?? {}) as { id?: unknown; sku?: unknown; updated_at?: unknown };
    if (typeof raw.updated_at === 'string') tracker.see(raw.updated_at);
    unreadable.push({
      pipeline: 'catalog',
      key: typeof raw.sku === 'string' && raw.sku ? raw.sku : `product ${String(raw.id ?? '?')}`,
      reason: `the platform's product record cannot be read: ${error.message}`,
    });
  });
  for await (const page of batches(products, config.sync.catalog.perPage)) {
    if (options.signal?.aborted)
      throw new ErpSyncError(
        'internal',
        'interrupted (SIGINT/SIGTERM) before the scan completed; the cursor stays',
      );
    summary.read += page.length;
    for (const product of page) tracker.see(product.updated_at);
    handlePage(ctx, options, page, summary, previous);
    if (!options.dryRun && store.rejects.countOpen('catalog') > 0)
      store.rejects.resolveMany(
        'catalog',
        page.map((product) => product.sku),
      );
    run.progress();
  }
  if (unreadable.length) {
    summary.read += unreadable.length;
    summary.rejected += unreadable.length;
    if (!options.dryRun) store.rejects.recordMany(unreadable);
    ctx.logger.warn(
      { count: unreadable.length, first: unreadable.slice(0, 3).map((r) => r.reason) },
      'platform product records that cannot be read: left out of the catalog',
    );
  }
  // Acknowledge before forgetting: the cursor moves only after every page was handled.
  const next = tracker.next(previous, scanStartedAt);
  if (!options.dryRun && next && next !== previous) store.cursors.set(CATALOG_CURSOR, next);
}

function handlePage(
  ctx: SyncContext,
  options: RunOptions,
  page: ApiProduct[],
  summary: RunSummary,
  previousCursor: string | null,
): void {
  const { store } = ctx;
  const links = store.productLinks.getMany(page.map((product) => ({ sku: product.sku })));
  // De-duplicate by (id, updated_at): the overlap window re-reads products already handled.
  const fresh = options.full
    ? page
    : page.filter((product) => !alreadySeen(links.get(product.sku), product, previousCursor));
  summary.unchanged += page.length - fresh.length;
  if (fresh.length === 0) return;

  const items = fresh.flatMap(platformItems);
  const keys = items.map((item) => item.key);
  const appeared: Record<FingerprintPipeline, string[]> = { stock: [], prices: [] };
  const changed: Record<FingerprintPipeline, string[]> = { stock: [], prices: [] };
  const fingerprints = {
    stock: store.fingerprints.getMany('stock', keys),
    prices: store.fingerprints.getMany('prices', keys),
  };
  for (const item of items) {
    for (const pipeline of ['stock', 'prices'] as const) {
      const fingerprint = fingerprints[pipeline].get(item.key);
      if (!fingerprint) continue;
      if (fingerprint.missing) appeared[pipeline].push(item.key);
      // A refused value waits for a new ERP value or --full: our own pushes of the product's other
      // items move its updated_at too, and retrying on every move would loop.
      // An in-flight value is no acknowledged value to compare with: the next scan sends it anyway.
      else if (
        fingerprint.hash === '' ||
        isRefusedFingerprint(fingerprint.hash) ||
        isInFlightFingerprint(fingerprint.hash)
      )
        continue;
      else if (!inStep(pipeline, fingerprint.hash, item)) changed[pipeline].push(item.key);
    }
  }
  // Product master data written by the products pipeline: echo, or changed on the platform.
  const productFields = productFieldsChangedOnPlatform(store, fresh);
  // A dry run stores nothing, so it applies nothing (the counts below say what it would do).
  if (!options.dryRun) summary.applied += fresh.length;
  summary.extra.links! += items.length;
  summary.extra.changedOnPlatform! += productFields.length;
  summary.extra.appeared! += appeared.stock.length + appeared.prices.length;
  summary.extra.changedOnPlatform! += changed.stock.length + changed.prices.length;
  if (options.dryRun) return;
  store.transaction(() => {
    store.productLinks.upsertMany(items.map((item) => item.link));
    for (const pipeline of ['stock', 'prices'] as const) {
      if (appeared[pipeline].length) {
        store.fingerprints.clearMissing(pipeline, appeared[pipeline]);
        store.rejects.resolveMany(pipeline, appeared[pipeline]);
      }
      if (changed[pipeline].length) store.fingerprints.delete(pipeline, changed[pipeline]);
    }
    if (productFields.length) store.products.fingerprints.update(productFields);
  });
}
