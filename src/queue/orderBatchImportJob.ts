import { Worker } from 'bullmq';
import type { ApiOrder } from '../api/schemas.js';
import { describeError } from '../domain/errors.js';
import { orderRepositoriesOf } from '../store/createOrderRepositories.js';
import { classifyFailure } from '../sync/frame/classifyFailure.js';
import { bindRun } from '../sync/frame/runInFrame.js';
import type { ItemCounts } from '../sync/frame/types.js';
import { ImportWrites } from '../sync/orders/importWrites.js';
import { readKnownOrders } from '../sync/orders/knownOrders.js';
import { importItemCounts, importPlatformOrder, type ImportOutcome } from '../sync/orders/orderImport.js';
import { handleFailure } from './handleFailure.js';
import { failureOfError, isRateLimit, type JobFailure } from './jobFailure.js';
import type { JobKind } from './jobKind.js';
import type { JobRuntime } from './jobRuntime.js';
import type { ImportBatchPayload } from './jobTypes.js';
import { ANSWERED, IMPORT_QUEUE } from './orderImportJob.js';

/** What an `order-imports` job returns (kept with the completed job). */
export interface ImportBatchResult {
  /** Each order's outcome, by platform order id. */
  outcomes: Record<string, ImportOutcome>;
  /** Orders this job could not import: each retried in an `order-import` job of its own. */
  retriedAlone: number[];
  /** Orders another job or run had decided before this one came to them. */
  decidedBefore: number[];
}

/**
 * `order-imports` on the imports queue: platform orders the list carried in full, imported one
 * after the other through the ERP adapter (idempotent on the platform order id), their outcomes
 * written to the store in one transaction at the end (each only after the ERP answered). An order
 * that fails is not retried here: it gets an `order-import` job of its own (backoff, attempts,
 * kept when it fails for good) and the others go on. While the ERP fails imports in a row
 * (runtime.imports), the job goes back to wait, without an attempt spent, with the orders it has
 * not decided; a fatal failure or a 429 does the same through handleFailure.
 */
export const orderBatchImportJob: JobKind<ImportBatchPayload, ImportBatchResult> = {
  name: 'order-imports',
  queue: IMPORT_QUEUE,
  async process(job, { runtime }) {
    await waitWhileHeld(runtime);
    const { ctx } = bindRun(runtime.ctx);
    const orders = job.data.orders;
    // An earlier attempt of this job (back from a hold) or another job may have decided some.
    const repos = orderRepositoriesOf(ctx.store);
    const queued = repos.seen.queuedAmong(orders.map((order) => order.id));
    const toImport = orders.filter((order) => queued.has(order.id));
    const known = readKnownOrders(repos, toImport);
    const writes = new ImportWrites(
      ctx.store,
      toImport.map((order) => order.id),
    );
    const result: ImportBatchResult = { outcomes: {}, retriedAlone: [], decidedBefore: [] };
    const failed: { orderId: number; listed: ApiOrder }[] = [];
    let stop: JobFailure | 'held' | 'shutdown' | null = null;
    try {
      for (const listed of orders) {
        if (!queued.has(listed.id)) {
          result.decidedBefore.push(listed.id);
          continue;
        }
        if (runtime.shutdown.aborted) stop = 'shutdown';
        else if (runtime.imports.waitMs() > 0) stop = 'held';
        if (stop) break;
        try {
          const outcome = await importPlatformOrder(ctx, listed.id, listed, writes.record, known);
          result.outcomes[listed.id] = outcome;
          if (ANSWERED.has(outcome)) runtime.imports.succeeded();
        } catch (error) {
          const failure = failureOfError(error);
          if (failure.kind === 'fatal' || isRateLimit(failure)) {
            stop = failure;
            break;
          }
          runtime.imports.failed(classifyFailure(error));
          runtime.recordJobFailure(IMPORT_QUEUE, failure);
          ctx.logger.warn(
            { orderId: listed.id, error: describeError(error) },
            'order not imported in its batch: retried in an import job of its own',
          );
          failed.push({ orderId: listed.id, listed });
        }
      }
    } finally {
      writes.flush();
    }
    runtime.recordItems('orders', sumCounts(Object.values(result.outcomes)));
    if (stop !== null) {
      // The orders not decided stay this job's: it goes back to wait and does them when it returns.
      if (stop === 'held') await waitWhileHeld(runtime);
      if (typeof stop === 'object') await handleFailure(stop, IMPORT_QUEUE, runtime);
      throw Worker.RateLimitError();
    }
    await runtime.handOverImports(failed);
    result.retriedAlone = failed.map((order) => order.orderId);
    await runtime.releaseImports(Object.keys(result.outcomes).map(Number));
    return result;
  },
};

/** While the imports are held, the queue waits and the job goes back to wait without an attempt spent. */
async function waitWhileHeld(runtime: JobRuntime): Promise<void> {
  const wait = runtime.imports.waitMs();
  if (wait <= 0) return;
  await runtime.rateLimit(IMPORT_QUEUE, wait, 'order imports held: the ERP failed the last ones');
  throw Worker.RateLimitError();
}

function sumCounts(outcomes: readonly ImportOutcome[]): ItemCounts {
  const total: Required<Pick<ItemCounts, 'applied' | 'rejected'>> = { applied: 0, rejected: 0 };
  for (const outcome of outcomes) {
    const counts = importItemCounts(outcome);
    total.applied += counts.applied ?? 0;
    total.rejected += counts.rejected ?? 0;
  }
  return total;
}
