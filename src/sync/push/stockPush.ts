import type { BulkStockItem } from '../../api/inputs.js';
import { stockRecordReasons } from '../../domain/rules.js';
import type { StockRecord } from '../../domain/records.js';
import { stockFingerprint, stockMatches } from './fingerprint.js';
import type { PushKind } from './pushKind.js';
import { pushedQuantity } from './safetyBuffer.js';

export function validateStock(record: StockRecord): string | null {
  return stockRecordReasons(record).join('; ') || null;
}

/**
 * Stock, always as an absolute quantity (a replayed batch changes nothing): the ERP quantity less
 * the units held by platform orders not yet in the ERP, less the safety buffer, never below 0.
 */
export const stockPush: PushKind<StockRecord, BulkStockItem> = {
  pipeline: 'stock',
  holdsBack: true,
  validate: validateStock,
  value(record, { held, buffer }) {
    const quantity = pushedQuantity(record.quantity, held, buffer);
    const wire: BulkStockItem = { sku: record.sku, quantity };
    if (record.variantSku) wire.variant_sku = record.variantSku;
    return { hash: stockFingerprint(quantity), wire };
  },
  send: (client, wires) => client.products.bulkStock(wires),
  // A variable product's own stock is not compared: its variants carry the stock.
  matches: (hash, platform) => platform.stock === undefined || stockMatches(hash, platform.stock),
  show: {
    erp: (record) => record.quantity,
    push: (value) => value.wire.quantity,
    platform: (platform) => platform.stock ?? null,
    variableParent:
      'no stock of its own: a variable product, its variants carry the stock (each shown below)',
  },
};
