import { runOrders } from '../sync/orders/orders.js';
import type { PipelineRun } from '../sync/frame/runInFrame.js';
import type { JobRuntime } from './jobRuntime.js';
import { defineRunJob } from './runJob.js';

/**
 * `orders-poll` on the runs queue: one orders run (new orders recorded as queued in the store,
 * changes of imported orders delivered, parked orders due) that hands the orders to import to
 * import jobs instead of importing them itself (runtime.enqueueImports): each list page's new
 * orders go to an `order-imports` job as soon as the page is recorded, so the imports run while
 * older pages are listed; then every queued order and parked one due (the claims keep those a
 * live job holds from a second job; an order that needs a GET gets an `order-import` job of its
 * own). `sent`: the orders handed over; `extra.toImport`: all to import (some may be a live job's
 * already).
 */
export const ordersPollJob = defineRunJob('orders-poll', 'orders', (runtime: JobRuntime) => ({
  run: (ctx, options) => {
    const toImport = new Set<number>();
    return runOrders(ctx, options, {
      async found(run: PipelineRun, ids, listed, ordersAfter) {
        for (const id of ids) toImport.add(id);
        run.summary.sent += await runtime.enqueueImports(ids, listed, ordersAfter);
      },
      async all(run: PipelineRun, ids, listed) {
        for (const id of ids) toImport.add(id);
        run.summary.sent += await runtime.enqueueImports(ids, listed);
        run.summary.extra.toImport = toImport.size;
      },
    });
  },
}));
