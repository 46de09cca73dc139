/**
 * Every pipeline, in the order run-once runs them when no --only is given (stated once, here).
 * Catalog comes first so that platform-side changes invalidate fingerprints before the pushes;
 * products after catalog (links exist) and before stock (a new SKU exists before its stock is
 * pushed); orders before stock, so that orders found are held back from the stock push (oversell guard).
 */
export const PIPELINE_ORDER = [
  'catalog',
  'products',
  'orders',
  'stock',
  'prices',
  'feedback',
  'erp-orders',
] as const;

export type PipelineName = (typeof PIPELINE_ORDER)[number];

export function isPipelineName(name: string): name is PipelineName {
  return (PIPELINE_ORDER as readonly string[]).includes(name);
}

/** The pipelines `erp-sync audit` compares (ERP against platform). */
export const AUDIT_PIPELINES = ['stock', 'prices', 'orders'] as const;
export type AuditPipeline = (typeof AUDIT_PIPELINES)[number];
