import { runCatalog } from './catalog/catalog.js';
import { runErpOrders } from './orders/erpOrders.js';
import { runFeedback } from './orders/feedback.js';
import { runOrders } from './orders/orders.js';
import type { PipelineName } from '../domain/pipelineNames.js';
import { runPrices } from './push/prices.js';
import { runProducts } from './catalog/products.js';
import { runStock } from './push/stock.js';
import type { Pipeline } from './frame/types.js';

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
