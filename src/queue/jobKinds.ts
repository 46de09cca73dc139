import { catalogJob } from './catalogJob.js';
import { erpOrdersJob } from './erpOrdersJob.js';
import { feedbackJob } from './feedbackJob.js';
import type { JobName, PipelineName } from './jobTypes.js';
import { ordersPollJob } from './ordersPollJob.js';
import { pricesScanJob } from './pricesScanJob.js';
import { productsJob } from './productsJob.js';
import type { RunJobKind } from './runJob.js';
import { stockScanJob } from './stockScanJob.js';

/** The run job of each pipeline: what a schedule or `erp-sync sync` enqueues. */
export const RUN_JOBS: Record<PipelineName, RunJobKind> = {
  catalog: catalogJob,
  products: productsJob,
  orders: ordersPollJob,
  stock: stockScanJob,
  prices: pricesScanJob,
  feedback: feedbackJob,
  'erp-orders': erpOrdersJob,
};

export function runJobByName(name: string): RunJobKind | undefined {
  return Object.values(RUN_JOBS).find((kind) => kind.name === (name as JobName));
}
