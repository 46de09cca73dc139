import type { BulkStockItem } from '../../api/inputs.js';
import { stockRecordReasons } from '../../domain/rules.js';
import { itemKeyString, type StockRecord } from '../../domain/records.js';
import { stockFingerprint } from './fingerprint.js';
import type { PushItem } from './pushBatch.js';
import { runPush } from './pushPipeline.js';
import type { PushSpec } from './diffPushItems.js';
import { runInFrame } from '../frame/runInFrame.js';
import { createSafetyBuffer, pushedQuantity } from './safetyBuffer.js';
import type { RunOptions, RunSummary, SyncContext } from '../frame/types.js';

export function validateStock(record: StockRecord): string | null {
  return stockRecordReasons(record).join('; ') || null;
}

/**
 * ERP stock as push items, always as an absolute quantity (a replayed batch changes nothing).
 * Pushed = ERP quantity - units held by platform orders not yet in the ERP - safety buffer, >= 0.
 * `ctx` is the run's (its client counts the reservation look-ups for the run).
 */
export function stockPushSpec(ctx: SyncContext): PushSpec<StockRecord, BulkStockItem> {
  const buffer = createSafetyBuffer(ctx.config.sync.safetyBuffer);
  // When the read being prepared began: the guard tells orders the ERP had taken by then.
  let readStartedAt: string | undefined;
  return {
    pipeline: 'stock',
    rows: (after) => {
      readStartedAt = new Date().toISOString();
      return ctx.erp.stock(after);
    },
    validate: validateStock,
    prepare: async (records) => {
      const keys = records.map(itemKeyString);
      const held =
        ctx.reservations && keys.length
          ? await ctx.reservations.unitsHeld(keys, ctx.client, readStartedAt)
          : undefined;
      return records.map((record, index): PushItem<BulkStockItem> => {
        const key = keys[index]!;
        const quantity = pushedQuantity(record.quantity, held?.get(key) ?? 0, buffer(record));
        const wire: BulkStockItem = { sku: record.sku, quantity };
        if (record.variantSku) wire.variant_sku = record.variantSku;
        return { key, sku: record.sku, hash: stockFingerprint(quantity), wire };
      });
    },
  };
}

/** ERP stock -> platform. */
export function runStock(ctx: SyncContext, options: RunOptions): Promise<RunSummary> {
  return runInFrame('stock', ctx, options, (run) => runPush(run, stockPushSpec(run.ctx)));
}
