import { runOrders } from '../sync/orders/orders.js';
import type { PipelineRun } from '../sync/frame/runInFrame.js';
import type { JobRuntime } from './jobRuntime.js';
import { defineRunJob } from './runJob.js';

/**
 * `orders-poll` on the runs queue: one orders run (new orders recorded as queued in the store,
 * changes of imported orders delivered, parked orders due) that enqueues one `order-import` job per
 * order to import instead of importing them itself.
 */
export const ordersPollJob = defineRunJob('orders-poll', 'orders', (runtime: JobRuntime) => ({
  run: (ctx, options) =>
    runOrders(ctx, options, async (run: PipelineRun, ids: number[], listed) => {
      run.summary.sent += await runtime.enqueueImports(ids, listed);
      run.summary.extra.importJobs = ids.length;
    }),
}));
