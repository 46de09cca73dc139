import { runCatalog } from './catalog.js';
import { runErpOrders } from './erpOrders.js';
import { runFeedback } from './feedback.js';
import { runOrders } from './orders.js';
import type { PipelineName } from './pipelineNames.js';
import { runPrices } from './prices.js';
import { runProducts } from './products.js';
import { runStock } from './stock.js';
import type { Pipeline } from './types.js';

/**
 * Every pipeline by name (the run order is PIPELINE_ORDER). Each one runs in the one frame
 * (runInFrame); adding a pipeline is a name in PIPELINE_ORDER and one line here.
 */
export const PIPELINES: Readonly<Record<PipelineName, Pipeline>> = {
  catalog: runCatalog,
  products: runProducts,
  orders: runOrders,
  stock: runStock,
  prices: runPrices,
  feedback: runFeedback,
  'erp-orders': runErpOrders,
};
