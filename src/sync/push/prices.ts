import type { BulkPriceItem } from '../../api/inputs.js';
import { itemKeyString, type PriceRecord } from '../../domain/records.js';
import { NOTHING_HELD } from './pushKind.js';
import type { PushItem } from './pushBatch.js';
import { pricesPush } from './pricesPush.js';
import { runPush } from './pushPipeline.js';
import type { PushSpec } from './diffPushItems.js';
import { runInFrame } from '../frame/runInFrame.js';
import type { RunOptions, RunSummary, SyncContext } from '../frame/types.js';

/** ERP prices as push items (pricesPush says what is pushed). */
export function pricesPushSpec(ctx: SyncContext): PushSpec<PriceRecord, BulkPriceItem> {
  return {
    ...pricesPush,
    rows: (after) => ctx.erp.prices(after),
    prepare: async (records, sources) =>
      records.map((record, index): PushItem<BulkPriceItem> => {
        const { hash, wire } = pricesPush.value(record, NOTHING_HELD);
        return { key: itemKeyString(record), sku: record.sku, source: sources?.[index], hash, wire };
      }),
  };
}

/** ERP prices -> platform. */
export function runPrices(ctx: SyncContext, options: RunOptions): Promise<RunSummary> {
  return runInFrame('prices', ctx, options, (run) => runPush(run, pricesPushSpec(run.ctx)));
}
