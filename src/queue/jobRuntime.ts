import type { Job } from 'bullmq';
import type { Logger } from 'pino';
import type { ApiOrder } from '../api/schemas.js';
import type { ItemCounts, RunOptions, RunSummary, SyncContext } from '../sync/frame/types.js';
import type { ImportHold } from './importHold.js';
import type { PushBatch } from '../sync/push/pushBatch.js';
import type { PipelineName, QueueName } from './jobTypes.js';
import type { JobFailure } from './jobFailure.js';

/** What processors get from the daemon: the pipelines' context and the daemon's reactions. */
export interface JobRuntime {
  ctx: SyncContext;
  logger: Logger;
  /** Aborted when the daemon shuts down: pipelines stop sending new requests. */
  shutdown: AbortSignal;
  runPipeline(name: PipelineName, ctx: SyncContext, options: RunOptions): Promise<RunSummary>;
  /** A fatal failure (the key refused): pause every queue. */
  pause(reason: string, code?: string): Promise<void>;
  /** The whole queue waits (BullMQ's worker.rateLimit): a 429 (the default reason), or a hold. */
  rateLimit(queue: QueueName, ms: number, reason?: string): Promise<void>;
  recordRun(summary: RunSummary): void;
  /** A job attempt that failed (retried or not): a metric. */
  recordJobFailure(queue: QueueName, failure: JobFailure): void;
  /** Holds the order imports while the ERP fails them in a row. */
  imports: ImportHold;
  /** Items handled outside a run (an import job's order), counted with the pipeline's items. */
  recordItems(pipeline: PipelineName, counts: ItemCounts): void;
  /** Adds a push job of `batch` (packed) as a child of the scan job `parent` (a BullMQ flow), sent under the lease of `scanOwner`. */
  enqueuePush(parent: Job, batch: PushBatch, scanOwner: string): Promise<void>;
  /** Whether a scan job is still waiting for (or running) its push jobs; false once gone with Redis. */
  flowAlive(scanJobId: string): Promise<boolean>;
  /**
   * The poll's orders to import, each claimed for one job (ImportClaims: no order in two live jobs):
   * those listed in full in `order-imports` jobs of many, the others in an `order-import` job each.
   * Returns how many were handed to a job now. `ordersAfter`: see ImportEnqueuer.enqueue.
   */
  enqueueImports(orderIds: number[], listed: Map<number, ApiOrder>, ordersAfter?: number): Promise<number>;
  /** Orders an `order-imports` job failed to import: each to an `order-import` job of its own. */
  handOverImports(orders: { orderId: number; listed?: ApiOrder }[]): Promise<void>;
  /** Orders decided in the store: their claims go. */
  releaseImports(orderIds: number[]): Promise<void>;
}
