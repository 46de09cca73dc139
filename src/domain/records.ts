import { LIMITS, type ProductStatus, type ProductType } from './limits.js';
import { hasUnprintable, printable } from './printable.js';

/** Where a record came from, so that a reject can name it (file and line, or a row key). */
export interface RecordSource {
  file?: string;
  line?: number;
  row?: string;
}

/** A product, or one variant of it, as the ERP and the store identify it. */
export interface ItemKey {
  sku: string;
  variantSku?: string;
}

/** Absolute stock of one SKU (or variant) as the ERP reports it. Never a delta. */
export interface StockRecord extends ItemKey {
  quantity: number;
}

/** Prices of one SKU (or variant). Absent fields are left as they are on the platform. */
export interface PriceRecord extends ItemKey {
  price?: number;
  /** null: no sale price (the ERP ended the promotion; cleared on the platform). */
  salePrice?: number | null;
  costPrice?: number;
  vatRate?: number;
}

/** Product master data from the ERP (optional products pipeline). */
export interface ProductRecord {
  sku: string;
  name: string;
  status?: ProductStatus;
  ean?: string;
  mpn?: string;
  price?: number;
  salePrice?: number;
  costPrice?: number;
  vatRate?: number;
  stockQuantity?: number;
  trackStock?: boolean;
  weightGrams?: number;
  shortDescription?: string;
  longDescription?: string;
  /** Fixed when the product is created (never updated). A variable product carries `variants`. */
  type?: ProductType;
  /** The brand by platform id, or by the name `products.brands` maps to an id. */
  brandId?: number;
  brand?: string;
  /** The category by platform id, or by the name `products.categories` maps to an id. */
  categoryId?: number;
  category?: string;
  lengthMm?: number;
  widthMm?: number;
  heightMm?: number;
  highlights?: string[];
  metaTitle?: string;
  metaDescription?: string;
  /** Variants of a variable product, sent when it is created (the API does not update them). */
  variants?: ProductVariantRecord[];
}

export interface ProductVariantRecord {
  sku: string;
  name: string;
  price?: number;
  salePrice?: number;
  stockQuantity?: number;
}

/**
 * What an adapter yields per row: a record, or the reason the row could not be read.
 * A bad row is never an exception that ends the run.
 */
export type ErpRow<T> =
  | { ok: true; record: T; source: RecordSource }
  | { ok: false; key: string; reason: string; source: RecordSource };

/** A rejected item, recorded in the store and listed by `erp-sync rejects`. */
export interface Reject {
  pipeline: string;
  /** The SKU (`SKU` or `SKU/VARIANT`), order id, or `file:line` when no key could be read. */
  key: string;
  reason: string;
  source?: RecordSource;
}

/** Longer than any valid key (two SKUs and the slash). */
const KEY_MAX = LIMITS.skuMax * 2 + 1;

/**
 * The one way to spell an item key in stores, rejects and logs. A key no valid item can have (too
 * long, control characters) is shown shortened and escaped: such an item is only ever a reject,
 * and a 50 MB or binary SKU must not be stored or printed whole.
 */
export function itemKeyString(key: ItemKey): string {
  const text = key.variantSku ? `${key.sku}/${key.variantSku}` : key.sku;
  return text.length > KEY_MAX || hasUnprintable(text) ? printable(text, 60) : text;
}

/** A human-readable location for a reject: `stock.csv:12`, or the row key. */
export function describeSource(source: RecordSource | undefined): string {
  if (!source) return '';
  if (source.file && source.line !== undefined) return `${source.file}:${source.line}`;
  return source.file ?? source.row ?? '';
}
