import type { Db } from '../db/openDatabase.js';
import { updateRow } from '../db/statements.js';
import { Fields, Issues } from '../http/fields.js';
import type { Obj } from '../http/fields.js';
import { isoSeconds } from '../http/time.js';
import { PRICE_FIELDS, readPriceFields } from './productInput.js';
import { bulkItems, readIdentifier, TargetResolver, type Identifier, type Target } from './bulkTargets.js';

/**
 * PATCH /products/prices/bulk. Items name a product by `id` or `sku` (optionally a variant, whose
 * `price` and `sale_price` are set); all items are checked before anything is written.
 */
export function bulkPrices(
  db: Db,
  companyId: number,
  body: Obj,
  bulkMax?: number,
): { updated: number; not_found: Identifier[] } {
  const items = bulkItems(body, bulkMax);
  const issues = new Issues();
  const parsed = items.map((item, i) => {
    const prefix = `items.${i}`;
    const f = new Fields(item, issues, prefix);
    const ident = readIdentifier(f, issues, prefix);
    const values = readPriceFields(f);
    if (!PRICE_FIELDS.some((k) => f.has(k)))
      issues.add(`${prefix}.price`, 'at least one of price, sale_price, cost_price, vat_rate is required');
    if (f.has('variant_id') || f.has('variant_sku'))
      for (const k of ['cost_price', 'vat_rate'])
        if (f.has(k)) issues.add(`${prefix}.${k}`, 'is set on the product, not on a variant');
    return { ident, values };
  });
  issues.throwIfAny();
  const resolver = new TargetResolver(db, companyId);
  const notFoundList: Identifier[] = [];
  const writes: { target: Target; values: Record<string, unknown> }[] = [];
  parsed.forEach(({ ident, values }, i) => {
    const target = resolver.resolve(ident as Identifier);
    if (!target) notFoundList.push(ident as Identifier);
    else writes.push({ target, values });
    if (target?.variant)
      for (const k of ['cost_price', 'vat_rate'])
        if (k in values) issues.add(`items.${i}.${k}`, 'is set on the product, not on a variant');
  });
  issues.throwIfAny();
  const now = isoSeconds();
  for (const { target, values } of writes) {
    if (target.variant) updateRow(db, 'variants', target.variant.id, values);
    updateRow(db, 'products', target.product.id, target.variant ? {} : values, now);
  }
  return { updated: writes.length, not_found: notFoundList };
}
