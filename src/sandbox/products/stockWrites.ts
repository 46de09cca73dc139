import type { Db } from '../db/openDatabase.js';
import { stmt } from '../db/statements.js';
import { notFound, validationError } from '../http/apiError.js';
import { Fields, Issues, MAX_INTEGER, type Obj } from '../http/fields.js';
import { isoSeconds } from '../http/time.js';
import { bulkItems, readIdentifier, TargetResolver, type Identifier, type Target } from './bulkTargets.js';
import { productById, syncVariableStock, variantsOf, type ProductRow } from './productRepo.js';

interface Change {
  quantity?: number;
  delta?: number;
}

function readChange(f: Fields, issues: Issues, prefix: string): Change | null {
  const quantity = f.integer('quantity', { min: 0 });
  const delta = f.integer('delta');
  const path = (k: string): string => (prefix ? `${prefix}.${k}` : k);
  if (!f.has('quantity') && !f.has('delta')) issues.add(path('quantity'), 'quantity or delta is required');
  if (f.has('quantity') && f.has('delta')) issues.add(path('delta'), 'send quantity or delta, not both');
  if (quantity != null) return { quantity };
  if (delta != null) return { delta };
  return null;
}

const apply = (current: number, change: Change): number => change.quantity ?? current + (change.delta ?? 0);

/** Why a stock result is refused (below 0 or above the integer bound), or null when it is fine. */
function refusal(value: number, current: number): string | null {
  if (value < 0) return `would make the stock negative (current ${current})`;
  if (value > MAX_INTEGER) return `would make the stock exceed ${MAX_INTEGER} (current ${current})`;
  return null;
}

function writeTargets(db: Db, next: Map<string, { target: Target; value: number; before: number }>): void {
  const now = isoSeconds();
  const touched = new Set<number>();
  const variable = new Set<number>();
  const setProduct = stmt<[number, string, number]>(
    db,
    'UPDATE products SET stock_quantity = ?, updated_at = ? WHERE id = ?',
  );
  const setVariant = stmt<[number, number]>(db, 'UPDATE variants SET stock_quantity = ? WHERE id = ?');
  for (const { target, value, before } of next.values()) {
    if (value === before) continue;
    if (target.variant) {
      setVariant.run(value, target.variant.id);
      variable.add(target.product.id);
      touched.add(target.product.id);
    } else {
      setProduct.run(value, now, target.product.id);
    }
  }
  const touch = stmt<[string, number]>(db, 'UPDATE products SET updated_at = ? WHERE id = ?');
  for (const id of variable) syncVariableStock(db, id);
  for (const id of touched) touch.run(now, id);
}

const keyOf = (t: Target): string => (t.variant ? `v${t.variant.id}` : `p${t.product.id}`);

/** PATCH /products/{id}/stock. */
export function updateStock(db: Db, companyId: number, id: number, body: Obj): ProductRow {
  const product = productById(db, companyId, id);
  if (!product) throw notFound('Product');
  const issues = new Issues();
  const f = new Fields(body, issues);
  const change = readChange(f, issues, '');
  const variantId = f.integer('variant_id', { min: 1 });
  issues.throwIfAny();
  let target: Target;
  if (variantId != null) {
    const variant = variantsOf(db, id).find((v) => v.id === variantId);
    if (!variant) throw validationError({ variant_id: ['does not belong to this product'] });
    target = { product, variant };
  } else {
    if (product.type === 'variable')
      throw validationError({ variant_id: ['is required: a variable product’s stock is set per variant'] });
    target = { product, variant: null };
  }
  const before = target.variant ? target.variant.stock_quantity : product.stock_quantity;
  const value = apply(before, change as Change);
  const refused = refusal(value, before);
  if (refused) throw validationError({ delta: [refused] });
  writeTargets(db, new Map([[keyOf(target), { target, value, before }]]));
  return productById(db, companyId, id) as ProductRow;
}

/**
 * PATCH /products/stock/bulk. Every item is checked before anything is written: one invalid item
 * makes the whole request a 422. Items naming nothing are echoed in `not_found` as sent.
 */
export function bulkStock(
  db: Db,
  companyId: number,
  body: Obj,
  bulkMax?: number,
): { updated: number; not_found: Identifier[] } {
  const items = bulkItems(body, bulkMax);
  const issues = new Issues();
  const parsed = items.map((item, i) => {
    const f = new Fields(item, issues, `items.${i}`);
    return { ident: readIdentifier(f, issues, `items.${i}`), change: readChange(f, issues, `items.${i}`) };
  });
  issues.throwIfAny();
  const resolver = new TargetResolver(db, companyId);
  const notFoundList: Identifier[] = [];
  const next = new Map<string, { target: Target; value: number; before: number }>();
  let updated = 0;
  parsed.forEach(({ ident, change }, i) => {
    const target = resolver.resolve(ident as Identifier);
    if (!target) {
      notFoundList.push(ident as Identifier);
      return;
    }
    if (target.product.type === 'variable' && !target.variant) {
      issues.add(`items.${i}.variant_id`, 'is required: a variable product’s stock is set per variant');
      return;
    }
    const key = keyOf(target);
    const before = target.variant ? target.variant.stock_quantity : target.product.stock_quantity;
    const current = next.get(key)?.value ?? before;
    const value = apply(current, change as Change);
    const refused = refusal(value, current);
    if (refused) {
      issues.add(`items.${i}.delta`, refused);
      return;
    }
    next.set(key, { target, value, before });
    updated += 1;
  });
  issues.throwIfAny();
  writeTargets(db, next);
  return { updated, not_found: notFoundList };
}
