import { Worker } from 'bullmq';
import { importItemCounts, importPlatformOrder, type ImportOutcome } from '../sync/orders/orderImport.js';
import { classifyFailure } from '../sync/frame/classifyFailure.js';
import { bindRun } from '../sync/frame/runInFrame.js';
import { handleFailure } from './handleFailure.js';
import type { JobKind } from './jobKind.js';
import type { ImportPayload, QueueName } from './jobTypes.js';
import { failureOfError } from './jobFailure.js';

export const IMPORT_QUEUE: QueueName = 'imports';

/** What an import job returns (kept with the completed job). */
export interface ImportResult {
  orderId: number;
  outcome: ImportOutcome;
}

/** Outcomes after which the ERP has answered (an order it took, had, or refused). */
export const ANSWERED: ReadonlySet<ImportOutcome> = new Set<ImportOutcome>([
  'imported',
  'already_in_erp',
  'parked',
]);

/**
 * `order-import` on the imports queue: fetches one platform order (unless the list carried it in
 * full) and imports it through the ERP adapter, idempotent on the platform order id (the
 * pipeline's `importPlatformOrder`): an order queued by an earlier poll, a parked one due, or one
 * an `order-imports` job failed to import. A transient
 * failure is retried with backoff (the order stays queued in the store either way). While the ERP
 * fails imports in a row (runtime.imports), a job goes back to wait without an attempt spent and
 * the queue waits: one import per hold asks the ERP, not every order.
 */
export const orderImportJob: JobKind<ImportPayload, ImportResult> = {
  name: 'order-import',
  queue: IMPORT_QUEUE,
  async process(job, { runtime }) {
    const wait = runtime.imports.waitMs();
    if (wait > 0) {
      await runtime.rateLimit(IMPORT_QUEUE, wait, 'order imports held: the ERP failed the last ones');
      throw Worker.RateLimitError();
    }
    const { ctx } = bindRun(runtime.ctx);
    try {
      const { orderId, listed } = job.data;
      const outcome = await importPlatformOrder(ctx, orderId, listed);
      runtime.recordItems('orders', importItemCounts(outcome));
      if (ANSWERED.has(outcome)) runtime.imports.succeeded();
      await runtime.releaseImports([orderId]);
      return { orderId, outcome };
    } catch (error) {
      runtime.imports.failed(classifyFailure(error));
      return handleFailure(failureOfError(error), IMPORT_QUEUE, runtime);
    }
  },
};
