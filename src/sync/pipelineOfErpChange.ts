import type { ErpChange } from '../erp/ErpWatch.js';
import type { PipelineName } from '../domain/pipelineNames.js';

/**
 * The pipeline whose scan an ERP change calls for (an adapter's watch reports the change; the
 * daemon enqueues this pipeline's scan). Null when no pipeline reads that part of the ERP.
 */
const PIPELINE_OF_ERP_CHANGE = {
  stock: 'stock',
  prices: 'prices',
  products: 'products',
  orderEvents: 'feedback',
  outgoingOrders: 'erp-orders',
} as const satisfies Record<ErpChange, PipelineName | null>;

export function pipelineOfErpChange(change: ErpChange): PipelineName | null {
  return PIPELINE_OF_ERP_CHANGE[change];
}
