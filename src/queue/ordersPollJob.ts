import { runOrders } from '../sync/orders/orders.js';
import type { PipelineRun } from '../sync/frame/runInFrame.js';
import type { JobRuntime } from './jobRuntime.js';
import { defineRunJob } from './runJob.js';

/**
 * `orders-poll` on the runs queue: one orders run (new orders recorded as queued in the store,
 * changes of imported orders delivered, parked orders due) that hands the orders to import to
 * import jobs instead of importing them itself (runtime.enqueueImports: `order-imports` jobs of up
 * to a list page of orders, an `order-import` job for an order that needs a GET). `sent`: the orders
 * handed over now; `extra.toImport`: all to import (some may be a live job's already).
 */
export const ordersPollJob = defineRunJob('orders-poll', 'orders', (runtime: JobRuntime) => ({
  run: (ctx, options) =>
    runOrders(ctx, options, async (run: PipelineRun, ids: number[], listed) => {
      run.summary.sent += await runtime.enqueueImports(ids, listed);
      run.summary.extra.toImport = ids.length;
    }),
}));
