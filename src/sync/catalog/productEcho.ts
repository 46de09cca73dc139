import type { ApiProduct } from '../../api/schemas.js';
import type { Store } from '../../store/index.js';
import { fieldsChangedOnPlatform } from './productFields.js';

/**
 * For the catalog: the product fields the products pipeline wrote whose value the platform no
 * longer holds (changed on the platform). A value equal to ours is the echo of our own write.
 */
export function productFieldsChangedOnPlatform(
  store: Store,
  products: readonly ApiProduct[],
): { sku: string; remove: string[] }[] {
  const acked = store.products.fingerprints.getMany(products.map((product) => product.sku));
  if (acked.size === 0) return [];
  const out: { sku: string; remove: string[] }[] = [];
  for (const product of products) {
    const fields = acked.get(product.sku);
    if (!fields) continue;
    const remove = fieldsChangedOnPlatform(fields, product as Record<string, unknown>);
    if (remove.length) out.push({ sku: product.sku, remove });
  }
  return out;
}
