import { createHash } from 'node:crypto';
import type { ProductCreateInput } from '../../api/inputs.js';
import type { ProductsConfig } from '../../config.js';
import type { ProductRecord } from '../../domain/records.js';
import type { FieldFingerprints } from '../../store/ProductFingerprintRepository.js';

/** Writable product fields as the API spells them; each is its own fingerprinted field group. */
export type ProductWire = Omit<ProductCreateInput, 'name' | 'type'> & { name?: string };

/** Sent when a product is created only: the stock pipeline owns stock after that. */
const CREATE_ONLY = new Set(['stock_quantity']);

/** Record property -> spec field, in the order the API lists them. */
const FIELD_OF = [
  ['name', 'name'],
  ['status', 'status'],
  ['ean', 'ean'],
  ['mpn', 'mpn'],
  ['brandId', 'brand_id'],
  ['categoryId', 'category_id'],
  ['price', 'price'],
  ['salePrice', 'sale_price'],
  ['costPrice', 'cost_price'],
  ['vatRate', 'vat_rate'],
  ['stockQuantity', 'stock_quantity'],
  ['trackStock', 'track_stock'],
  ['highlights', 'highlights'],
  ['shortDescription', 'short_description'],
  ['longDescription', 'long_description'],
  ['weightGrams', 'weight_grams'],
  ['lengthMm', 'length_mm'],
  ['widthMm', 'width_mm'],
  ['heightMm', 'height_mm'],
  ['metaTitle', 'meta_title'],
  ['metaDescription', 'meta_description'],
] as const satisfies readonly (readonly [keyof ProductRecord, keyof ProductWire])[];

/** Brand and category ids a record names: by id, or by a name the configuration maps to an id. */
export interface Taxonomy {
  /** Category ids of the platform (null: not read, the platform checks them). */
  categoryIds: ReadonlySet<number> | null;
}

function lookupName(map: Record<string, number>, name: string): number | undefined {
  if (map[name] !== undefined) return map[name];
  const lower = name.toLowerCase();
  for (const [key, id] of Object.entries(map)) if (key.toLowerCase() === lower) return id;
  return undefined;
}

/**
 * The record's writable fields as the API spells them, without platform-owned ones; or why it
 * cannot be sent (a brand or category that does not exist). Absent fields are not sent.
 */
export function productWire(
  record: ProductRecord,
  config: ProductsConfig,
  taxonomy: Taxonomy,
): { wire: ProductWire } | { reason: string } {
  const resolved: ProductRecord = { ...record };
  const reasons: string[] = [];
  if (record.brandId === undefined && record.brand !== undefined) {
    const id = lookupName(config.brands, record.brand);
    if (id === undefined) reasons.push(`brand ${JSON.stringify(record.brand)} is not in products.brands`);
    else resolved.brandId = id;
  } else if (record.brandId !== undefined && Object.keys(config.brands).length > 0) {
    if (!Object.values(config.brands).includes(record.brandId))
      reasons.push(`brand_id ${record.brandId} is not one of products.brands`);
  }
  if (record.categoryId === undefined && record.category !== undefined) {
    const id = lookupName(config.categories, record.category);
    if (id === undefined)
      reasons.push(`category ${JSON.stringify(record.category)} is not in products.categories`);
    else resolved.categoryId = id;
  }
  if (
    resolved.categoryId !== undefined &&
    taxonomy.categoryIds !== null &&
    !taxonomy.categoryIds.has(resolved.categoryId)
  )
    reasons.push(`category_id ${resolved.categoryId} does not exist on the platform`);
  if (reasons.length) return { reason: reasons.join('; ') };
  const owned = new Set<string>(config.platformOwned);
  const wire: Record<string, unknown> = {};
  for (const [prop, field] of FIELD_OF) {
    const value = resolved[prop];
    if (value !== undefined && !owned.has(field)) wire[field] = value;
  }
  return { wire: wire as ProductWire };
}

/** The body of POST /products: every field, the type and the variants (fixed at creation). */
export function createBody(record: ProductRecord, wire: ProductWire): ProductCreateInput {
  const body: ProductCreateInput = { ...wire, name: record.name, sku: record.sku };
  if (record.type) body.type = record.type;
  if (record.variants?.length) {
    (body as ProductCreateInput & { variants: unknown[] }).variants = record.variants.map((v) => {
      const variant: Record<string, unknown> = { sku: v.sku, name: v.name };
      if (v.price !== undefined) variant.price = v.price;
      if (v.salePrice !== undefined) variant.sale_price = v.salePrice;
      if (v.stockQuantity !== undefined) variant.stock_quantity = v.stockQuantity;
      return variant;
    });
  }
  return body;
}

/** Short values are kept as they are (readable in the store); long ones as a digest. */
export function fieldFingerprint(value: unknown): string {
  const text = JSON.stringify(normalise(value) ?? null);
  return text.length <= 48 ? text : `#${createHash('sha1').update(text).digest('base64url').slice(0, 22)}`;
}

/** Fingerprints of the fields a PATCH may send (create-only ones excluded). */
export function fingerprintsOf(wire: ProductWire): FieldFingerprints {
  const out: FieldFingerprints = {};
  for (const [field, value] of Object.entries(wire)) {
    if (!CREATE_ONLY.has(field) && field !== 'sku') out[field] = fieldFingerprint(value);
  }
  return out;
}

/** The fields whose value differs from the acknowledged one: the body of the PATCH. */
export function changedFields(wire: ProductWire, acked: FieldFingerprints | undefined): Partial<ProductWire> {
  const out: Record<string, unknown> = {};
  for (const [field, hash] of Object.entries(fingerprintsOf(wire))) {
    if (acked?.[field] !== hash) out[field] = (wire as Record<string, unknown>)[field];
  }
  return out as Partial<ProductWire>;
}

/**
 * Fields whose acknowledged value the platform no longer holds (a change made on the platform):
 * the catalog drops them, so the next products run re-asserts the ERP value. Equal: our own echo.
 */
export function fieldsChangedOnPlatform(
  acked: FieldFingerprints,
  platform: Record<string, unknown>,
): string[] {
  // A field the platform's listing leaves out says nothing (a summary record is not a change).
  return Object.entries(acked)
    .filter(([field, hash]) => field in platform && fieldFingerprint(platform[field]) !== hash)
    .map(([field]) => field);
}

/** The platform stores money as a number and may round: compare to the cent, like prices. */
function normalise(value: unknown): unknown {
  return typeof value === 'number' && !Number.isInteger(value) ? Math.round(value * 100) / 100 : value;
}
