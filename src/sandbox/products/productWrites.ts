import type { Db } from '../db/openDatabase.js';
import { stmt, updateRow } from '../db/statements.js';
import { noUpdatableField, notFound } from '../http/apiError.js';
import { Fields, Issues, type Obj } from '../http/fields.js';
import { isoSeconds } from '../http/time.js';
import { slugify } from '../seed/catalog.js';
import { checkProductReferences, readPriceFields, readProductInput, skuTaken } from './productInput.js';
import {
  forgetProductCount,
  productById,
  syncVariableStock,
  variantsOf,
  type ProductRow,
} from './productRepo.js';

const DEFAULTS: Record<string, unknown> = {
  status: 'draft',
  ean: null,
  mpn: null,
  brand_id: null,
  category_id: null,
  price: 0,
  sale_price: null,
  cost_price: null,
  vat_rate: 19,
  stock_quantity: 0,
  track_stock: 1,
  highlights: '[]',
  short_description: null,
  long_description: null,
  weight_grams: null,
  length_mm: null,
  width_mm: null,
  height_mm: null,
  meta_title: null,
  meta_description: null,
};

function uniqueSlug(db: Db, companyId: number, base: string, id: number): string {
  const slug = base || 'product';
  const taken = stmt<[number, string, number]>(
    db,
    'SELECT 1 FROM products WHERE company_id = ? AND slug = ? AND id != ?',
  );
  return taken.get(companyId, slug, id) ? `${slug}-${id}` : slug;
}

/** POST /products: defaults, generated SKU and slug when absent, optional variants (a sandbox extension). */
export function createProduct(db: Db, companyId: number, body: Obj): ProductRow {
  const issues = new Issues();
  const input = readProductInput(body, issues, 'create');
  checkProductReferences(db, companyId, input, issues);
  issues.throwIfAny();
  const now = isoSeconds();
  const values: Record<string, unknown> = {
    ...DEFAULTS,
    ...input.columns,
    company_id: companyId,
    type: input.type ?? 'simple',
    sku: input.columns.sku ?? `__pending_${process.hrtime.bigint()}`,
    slug: input.columns.slug ?? `__pending_${process.hrtime.bigint()}`,
    created_at: now,
    updated_at: now,
  };
  const names = Object.keys(values);
  forgetProductCount(db, companyId);
  const id = Number(
    stmt(
      db,
      `INSERT INTO products (${names.join(', ')}) VALUES (${names.map((n) => `@${n}`).join(', ')})`,
    ).run(values).lastInsertRowid,
  );
  if (input.columns.sku === undefined) {
    let sku = `SKU-${id}`;
    for (let n = 2; skuTaken(db, companyId, sku, id); n++) sku = `SKU-${id}-${n}`;
    stmt(db, 'UPDATE products SET sku = ? WHERE id = ?').run(sku, id);
  }
  if (input.columns.slug === undefined)
    stmt(db, 'UPDATE products SET slug = ? WHERE id = ?').run(
      uniqueSlug(db, companyId, slugify(String(values.name)), id),
      id,
    );
  input.variants?.forEach((v, position) =>
    stmt(
      db,
      'INSERT INTO variants (product_id, company_id, sku, name, price, sale_price, stock_quantity, position) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ).run(id, companyId, v.sku, v.name, v.price, v.sale_price, v.stock_quantity, position),
  );
  if (input.type === 'variable') syncVariableStock(db, id);
  return productById(db, companyId, id) as ProductRow;
}

/** PATCH /products/{id}: any writable field but `type`; at least one. */
export function updateProduct(db: Db, companyId: number, id: number, body: Obj): ProductRow {
  const product = productById(db, companyId, id);
  if (!product) throw notFound('Product');
  const issues = new Issues();
  const input = readProductInput(body, issues, 'update');
  if (issues.count === 0 && Object.keys(input.columns).length === 0) throw noUpdatableField();
  checkProductReferences(db, companyId, input, issues, id);
  if (product.type === 'variable' && input.columns.stock_quantity !== undefined)
    issues.add('stock_quantity', 'a variable product has no own stock: set the stock of its variants');
  issues.throwIfAny();
  writeColumns(db, id, input.columns);
  return productById(db, companyId, id) as ProductRow;
}

const writeColumns = (db: Db, id: number, columns: Record<string, unknown>): void =>
  updateRow(db, 'products', id, columns, isoSeconds());

/** PATCH /products/{id}/price: price, sale_price, cost_price, vat_rate; with `variant_id`, a variant's price and sale_price. */
export function updatePrice(db: Db, companyId: number, id: number, body: Obj): ProductRow {
  const product = productById(db, companyId, id);
  if (!product) throw notFound('Product');
  const issues = new Issues();
  const f = new Fields(body, issues);
  const columns = readPriceFields(f);
  const variantId = f.integer('variant_id', { min: 1 });
  if (issues.count === 0 && Object.keys(columns).length === 0) throw noUpdatableField();
  if (variantId !== undefined && variantId !== null) {
    if (!variantsOf(db, id).some((v) => v.id === variantId))
      issues.add('variant_id', 'does not belong to this product');
    for (const k of ['cost_price', 'vat_rate'])
      if (k in columns) issues.add(k, 'is set on the product, not on a variant');
    issues.throwIfAny();
    updateRow(db, 'variants', variantId, columns);
    updateRow(db, 'products', id, {}, isoSeconds());
  } else {
    issues.throwIfAny();
    writeColumns(db, id, columns);
  }
  return productById(db, companyId, id) as ProductRow;
}
