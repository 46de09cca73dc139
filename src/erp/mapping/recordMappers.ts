import type { ProductStatus, ProductType } from '../../domain/limits.js';
import { printable } from '../../domain/printable.js';
import type { PriceRecord, ProductRecord, ProductVariantRecord, StockRecord } from '../../domain/records.js';
import {
  nameReasons,
  priceRecordReasons,
  productRecordReasons,
  stockRecordReasons,
} from '../../domain/rules.js';
import { parseBoolean, parseNumber } from './numbers.js';

/** Canonical field -> raw value of one row (see ColumnMap.pick, CellPicker); null: present but empty. */
export interface Picked {
  get(field: string): unknown;
}

/** A record, or the reasons the row cannot become one. */
export type Mapped<T> = { record: T } | { reasons: string[] };

export interface MapContext {
  decimalComma: boolean;
}

export type RecordMapper<T> = (
  values: Picked,
  sku: string,
  variantSku: string | undefined,
  ctx: MapContext,
) => Mapped<T>;

export const MAPPERS: {
  stock: RecordMapper<StockRecord>;
  prices: RecordMapper<PriceRecord>;
  products: RecordMapper<ProductRecord>;
} = {
  stock(values, sku, variantSku, ctx) {
    const reasons: string[] = [];
    const quantity = readNumber(values, 'quantity', ctx, reasons, true);
    if (reasons.length) return { reasons };
    const record: StockRecord = { sku, quantity: quantity! };
    if (variantSku) record.variantSku = variantSku;
    return checked(record, stockRecordReasons(record));
  },

  prices(values, sku, variantSku, ctx) {
    const reasons: string[] = [];
    const record: PriceRecord = { sku };
    if (variantSku) record.variantSku = variantSku;
    assign(record, 'price', readNumber(values, 'price', ctx, reasons));
    // An empty sale_price ends a promotion (null: cleared on the platform). An empty price,
    // cost_price or vat_rate is not sent: a product cannot be without a price or VAT rate.
    if (values.get('sale_price') === null) record.salePrice = null;
    else assign(record, 'salePrice', readNumber(values, 'sale_price', ctx, reasons));
    assign(record, 'costPrice', readNumber(values, 'cost_price', ctx, reasons));
    assign(record, 'vatRate', readNumber(values, 'vat_rate', ctx, reasons));
    if (reasons.length) return { reasons };
    return checked(record, priceRecordReasons(record));
  },

  products(values, sku, _variantSku, ctx) {
    const reasons: string[] = [];
    const name = readText(values, 'name');
    const record: ProductRecord = { sku, name: name ?? '' };
    const status = readText(values, 'status');
    if (status !== undefined) record.status = status.toLowerCase() as ProductStatus;
    assign(record, 'ean', readText(values, 'ean'));
    assign(record, 'mpn', readText(values, 'mpn'));
    assign(record, 'price', readNumber(values, 'price', ctx, reasons));
    assign(record, 'salePrice', readNumber(values, 'sale_price', ctx, reasons));
    assign(record, 'costPrice', readNumber(values, 'cost_price', ctx, reasons));
    assign(record, 'vatRate', readNumber(values, 'vat_rate', ctx, reasons));
    assign(record, 'stockQuantity', readNumber(values, 'stock_quantity', ctx, reasons));
    assign(record, 'weightGrams', readNumber(values, 'weight_grams', ctx, reasons));
    assign(record, 'shortDescription', readText(values, 'short_description'));
    assign(record, 'longDescription', readText(values, 'long_description'));
    if (values.get('track_stock') != null) {
      const track = parseBoolean(values.get('track_stock'));
      if (track === undefined)
        reasons.push(`track_stock is not a yes/no value: ${show(values.get('track_stock'))}`);
      else record.trackStock = track;
    }
    readProductExtras(values, record, ctx, reasons);
    if (name === undefined) reasons.unshift(...nameReasons(undefined));
    if (reasons.length) return { reasons };
    return checked(record, productRecordReasons(record));
  },
};

function checked<T>(record: T, reasons: string[]): Mapped<T> {
  return reasons.length ? { reasons } : { record };
}

function assign<T extends object, K extends keyof T>(target: T, key: K, value: T[K] | undefined): void {
  if (value !== undefined) target[key] = value;
}

export function readText(values: Picked, field: string): string | undefined {
  const value = values.get(field);
  if (value === undefined || value === null) return undefined;
  const text = (typeof value === 'string' ? value : String(value)).trim();
  return text === '' ? undefined : text;
}

function readNumber(
  values: Picked,
  field: string,
  ctx: MapContext,
  reasons: string[],
  required = false,
): number | undefined {
  const raw = values.get(field);
  if (raw === undefined || raw === null) {
    if (required) reasons.push(`missing ${field}`);
    return undefined;
  }
  const value = parseNumber(raw, ctx.decimalComma);
  if (Number.isNaN(value)) {
    reasons.push(`${field} is not a number: ${show(raw)}`);
    return undefined;
  }
  return value;
}

function show(value: unknown): string {
  return printable(JSON.stringify(typeof value === 'string' ? value.trim() : value) ?? String(value), 60);
}

/** The master-data fields beyond the basic ones: brand, category, sizes, SEO, highlights, variants. */
function readProductExtras(values: Picked, record: ProductRecord, ctx: MapContext, reasons: string[]): void {
  const type = readText(values, 'type');
  if (type !== undefined) record.type = type.toLowerCase() as ProductType;
  assign(record, 'brandId', readNumber(values, 'brand_id', ctx, reasons));
  assign(record, 'brand', readText(values, 'brand'));
  assign(record, 'categoryId', readNumber(values, 'category_id', ctx, reasons));
  assign(record, 'category', readText(values, 'category'));
  assign(record, 'lengthMm', readNumber(values, 'length_mm', ctx, reasons));
  assign(record, 'widthMm', readNumber(values, 'width_mm', ctx, reasons));
  assign(record, 'heightMm', readNumber(values, 'height_mm', ctx, reasons));
  assign(record, 'metaTitle', readText(values, 'meta_title'));
  assign(record, 'metaDescription', readText(values, 'meta_description'));
  const highlights = values.get('highlights');
  if (Array.isArray(highlights)) record.highlights = highlights.map((h) => String(h).trim()).filter(Boolean);
  else if (highlights !== undefined && highlights !== null) {
    // A flat file has one cell: bullets separated by `|`.
    record.highlights = String(highlights)
      .split('|')
      .map((h) => h.trim())
      .filter(Boolean);
  }
  const variants = readVariants(values.get('variants'), ctx, reasons);
  if (variants) record.variants = variants;
}

/** Variants as a JSON array (a JSON/NDJSON file's array, or a cell holding JSON). */
function readVariants(raw: unknown, ctx: MapContext, reasons: string[]): ProductVariantRecord[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  let list = raw;
  if (typeof raw === 'string') {
    try {
      list = JSON.parse(raw);
    } catch {
      reasons.push(`variants is not a JSON array: ${show(raw)}`);
      return undefined;
    }
  }
  if (!Array.isArray(list)) {
    reasons.push(`variants is not a list: ${show(raw)}`);
    return undefined;
  }
  return list.map((item, i) => {
    const fields = new Map(Object.entries((item ?? {}) as Record<string, unknown>));
    const variant: ProductVariantRecord = {
      sku: readText(fields, 'sku') ?? '',
      name: readText(fields, 'name') ?? '',
    };
    const sub: string[] = [];
    assign(variant, 'price', readNumber(fields, 'price', ctx, sub));
    assign(variant, 'salePrice', readNumber(fields, 'sale_price', ctx, sub));
    assign(variant, 'stockQuantity', readNumber(fields, 'stock_quantity', ctx, sub));
    reasons.push(...sub.map((r) => `variants.${i}: ${r}`));
    return variant;
  });
}
