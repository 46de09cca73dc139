import { Worker } from 'bullmq';
import { orderRepositoriesOf } from '../store/createOrderRepositories.js';
import type { Store } from '../store/index.js';
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
const ANSWERED = new Set<ImportOutcome>(['imported', 'already_in_erp', 'parked']);

/**
 * The job id of an order's import, derived from the platform order id so that BullMQ itself refuses
 * a second import job of the same order (two polls, two replicas). A parked order's retry carries
 * its attempt number: a new id per retry, never refused because the earlier attempt is retained.
 */
export function importJobId(store: Store, orderId: number): string {
  const parked = orderRepositoriesOf(store).parked.get(orderId);
  return parked ? `order-${orderId}-retry-${parked.attempts}` : `order-${orderId}`;
}

/**
 * `order-import` on the imports queue: fetches one platform order and imports it through the ERP
 * adapter, idempotent on the platform order id (the pipeline's `importPlatformOrder`). A transient
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
      return { orderId, outcome };
    } catch (error) {
      runtime.imports.failed(classifyFailure(error));
      return handleFailure(failureOfError(error), IMPORT_QUEUE, runtime);
    }
  },
};
