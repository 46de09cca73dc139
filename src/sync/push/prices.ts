import type { BulkPriceItem } from '../../api/inputs.js';
import { priceRecordReasons } from '../../domain/rules.js';
import { itemKeyString, type PriceRecord } from '../../domain/records.js';
import { priceFingerprint } from './fingerprint.js';
import type { PushItem } from './pushBatch.js';
import { runPush } from './pushPipeline.js';
import type { PushSpec } from './diffPushItems.js';
import { runInFrame } from '../frame/runInFrame.js';
import type { RunOptions, RunSummary, SyncContext } from '../frame/types.js';

export function validatePrices(record: PriceRecord): string | null {
  return priceRecordReasons(record).join('; ') || null;
}

function toWire(record: PriceRecord): BulkPriceItem {
  const wire: BulkPriceItem = { sku: record.sku };
  if (record.variantSku) wire.variant_sku = record.variantSku;
  if (record.price !== undefined) wire.price = record.price;
  if (record.salePrice !== undefined) wire.sale_price = record.salePrice;
  if (record.costPrice !== undefined) wire.cost_price = record.costPrice;
  if (record.vatRate !== undefined) wire.vat_rate = record.vatRate;
  return wire;
}

/** ERP prices as push items; only the fields the ERP gives are sent (and fingerprinted); a null sale price clears it. */
export function pricesPushSpec(ctx: SyncContext): PushSpec<PriceRecord, BulkPriceItem> {
  return {
    pipeline: 'prices',
    rows: (after) => ctx.erp.prices(after),
    validate: validatePrices,
    prepare: async (records) =>
      records.map((record): PushItem<BulkPriceItem> => ({
        key: itemKeyString(record),
        sku: record.sku,
        hash: priceFingerprint(record),
        wire: toWire(record),
      })),
  };
}

/** ERP prices -> platform. */
export function runPrices(ctx: SyncContext, options: RunOptions): Promise<RunSummary> {
  return runInFrame('prices', ctx, options, (run) => runPush(run, pricesPushSpec(run.ctx)));
}
