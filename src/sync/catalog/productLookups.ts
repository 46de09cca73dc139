import type { ApiProduct } from '../../api/schemas.js';
import type { ProductLink } from '../../store/index.js';
import type { SyncContext } from '../frame/types.js';

/**
 * The platform product with exactly this SKU (search is a substring match over several fields),
 * or null. A listed record that fails its schema but carries the SKU is fetched by id: an odd
 * record must never make us create the product a second time.
 */
export async function findProductBySku(ctx: SyncContext, sku: string): Promise<ApiProduct | null> {
  const matches: ApiProduct[] = [];
  for (let page = 1; ; page++) {
    const result = await ctx.client.products.list({ search: sku, per_page: 100, page });
    for (const product of result.data) if (product.sku === sku) matches.push(product);
    for (const { record } of result.invalid ?? []) {
      const raw = (record ?? {}) as { id?: unknown; sku?: unknown };
      if (raw.sku === sku && typeof raw.id === 'number') matches.push(await ctx.client.products.get(raw.id));
    }
    if (result.data.length + (result.invalid?.length ?? 0) === 0 || page >= result.meta.last_page) break;
  }
  return matches.reduce<ApiProduct | null>(
    (first, p) => (first === null || p.id < first.id ? p : first),
    null,
  );
}

/** The links of a platform product: the product itself and each variant with a SKU. */
export function linksOf(product: ApiProduct): ProductLink[] {
  const base = { sku: product.sku, productId: product.id, platformUpdatedAt: product.updated_at };
  return [
    { ...base, variantSku: null, variantId: null },
    ...(product.variants ?? [])
      .filter((variant) => variant.sku)
      .map((variant) => ({ ...base, variantSku: variant.sku!, variantId: variant.id })),
  ];
}

/** Every category id of the platform (the list is a tree: children are walked). */
export async function platformCategoryIds(ctx: SyncContext): Promise<Set<number>> {
  const ids = new Set<number>();
  const walk = (node: unknown): void => {
    const { id, children } = (node ?? {}) as { id?: unknown; children?: unknown };
    if (typeof id === 'number') ids.add(id);
    if (Array.isArray(children)) children.forEach(walk);
  };
  for (let page = 1; ; page++) {
    const result = await ctx.client.categories.list({ page, per_page: 100 });
    result.data.forEach(walk);
    if (result.data.length === 0 || page >= (result.meta.last_page ?? 1)) break;
  }
  return ids;
}
