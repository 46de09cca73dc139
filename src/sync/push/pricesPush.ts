import type { BulkPriceItem } from '../../api/inputs.js';
import { priceRecordReasons } from '../../domain/rules.js';
import type { PriceRecord } from '../../domain/records.js';
import { priceFingerprint, pricesMatch } from './fingerprint.js';
import type { PushKind } from './pushKind.js';

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

/** Prices: only the fields the ERP gives are sent (and fingerprinted); a null sale price clears it. Nothing is held back. */
export const pricesPush: PushKind<PriceRecord, BulkPriceItem> = {
  pipeline: 'prices',
  holdsBack: false,
  validate: validatePrices,
  value: (record) => ({ hash: priceFingerprint(record), wire: toWire(record) }),
  send: (client, wires) => client.products.bulkPrices(wires),
  matches: (hash, platform) => pricesMatch(hash, platform.prices),
  show: {
    erp: ({ sku: _sku, variantSku: _variant, ...values }) => values,
    push: (value) => value.hash,
    platform: (platform) => platform.prices,
    variableParent:
      "no price row of its own: a variable product, its variants' prices are pushed (each shown below)",
  },
};
