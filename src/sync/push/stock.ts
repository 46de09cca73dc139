import type { BulkStockItem } from '../../api/inputs.js';
import { itemKeyString, type StockRecord } from '../../domain/records.js';
import type { PushItem } from './pushBatch.js';
import { runPush } from './pushPipeline.js';
import type { PushSpec } from './diffPushItems.js';
import { runInFrame } from '../frame/runInFrame.js';
import { createSafetyBuffer } from './safetyBuffer.js';
import { stockPush } from './stockPush.js';
import type { RunOptions, RunSummary, SyncContext } from '../frame/types.js';

/**
 * ERP stock as push items (stockPush says what is pushed). `ctx` is the run's (its client counts
 * the reservation look-ups for the run).
 */
export function stockPushSpec(ctx: SyncContext): PushSpec<StockRecord, BulkStockItem> {
  const buffer = createSafetyBuffer(ctx.config.sync.safetyBuffer);
  // When the read being prepared began: the guard tells orders the ERP had taken by then.
  let readStartedAt: string | undefined;
  return {
    ...stockPush,
    rows: (after) => {
      readStartedAt = new Date().toISOString();
      return ctx.erp.stock(after);
    },
    prepare: async (records, sources) => {
      const keys = records.map(itemKeyString);
      const held =
        ctx.reservations && keys.length
          ? await ctx.reservations.unitsHeld(keys, ctx.client, readStartedAt)
          : undefined;
      const items = new Array<PushItem<BulkStockItem>>(records.length);
      for (let index = 0; index < records.length; index++) {
        const record = records[index]!;
        const key = keys[index]!;
        const { hash, wire } = stockPush.value(record, { held: held?.get(key) ?? 0, buffer: buffer(record) });
        // One literal of one shape: the source set afterwards would grow every item's property store.
        items[index] = { key, sku: record.sku, source: sources?.[index], hash, wire };
      }
      return items;
    },
  };
}

/** ERP stock -> platform. */
export function runStock(ctx: SyncContext, options: RunOptions): Promise<RunSummary> {
  return runInFrame('stock', ctx, options, (run) => runPush(run, stockPushSpec(run.ctx)));
}
