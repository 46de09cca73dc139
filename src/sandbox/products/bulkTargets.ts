import type { Db } from '../db/openDatabase.js';
import { stmt } from '../db/statements.js';
import { validationError } from '../http/apiError.js';
import type { Fields } from '../http/fields.js';
import { Issues, isObject, normaliseSku, type Obj } from '../http/fields.js';

export const BULK_MAX = 1000;

interface ProductKey {
  id: number;
  type: 'simple' | 'variable';
  stock_quantity: number;
}
interface VariantKey {
  id: number;
  product_id: number;
  stock_quantity: number;
}

/** How an item named its target, echoed as sent in `not_found`. */
export type Identifier = { id?: number; sku?: string; variant_id?: number; variant_sku?: string };

export interface Target {
  product: ProductKey;
  variant: VariantKey | null;
}

/** The `items` array of a bulk body: 1 to `max` (1000 unless the sandbox was started stricter) objects, else one 422. */
export function bulkItems(body: Obj, max = BULK_MAX): Obj[] {
  const items = body.items;
  if (!Array.isArray(items)) throw validationError({ items: ['is required and must be an array'] });
  if (items.length === 0) throw validationError({ items: ['must contain at least one item'] });
  if (items.length > max) throw validationError({ items: [`must contain at most ${max} items`] });
  const issues = new Issues();
  items.forEach((item, i) => {
    if (!isObject(item)) issues.add(`items.${i}`, 'must be an object');
  });
  issues.throwIfAny();
  return items as Obj[];
}

/** Reads `id`/`sku` (exactly one) and optional `variant_id`/`variant_sku` (at most one) of item `i`. */
export function readIdentifier(f: Fields, issues: Issues, prefix: string): Identifier | null {
  const id = f.integer('id', { min: 1 });
  const sku = f.string('sku', { nonEmpty: true });
  const variantId = f.integer('variant_id', { min: 1 });
  const variantSku = f.string('variant_sku', { nonEmpty: true });
  if (!f.has('id') && !f.has('sku')) issues.add(`${prefix}.id`, 'id or sku is required');
  if (f.has('id') && f.has('sku')) issues.add(`${prefix}.sku`, 'send id or sku, not both');
  if (f.has('variant_id') && f.has('variant_sku'))
    issues.add(`${prefix}.variant_sku`, 'send variant_id or variant_sku, not both');
  if ((id ?? sku) == null) return null;
  const ident: Identifier = id != null ? { id } : { sku: sku as string };
  if (variantId != null) ident.variant_id = variantId;
  if (variantSku != null) ident.variant_sku = variantSku;
  return ident;
}

/** Looks targets up by index (one prepared statement per lookup, no scans). */
export class TargetResolver {
  constructor(
    private readonly db: Db,
    private readonly companyId: number,
  ) {}

  private productById = (id: number): ProductKey | undefined =>
    stmt<[number, number], ProductKey>(
      this.db,
      'SELECT id, type, stock_quantity FROM products WHERE id = ? AND company_id = ?',
    ).get(id, this.companyId);
  private productBySku = (sku: string): ProductKey | undefined =>
    stmt<[number, string], ProductKey>(
      this.db,
      'SELECT id, type, stock_quantity FROM products WHERE company_id = ? AND sku = ?',
    ).get(this.companyId, normaliseSku(sku));
  private variantById = (id: number): VariantKey | undefined =>
    stmt<[number, number], VariantKey>(
      this.db,
      'SELECT id, product_id, stock_quantity FROM variants WHERE id = ? AND company_id = ?',
    ).get(id, this.companyId);
  private variantBySku = (sku: string): VariantKey | undefined =>
    stmt<[number, string], VariantKey>(
      this.db,
      'SELECT id, product_id, stock_quantity FROM variants WHERE company_id = ? AND sku = ?',
    ).get(this.companyId, normaliseSku(sku));

  /**
   * The product (and variant) an identifier names, or null when nothing matches. A `sku` that is no
   * product's SKU but a variant's names that variant (ERPs often key stock by variant SKU).
   */
  resolve(ident: Identifier): Target | null {
    let product =
      ident.id !== undefined ? this.productById(ident.id) : this.productBySku(ident.sku as string);
    let variant: VariantKey | null = null;
    if (
      !product &&
      ident.sku !== undefined &&
      ident.variant_id === undefined &&
      ident.variant_sku === undefined
    ) {
      const v = this.variantBySku(ident.sku);
      if (v) {
        product = this.productById(v.product_id);
        variant = v;
      }
    }
    if (!product) return null;
    if (ident.variant_id !== undefined || ident.variant_sku !== undefined) {
      const v =
        ident.variant_id !== undefined
          ? this.variantById(ident.variant_id)
          : this.variantBySku(ident.variant_sku as string);
      if (!v || v.product_id !== product.id) return null;
      variant = v;
    }
    return { product, variant };
  }
}
