import { LIMITS, PRODUCT_STATUSES, PRODUCT_TYPES } from './limits.js';
import { hasUnprintable } from './printable.js';
import type { PriceRecord, ProductRecord, StockRecord } from './records.js';

/**
 * Pure validation of records against the limits of the API v2 specification (section 8 and the
 * field rules of section 2). Each function returns the reasons a record would be refused, empty
 * when it is fine. Field names in reasons are spelled as the files and the API spell them.
 * Adapters and pipelines share these, so the same bad value gets the same reason everywhere.
 */

export function skuReasons(sku: string | undefined | null, field = 'sku'): string[] {
  if (sku === undefined || sku === null || sku.trim() === '') return [`missing ${field}`];
  // Checked on UTF-16 length first: a 50 MB value is not spread into an array to be counted, and
  // one no longer than the limit in UTF-16 units is within it in characters (most SKUs, not counted).
  const length = sku.length <= LIMITS.skuMax || sku.length > LIMITS.skuMax * 2 ? sku.length : [...sku].length;
  if (length > LIMITS.skuMax) return [`${field} is longer than ${LIMITS.skuMax} characters (${length})`];
  if (hasUnprintable(sku)) return [`${field} holds control or invisible characters`];
  return [];
}

/** The SKU and, when there is one, the variant SKU of a row. */
export function itemKeyReasons(sku: string | undefined | null, variantSku: string | undefined): string[] {
  const reasons = skuReasons(sku);
  if (variantSku !== undefined)
    reasons.push(...skuReasons(variantSku, 'variant_sku').filter((r) => !r.startsWith('missing')));
  return reasons;
}

/** A finite number, at least `min`; whole when `integer`; at most `max` when given. */
export function numberReasons(
  field: string,
  value: number,
  rule: { min?: number; max?: number; integer?: boolean },
): string[] {
  if (!Number.isFinite(value)) return [`${field} is not a number`];
  if (rule.integer && !Number.isInteger(value)) return [`${field} must be a whole number, got ${value}`];
  // Past 2^53 a whole number is no longer exact: 9007199254740993 reads as ...992.
  if (rule.integer && !Number.isSafeInteger(value))
    return [`${field} is too large to be exact (beyond 2^53), got ${value}`];
  if (rule.min !== undefined && rule.max !== undefined && (value < rule.min || value > rule.max)) {
    return [`${field} must be between ${rule.min} and ${rule.max}, got ${value}`];
  }
  if (rule.min !== undefined && value < rule.min)
    return [`${field} must be at least ${rule.min}, got ${value}`];
  if (rule.max !== undefined && value > rule.max)
    return [`${field} must be at most ${rule.max}, got ${value}`];
  return [];
}

const QUANTITY_RULE = { min: LIMITS.stockQuantityMin, integer: true } as const;

export function quantityReasons(field: string, value: number): string[] {
  return numberReasons(field, value, QUANTITY_RULE);
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
  const reasons = itemKeyReasons(record.sku, record.variantSku);
  const quantity = quantityReasons('quantity', record.quantity);
  if (quantity.length) reasons.push(...quantity);
  return reasons;
}

/** A sale price above the price it reduces is a data error (a swapped column, a typo), not a sale. */
export function salePriceReasons(price: number | undefined, salePrice: number | null | undefined): string[] {
  if (price === undefined || salePrice === undefined || salePrice === null) return [];
  if (!Number.isFinite(price) || !Number.isFinite(salePrice)) return [];
  return salePrice > price ? [`sale_price ${salePrice} is above price ${price}`] : [];
}

const PRICE_FIELDS = [
  ['price', 'price'],
  ['salePrice', 'sale_price'],
  ['costPrice', 'cost_price'],
] as const;

export function priceRecordReasons(record: PriceRecord): string[] {
  const reasons = itemKeyReasons(record.sku, record.variantSku);
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
  reasons.push(...salePriceReasons(record.price, record.salePrice));
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
  reasons.push(...salePriceReasons(record.price, record.salePrice));
  for (const [prop, field] of PRODUCT_SIZE_FIELDS) {
    const value = record[prop];
    if (value !== undefined) reasons.push(...numberReasons(field, value, { min: 0, integer: true }));
  }
  for (const [prop, field] of PRODUCT_ID_FIELDS) {
    const value = record[prop];
    if (value !== undefined) reasons.push(...numberReasons(field, value, { min: 1, integer: true }));
  }
  if (record.metaTitle !== undefined && [...record.metaTitle].length > LIMITS.productNameMax)
    reasons.push(`meta_title is longer than ${LIMITS.productNameMax} characters`);
  if (record.type !== undefined && !(PRODUCT_TYPES as readonly string[]).includes(record.type))
    reasons.push(`type must be one of ${PRODUCT_TYPES.join(', ')}, got ${record.type}`);
  if (record.variants?.length && record.type !== 'variable')
    reasons.push('only a variable product (type variable) has variants');
  if (record.type === 'variable' && record.stockQuantity !== undefined)
    reasons.push('a variable product has no own stock_quantity: give the stock of its variants');
  record.variants?.forEach((variant, i) => {
    reasons.push(...skuReasons(variant.sku, `variants.${i}.sku`));
    reasons.push(...nameReasons(variant.name).map((r) => `variants.${i}: ${r}`));
    for (const [prop, field] of [
      ['price', 'price'],
      ['salePrice', 'sale_price'],
    ] as const) {
      const value = variant[prop];
      if (value !== undefined) reasons.push(...numberReasons(`variants.${i}.${field}`, value, { min: 0 }));
    }
    if (variant.stockQuantity !== undefined)
      reasons.push(...quantityReasons(`variants.${i}.stock_quantity`, variant.stockQuantity));
  });
  return reasons;
}

const PRODUCT_SIZE_FIELDS = [
  ['lengthMm', 'length_mm'],
  ['widthMm', 'width_mm'],
  ['heightMm', 'height_mm'],
] as const;

const PRODUCT_ID_FIELDS = [
  ['brandId', 'brand_id'],
  ['categoryId', 'category_id'],
] as const;
