import { LIMITS, PRODUCT_STATUSES } from './limits.js';
import type { PriceRecord, ProductRecord, StockRecord } from './records.js';

/**
 * Pure validation of records against the limits of the API v2 specification (section 8 and the
 * field rules of section 2). Each function returns the reasons a record would be refused, empty
 * when it is fine. Field names in reasons are spelled as the files and the API spell them.
 * Adapters and pipelines share these, so the same bad value gets the same reason everywhere.
 */

export function skuReasons(sku: string | undefined | null): string[] {
  return sku === undefined || sku === null || sku.trim() === '' ? ['missing sku'] : [];
}

/** A finite number, at least `min`; whole when `integer`; at most `max` when given. */
export function numberReasons(
  field: string,
  value: number,
  rule: { min?: number; max?: number; integer?: boolean },
): string[] {
  if (!Number.isFinite(value)) return [`${field} is not a number`];
  if (rule.integer && !Number.isInteger(value)) return [`${field} must be a whole number, got ${value}`];
  if (rule.min !== undefined && rule.max !== undefined && (value < rule.min || value > rule.max)) {
    return [`${field} must be between ${rule.min} and ${rule.max}, got ${value}`];
  }
  if (rule.min !== undefined && value < rule.min)
    return [`${field} must be at least ${rule.min}, got ${value}`];
  if (rule.max !== undefined && value > rule.max)
    return [`${field} must be at most ${rule.max}, got ${value}`];
  return [];
}

export function quantityReasons(field: string, value: number): string[] {
  return numberReasons(field, value, { min: LIMITS.stockQuantityMin, integer: true });
}

export function vatRateReasons(value: number): string[] {
  return numberReasons('vat_rate', value, { min: LIMITS.vatRateMin, max: LIMITS.vatRateMax, integer: true });
}

export function nameReasons(name: string | undefined): string[] {
  if (name === undefined || name.trim() === '') return ['missing name'];
  const length = [...name].length;
  return length > LIMITS.productNameMax
    ? [`name is longer than ${LIMITS.productNameMax} characters (${length})`]
    : [];
}

export function stockRecordReasons(record: StockRecord): string[] {
  return [...skuReasons(record.sku), ...quantityReasons('quantity', record.quantity)];
}

const PRICE_FIELDS = [
  ['price', 'price'],
  ['salePrice', 'sale_price'],
  ['costPrice', 'cost_price'],
] as const;

export function priceRecordReasons(record: PriceRecord): string[] {
  const reasons = skuReasons(record.sku);
  let present = record.vatRate !== undefined;
  for (const [prop, field] of PRICE_FIELDS) {
    const value = record[prop];
    if (value === undefined) continue;
    present = true;
    // null (only a sale price can be null) clears the field: nothing to check.
    if (value === null) continue;
    reasons.push(...numberReasons(field, value, { min: 0 }));
  }
  if (record.vatRate !== undefined) reasons.push(...vatRateReasons(record.vatRate));
  if (!present) reasons.push('no price field (price, sale_price, cost_price or vat_rate)');
  return reasons;
}

export function productRecordReasons(record: ProductRecord): string[] {
  const reasons = [...skuReasons(record.sku), ...nameReasons(record.name)];
  if (record.status !== undefined && !(PRODUCT_STATUSES as readonly string[]).includes(record.status)) {
    reasons.push(`status must be one of ${PRODUCT_STATUSES.join(', ')}, got ${record.status}`);
  }
  for (const [prop, field] of PRICE_FIELDS) {
    const value = record[prop];
    if (value !== undefined) reasons.push(...numberReasons(field, value, { min: 0 }));
  }
  if (record.vatRate !== undefined) reasons.push(...vatRateReasons(record.vatRate));
  if (record.stockQuantity !== undefined)
    reasons.push(...quantityReasons('stock_quantity', record.stockQuantity));
  if (record.weightGrams !== undefined) {
    reasons.push(...numberReasons('weight_grams', record.weightGrams, { min: 0, integer: true }));
  }
  return reasons;
}
