import type { Db } from '../db/openDatabase.js';
import { stmt } from '../db/statements.js';
import type { Issues } from '../http/fields.js';
import { definedOnly, Fields, isObject, type Obj } from '../http/fields.js';

export const PRODUCT_STATUSES = ['active', 'draft', 'archived'] as const;
export const PRODUCT_TYPES = ['simple', 'variable'] as const;

export interface VariantInput {
  sku: string;
  name: string;
  price: number;
  sale_price: number | null;
  stock_quantity: number;
}

export interface ProductInput {
  /** Column -> value, ready for SQL (booleans as 0/1, arrays as JSON). */
  columns: Record<string, unknown>;
  type?: 'simple' | 'variable';
  variants?: VariantInput[];
}

export const PRICE_FIELDS = ['price', 'sale_price', 'cost_price', 'vat_rate'] as const;

/** The price fields a request set (`price`, `sale_price`, `cost_price`, `vat_rate`), validated. */
export function readPriceFields(f: Fields): Record<string, unknown> {
  return definedOnly({
    price: f.number('price', { min: 0 }),
    sale_price: f.number('sale_price', { nullable: true, min: 0 }),
    cost_price: f.number('cost_price', { nullable: true, min: 0 }),
    vat_rate: f.integer('vat_rate', { min: 0, max: 100 }),
  });
}

/** Reads the writable product fields; on update `type` is refused. Records problems in `issues`. */
export function readProductInput(body: Obj, issues: Issues, mode: 'create' | 'update'): ProductInput {
  const f = new Fields(body, issues);
  const columns: Record<string, unknown> = {};
  const set = (key: string, value: unknown): void => {
    if (value !== undefined) columns[key] = value;
  };
  set('name', f.string('name', { required: mode === 'create', nonEmpty: true, max: 191 }));
  set('status', f.oneOf('status', PRODUCT_STATUSES));
  set('sku', f.sku('sku', { nonEmpty: true, max: 100 }));
  set('slug', f.string('slug', { nonEmpty: true, max: 191 }));
  set('ean', f.string('ean', { nullable: true, max: 64 }));
  set('mpn', f.string('mpn', { nullable: true, max: 64 }));
  set('brand_id', f.integer('brand_id', { nullable: true, min: 1 }));
  set('category_id', f.integer('category_id', { nullable: true, min: 1 }));
  Object.assign(columns, readPriceFields(f));
  set('stock_quantity', f.integer('stock_quantity', { min: 0 }));
  const track = f.boolean('track_stock');
  if (track !== undefined) columns.track_stock = track ? 1 : 0;
  const highlights = f.stringArray('highlights', { maxItem: 500 });
  if (highlights !== undefined) columns.highlights = JSON.stringify(highlights);
  for (const key of ['short_description', 'long_description', 'meta_description'])
    set(key, f.string(key, { nullable: true, max: 65_535 }));
  set('meta_title', f.string('meta_title', { nullable: true, max: 191 }));
  for (const key of ['weight_grams', 'length_mm', 'width_mm', 'height_mm'])
    set(key, f.integer(key, { nullable: true, min: 0 }));

  const input: ProductInput = { columns };
  if (mode === 'update') {
    if (f.has('type')) issues.add('type', 'cannot be changed after creation');
    if (f.has('variants')) issues.add('variants', 'cannot be changed with PATCH');
    return input;
  }
  input.type = f.oneOf('type', PRODUCT_TYPES) ?? 'simple';
  if (f.has('variants')) input.variants = readVariants(body.variants, issues, input.type);
  if (input.type === 'variable' && columns.stock_quantity !== undefined)
    issues.add('stock_quantity', 'a variable product has no own stock: set the stock of its variants');
  return input;
}

function readVariants(raw: unknown, issues: Issues, type: string): VariantInput[] | undefined {
  if (type !== 'variable') {
    issues.add('variants', 'only a variable product has variants');
    return undefined;
  }
  if (!Array.isArray(raw)) {
    issues.add('variants', 'must be an array');
    return undefined;
  }
  const seen = new Set<string>();
  return raw.flatMap((item, i) => {
    if (!isObject(item)) {
      issues.add(`variants.${i}`, 'must be an object');
      return [];
    }
    const f = new Fields(item, issues, `variants.${i}`);
    const sku = f.sku('sku', { required: true, max: 100 });
    const name = f.string('name', { required: true, max: 191 });
    const price = f.number('price', { min: 0 }) ?? 0;
    const sale = f.number('sale_price', { nullable: true, min: 0 }) ?? null;
    const stock = f.integer('stock_quantity', { min: 0 }) ?? 0;
    if (sku && seen.has(sku)) issues.add(`variants.${i}.sku`, 'is duplicated in this request');
    if (sku) seen.add(sku);
    return sku && name ? [{ sku, name, price, sale_price: sale, stock_quantity: stock }] : [];
  });
}

/** Checks that need the database: SKU unique in the company, brand and category in the company. */
export function checkProductReferences(
  db: Db,
  companyId: number,
  input: ProductInput,
  issues: Issues,
  selfId?: number,
): void {
  const c = input.columns;
  if (typeof c.sku === 'string' && skuTaken(db, companyId, c.sku, selfId))
    issues.add('sku', 'is already used by another product');
  if (
    typeof c.brand_id === 'number' &&
    !stmt<[number, number]>(db, 'SELECT 1 FROM brands WHERE id = ? AND company_id = ?').get(
      c.brand_id,
      companyId,
    )
  )
    issues.add('brand_id', 'does not exist in this company');
  if (
    typeof c.category_id === 'number' &&
    !stmt<[number, number]>(db, 'SELECT 1 FROM categories WHERE id = ? AND company_id = ?').get(
      c.category_id,
      companyId,
    )
  )
    issues.add('category_id', 'does not exist in this company');
  input.variants?.forEach((v, i) => {
    if (skuTaken(db, companyId, v.sku))
      issues.add(`variants.${i}.sku`, 'is already used by another product or variant');
  });
}

/** SKUs are unique per company across products and variants. */
export function skuTaken(db: Db, companyId: number, sku: string, exceptProductId?: number): boolean {
  const product = stmt<[number, string], { id: number }>(
    db,
    'SELECT id FROM products WHERE company_id = ? AND sku = ?',
  ).get(companyId, sku);
  if (product && product.id !== exceptProductId) return true;
  return !!stmt<[number, string]>(db, 'SELECT 1 FROM variants WHERE company_id = ? AND sku = ?').get(
    companyId,
    sku,
  );
}
