import { createHash } from 'node:crypto';
import {
  ApiError,
  ApiValidationError,
  ClientValidationError,
  ConflictError,
  NotFoundError,
  SchemaError,
} from '../../api/errors.js';
import type { ProductCreateInput } from '../../api/inputs.js';
import type { ApiProduct } from '../../api/schemas.js';
import { describeError, ErpSyncError } from '../../domain/errors.js';
import { productRecordReasons } from '../../domain/rules.js';
import {
  describeSource,
  itemKeyString,
  type ProductRecord,
  type Reject,
  type RecordSource,
} from '../../domain/records.js';
import type { FieldFingerprints } from '../../store/ProductFingerprintRepository.js';
import { batches } from '../frame/batches.js';
import { createPool, drainAfter } from '../frame/pool.js';
import {
  changedFields,
  createBody,
  fieldFingerprint,
  fingerprintsOf,
  productWire,
  type ProductWire,
} from './productFields.js';
import { findProductBySku, linksOf, platformCategoryIds } from './productLookups.js';
import { classifyFailure, stopsTheRun } from '../frame/classifyFailure.js';
import { runInFrame, type PipelineRun } from '../frame/runInFrame.js';
import { failUnconfirmed } from '../frame/summary.js';
import type { RunFailure, RunOptions, RunSummary, SyncContext } from '../frame/types.js';

const PIPELINE = 'products';
const PREVIEW_ITEMS = 20;
/** POSTs of one SKU per run at most; a create whose outcome stays unknown is searched next run. */
const MAX_CREATE_ATTEMPTS = 3;

/**
 * ERP product master data -> platform (optional: `products.enabled`). A SKU the platform lacks is
 * created once (intent stored before the POST, searched by SKU before any second POST); a SKU that
 * exists is patched with the fields changed since the last acknowledged value, never a
 * platform-owned one.
 */
export function runProducts(ctx: SyncContext, options: RunOptions): Promise<RunSummary> {
  return runInFrame(PIPELINE, ctx, options, async (run) => {
    // Off by default: the run is recorded (and its lease taken) like any other, and does nothing.
    if (ctx.config.products.enabled) await syncProducts(run);
    else run.summary.extra = { disabled: 1 };
  });
}

interface GoodRow {
  record: ProductRecord;
  wire: ProductWire;
  source: RecordSource;
}

async function syncProducts(run: PipelineRun): Promise<void> {
  const { ctx, options, summary } = run;
  const { store, config } = ctx;
  summary.extra = { created: 0, foundExisting: 0, updated: 0, fieldsSent: 0, batches: 0 };
  if (options.dryRun) summary.preview = [];
  const pool = createPool(config.sync.concurrency);
  const seen = new Set<string>();
  let categoryIds: Set<number> | null = null;
  let firstError: RunFailure | undefined;
  const fail = (error: unknown): void => {
    if (stopsTheRun(error)) throw error;
    summary.failed += 1;
    firstError ??= classifyFailure(error);
  };
  const read = ctx.erp.products();
  await drainAfter(pool, async () => {
    for await (const chunk of batches(read, config.sync.batchSize)) {
      if (options.signal?.aborted) break;
      const rejects: Reject[] = [];
      const good: GoodRow[] = [];
      if (categoryIds === null && chunk.some((row) => row.ok && row.record.categoryId !== undefined))
        categoryIds = await platformCategoryIds(ctx);
      for (const row of chunk) {
        summary.read += 1;
        if (!row.ok) {
          rejects.push({ pipeline: PIPELINE, key: row.key, reason: row.reason, source: row.source });
          continue;
        }
        const { record, source } = row;
        const reject = (reason: string) =>
          rejects.push({ pipeline: PIPELINE, key: itemKeyString(record), reason, source });
        const reasons = productRecordReasons(record);
        if (reasons.length) reject(reasons.join('; '));
        else if (seen.has(record.sku)) reject('the SKU is in the ERP read twice; the first row was used');
        else {
          seen.add(record.sku);
          const wire = productWire(record, config.products, { categoryIds });
          if ('reason' in wire) reject(wire.reason);
          else good.push({ record, wire: wire.wire, source });
        }
      }
      summary.rejected += rejects.length;
      if (rejects.length && !options.dryRun) store.rejects.recordMany(rejects);
      await handleChunk(run, good, (task) => pool.submit(() => task().catch(fail)));
      run.progress();
    }
  });
  if (failUnconfirmed(summary, firstError, 'product(s)')) return;
  if (!options.dryRun && !options.signal?.aborted && read.receipt) await ctx.erp.commit(read.receipt);
}

async function handleChunk(
  run: PipelineRun,
  rows: GoodRow[],
  submit: (task: () => Promise<void>) => Promise<void>,
): Promise<void> {
  const { ctx, options, summary } = run;
  const { store, config } = ctx;
  const skus = rows.map((row) => row.record.sku);
  const links = store.productLinks.getMany(skus.map((sku) => ({ sku })));
  const acked = store.products.fingerprints.getMany(skus);
  const creates = store.products.creates.getMany(skus);
  const settled: GoodRow[] = [];
  for (const row of rows) {
    const { sku } = row.record;
    const link = links.get(sku);
    if (link) {
      const changes = config.products.update
        ? changedFields(row.wire, options.full ? undefined : acked.get(sku))
        : {};
      if (Object.keys(changes).length === 0) {
        summary.unchanged += 1;
        settled.push(row);
        continue;
      }
      summary.sent += 1;
      summary.extra.batches! += 1;
      if (options.dryRun)
        preview(summary, { action: 'update', sku, product_id: link.productId, fields: changes });
      else await submit(() => patchProduct(run, row, link.productId, changes));
      continue;
    }
    if (!config.products.create) {
      summary.notFound += 1;
      if (!options.dryRun)
        store.rejects.record({
          pipeline: PIPELINE,
          key: sku,
          reason: 'not on the platform (products.create is off)',
          source: row.source,
        });
      continue;
    }
    const body = createBody(row.record, row.wire);
    const hash = contentHash(body);
    const earlier = creates.get(sku);
    if (earlier?.state === 'rejected' && earlier.contentHash === hash && !options.full) {
      // Refused as it is: not sent again until the ERP row changes (the reject stays open).
      summary.rejected += 1;
      continue;
    }
    summary.sent += 1;
    summary.extra.batches! += 1;
    if (options.dryRun) preview(summary, { action: 'create', sku, fields: body });
    else await submit(() => createProduct(run, row, body, hash));
  }
  // Unchanged rows end their earlier rejects (a fixed row); most runs have none open.
  if (settled.length && !options.dryRun && store.rejects.countOpen(PIPELINE) > 0)
    resolveRejects(ctx, settled);
}

function preview(summary: RunSummary, item: unknown): void {
  if (summary.preview!.length < PREVIEW_ITEMS) summary.preview!.push(item);
}

function resolveRejects(ctx: SyncContext, rows: GoodRow[]): void {
  const keys = rows.flatMap((row) => [row.record.sku, describeSource(row.source)].filter(Boolean));
  if (keys.length) ctx.store.rejects.resolveMany(PIPELINE, keys);
}

function isRefused(error: unknown): error is ApiError | ClientValidationError {
  return (
    error instanceof ApiValidationError ||
    error instanceof ClientValidationError ||
    error instanceof ConflictError
  );
}

/**
 * The create may have been applied: a lost answer, or a 2xx answer whose shape cannot be read
 * (the product exists all the same). The SKU is searched before any new POST.
 */
function outcomeUnknown(error: unknown): boolean {
  return (
    error instanceof ApiError &&
    (error.code === 'api_outcome_unknown' || error.retryable || error instanceof SchemaError)
  );
}

/** PATCH the changed fields; they are in flight (unknown) until the platform answers. */
async function patchProduct(
  run: PipelineRun,
  row: GoodRow,
  productId: number,
  changes: Partial<ProductWire>,
): Promise<void> {
  const { ctx, summary, lease } = run;
  const { store } = ctx;
  const { sku } = row.record;
  const fields = Object.keys(changes);
  store.products.fingerprints.update([{ sku, remove: fields }]);
  lease.assertHeld();
  try {
    await ctx.client.products.update(productId, changes);
  } catch (error) {
    if (error instanceof NotFoundError) {
      // Deleted on the platform: the link goes; the next run creates it again (products.create).
      store.transaction(() => {
        for (const link of store.productLinks.byProductId(productId))
          store.productLinks.delete(link.sku, link.variantSku);
        store.products.fingerprints.delete(sku);
        store.rejects.record({
          pipeline: PIPELINE,
          key: sku,
          reason: `product ${productId} is no longer on the platform`,
          source: row.source,
        });
      });
      summary.notFound += 1;
      return;
    }
    if (isRefused(error)) {
      summary.rejected += 1;
      store.rejects.record({
        pipeline: PIPELINE,
        key: sku,
        reason: `refused: ${error.message}`,
        source: row.source,
      });
      return;
    }
    throw error;
  }
  store.transaction(() => {
    store.products.fingerprints.update([{ sku, set: fingerprintsOf(changes) }]);
    resolveRejects(ctx, [row]);
  });
  summary.applied += 1;
  summary.extra.updated! += 1;
  summary.extra.fieldsSent! += fields.length;
  run.progress();
}

/**
 * POST /products once per SKU: the intent is stored and every POST counted before it is sent; a
 * SKU with a POST behind it whose answer was lost is searched before any new POST.
 */
async function createProduct(
  run: PipelineRun,
  row: GoodRow,
  body: ProductCreateInput,
  hash: string,
): Promise<void> {
  const { ctx, summary, lease, log } = run;
  const creates = ctx.store.products.creates;
  const { sku } = row.record;
  // The SKU is on the platform already (made by hand, or by a POST of ours): it is linked, not created.
  const linkExisting = async (): Promise<boolean> => {
    const found = await findProductBySku(ctx, sku);
    if (!found) return false;
    confirmCreated(ctx, row, found, platformFingerprints(found, row.wire));
    summary.applied += 1;
    summary.extra.foundExisting! += 1;
    return true;
  };
  creates.recordIntent(sku, hash);
  for (let attempt = 0; attempt < MAX_CREATE_ATTEMPTS; attempt++) {
    const intent = creates.get(sku)!;
    if ((intent.attempts > 0 || intent.state === 'unknown') && (await linkExisting())) return;
    lease.assertHeld();
    creates.countAttempt(sku);
    try {
      const created = await ctx.client.products.create(body);
      confirmCreated(ctx, row, created, fingerprintsOf(row.wire));
      summary.applied += 1;
      summary.extra.created! += 1;
      run.progress();
      return;
    } catch (error) {
      if (
        error instanceof ApiValidationError &&
        error.fieldErrors.sku !== undefined &&
        (await linkExisting())
      )
        return;
      if (isRefused(error)) {
        creates.markRejected(sku, error.message);
        ctx.store.rejects.record({
          pipeline: PIPELINE,
          key: sku,
          reason: `refused: ${error.message}`,
          source: row.source,
        });
        summary.rejected += 1;
        return;
      }
      if (outcomeUnknown(error)) {
        creates.markUnknown(sku, describeError(error));
        log.warn(
          { sku, error: describeError(error) },
          'product create outcome unknown; searching the SKU before trying again',
        );
        continue;
      }
      throw error;
    }
  }
  throw new ErpSyncError(
    'api_outcome_unknown',
    `the create of ${sku} is still unknown; it is searched next run`,
  );
}

/** What the platform holds for the fields we would send (a product found, not created by this POST). */
function platformFingerprints(product: ApiProduct, wire: ProductWire): FieldFingerprints {
  const out: FieldFingerprints = {};
  const platform = product as Record<string, unknown>;
  for (const field of Object.keys(fingerprintsOf(wire))) out[field] = fieldFingerprint(platform[field]);
  return out;
}

/**
 * The platform confirmed the product: links (product and variants), its field fingerprints and
 * the end of the intent, in one transaction. Stock and prices waiting for the SKU ("not on the
 * platform") are pushed by their next run.
 */
function confirmCreated(
  ctx: SyncContext,
  row: GoodRow,
  product: ApiProduct,
  fingerprints: FieldFingerprints,
): void {
  const { store } = ctx;
  const links = linksOf(product);
  const keys = links.map((link) =>
    itemKeyString({ sku: link.sku, variantSku: link.variantSku ?? undefined }),
  );
  store.transaction(() => {
    store.productLinks.upsertMany(links);
    store.products.fingerprints.delete(product.sku);
    store.products.fingerprints.update([{ sku: product.sku, set: fingerprints }]);
    store.products.creates.markCreated(row.record.sku);
    for (const pipeline of ['stock', 'prices'] as const) {
      store.fingerprints.clearMissing(pipeline, keys);
      store.rejects.resolveMany(pipeline, keys);
    }
    resolveRejects(ctx, [row]);
  });
}

function contentHash(body: ProductCreateInput): string {
  return createHash('sha1').update(JSON.stringify(body)).digest('hex').slice(0, 16);
}
