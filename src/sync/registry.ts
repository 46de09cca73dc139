import { runCatalog } from './catalog.js';
import { runErpOrders } from './erpOrders.js';
import { runFeedback } from './feedback.js';
import { runOrders } from './orders.js';
import { runPrices } from './prices.js';
import { runStock } from './stock.js';
import type { Pipeline } from './types.js';

/**
 * Every pipeline by name, in the order run-once runs them when no --only is given.
 * Catalog comes first so that platform-side changes invalidate fingerprints before the pushes.
 * Adding a pipeline is one line here.
 */
export const PIPELINES: Record<string, Pipeline> = {
  catalog: runCatalog,
  // Before stock: orders found here are held back from the stock push (oversell guard).
  orders: runOrders,
  stock: runStock,
  prices: runPrices,
  feedback: runFeedback,
  'erp-orders': runErpOrders,
};

export function pipelineNames(): string[] {
  return Object.keys(PIPELINES);
}

export function getPipeline(name: string): Pipeline | undefined {
  return Object.hasOwn(PIPELINES, name) ? PIPELINES[name] : undefined;
}
