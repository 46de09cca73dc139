import type { Db } from '../db/openDatabase.js';
import { stmt } from '../db/statements.js';

export interface ProductRow {
  id: number;
  company_id: number;
  type: 'simple' | 'variable';
  status: string;
  name: string;
  sku: string;
  slug: string;
  ean: string | null;
  mpn: string | null;
  brand_id: number | null;
  category_id: number | null;
  price: number;
  sale_price: number | null;
  cost_price: number | null;
  vat_rate: number;
  stock_quantity: number;
  track_stock: number;
  highlights: string;
  short_description: string | null;
  long_description: string | null;
  weight_grams: number | null;
  length_mm: number | null;
  width_mm: number | null;
  height_mm: number | null;
  meta_title: string | null;
  meta_description: string | null;
  created_at: string;
  updated_at: string;
}

export interface VariantRow {
  id: number;
  product_id: number;
  sku: string;
  name: string;
  price: number;
  sale_price: number | null;
  stock_quantity: number;
}

const group = <T extends { product_id: number }>(rows: T[]): Map<number, T[]> => {
  const map = new Map<number, T[]>();
  for (const row of rows) {
    const list = map.get(row.product_id);
    if (list) list.push(row);
    else map.set(row.product_id, [row]);
  }
  return map;
};

const unfilteredCounts = new WeakMap<Db, Map<number, number>>();

/** The company's product count; cached because COUNT(*) over a large catalog costs milliseconds per page. */
export function productCount(db: Db, companyId: number): number {
  let counts = unfilteredCounts.get(db);
  if (!counts) unfilteredCounts.set(db, (counts = new Map()));
  let n = counts.get(companyId);
  if (n === undefined) {
    n =
      stmt<[number], { n: number }>(db, 'SELECT COUNT(*) AS n FROM products WHERE company_id = ?').get(
        companyId,
      )?.n ?? 0;
    counts.set(companyId, n);
  }
  return n;
}

/** Call whenever products are inserted (or a write that inserted them is rolled back). */
export function forgetProductCount(db: Db, companyId: number): void {
  unfilteredCounts.get(db)?.delete(companyId);
}

export function productById(db: Db, companyId: number, id: number): ProductRow | undefined {
  return stmt<[number, number], ProductRow>(db, 'SELECT * FROM products WHERE id = ? AND company_id = ?').get(
    id,
    companyId,
  );
}

export function variantsOf(db: Db, productId: number): VariantRow[] {
  return stmt<[number], VariantRow>(
    db,
    'SELECT id, product_id, sku, name, price, sale_price, stock_quantity FROM variants WHERE product_id = ? ORDER BY position, id',
  ).all(productId);
}

/** Every change to a product moves its `updated_at`. */
export function touchProducts(db: Db, ids: Iterable<number>, at: string): void {
  const s = stmt<[string, number]>(db, 'UPDATE products SET updated_at = ? WHERE id = ?');
  for (const id of ids) s.run(at, id);
}

/** A variable product's own stock is the sum of its variants' stock. */
export function syncVariableStock(db: Db, productId: number): void {
  stmt<[number, number]>(
    db,
    'UPDATE products SET stock_quantity = (SELECT COALESCE(SUM(stock_quantity), 0) FROM variants WHERE product_id = ?) WHERE id = ?',
  ).run(productId, productId);
}

/** The full product records, relations loaded with one query per relation for the whole page. */
export function serializeProducts(db: Db, rows: ProductRow[]): Record<string, unknown>[] {
  if (rows.length === 0) return [];
  const ids = JSON.stringify(rows.map((r) => r.id));
  const inIds = 'IN (SELECT value FROM json_each(?))';
  const variants = group(
    stmt<[string], VariantRow>(
      db,
      `SELECT id, product_id, sku, name, price, sale_price, stock_quantity FROM variants WHERE product_id ${inIds} ORDER BY position, id`,
    ).all(ids),
  );
  const images = group(
    stmt<[string], { id: number; product_id: number; url: string; alt: string | null; position: number }>(
      db,
      `SELECT id, product_id, url, alt, position FROM images WHERE product_id ${inIds} ORDER BY position, id`,
    ).all(ids),
  );
  const tags = group(
    stmt<[string], { id: number; product_id: number; name: string; color: string | null }>(
      db,
      `SELECT t.id, pt.product_id, t.name, t.color FROM product_tags pt JOIN tags t ON t.id = pt.tag_id
       WHERE pt.product_id ${inIds} ORDER BY t.id`,
    ).all(ids),
  );
  const brandIds = JSON.stringify([...new Set(rows.map((r) => r.brand_id).filter((x) => x !== null))]);
  const categoryIds = JSON.stringify([...new Set(rows.map((r) => r.category_id).filter((x) => x !== null))]);
  const brands = new Map(
    stmt<[string], { id: number; name: string }>(db, `SELECT id, name FROM brands WHERE id ${inIds}`)
      .all(brandIds)
      .map((b) => [b.id, b]),
  );
  const categories = new Map(
    stmt<[string], { id: number; name: string }>(db, `SELECT id, name FROM categories WHERE id ${inIds}`)
      .all(categoryIds)
      .map((c) => [c.id, c]),
  );
  return rows.map((r) => ({
    id: r.id,
    type: r.type,
    status: r.status,
    name: r.name,
    sku: r.sku,
    slug: r.slug,
    ean: r.ean,
    mpn: r.mpn,
    brand_id: r.brand_id,
    category_id: r.category_id,
    price: r.price,
    sale_price: r.sale_price,
    cost_price: r.cost_price,
    vat_rate: r.vat_rate,
    stock_quantity: r.stock_quantity,
    track_stock: r.track_stock === 1,
    highlights: JSON.parse(r.highlights) as string[],
    short_description: r.short_description,
    long_description: r.long_description,
    weight_grams: r.weight_grams,
    length_mm: r.length_mm,
    width_mm: r.width_mm,
    height_mm: r.height_mm,
    meta_title: r.meta_title,
    meta_description: r.meta_description,
    brand: r.brand_id !== null ? (brands.get(r.brand_id) ?? null) : null,
    category: r.category_id !== null ? (categories.get(r.category_id) ?? null) : null,
    variants: (variants.get(r.id) ?? []).map((v) => ({
      id: v.id,
      sku: v.sku,
      name: v.name,
      price: v.price,
      sale_price: v.sale_price,
      stock_quantity: v.stock_quantity,
    })),
    images: (images.get(r.id) ?? []).map((i) => ({ id: i.id, url: i.url, alt: i.alt, position: i.position })),
    tags: (tags.get(r.id) ?? []).map((t) => ({ id: t.id, name: t.name, color: t.color })),
    created_at: r.created_at,
    updated_at: r.updated_at,
  }));
}

export function serializeProduct(db: Db, row: ProductRow): Record<string, unknown> {
  return serializeProducts(db, [row])[0] ?? {};
}
