import { UnrecoverableError } from 'bullmq';
import type { BatchOutcome, PushBatch } from '../sync/push/pushBatch.js';
import { pushBatch } from '../sync/push/pushBatch.js';
import { enterFlow } from '../sync/frame/pipelineLease.js';
import { bindRun } from '../sync/frame/runInFrame.js';
import { handleFailure } from './handleFailure.js';
import { failureOfError, failureOfRun } from './jobFailure.js';
import type { JobKind } from './jobKind.js';
import type { PushPayload, QueueName } from './jobTypes.js';
import { readPushBatch } from './packedBatch.js';
import { PushPayloadError } from './PushPayloadError.js';

export const PUSH_QUEUE: QueueName = 'pushes';

/** A push job as a child of its scan's flow: a batch that failed for good does not hold the scan back (the scan reports it, the next one resends). */
export const PUSH_CHILD_OPTIONS = { ignoreDependencyOnFailure: true } as const;

/**
 * What a push job returns to its scan (the parent sums them up): counts, not the batch's rejected
 * keys (up to every key of it), which BullMQ would keep in Redis and hand back all at once.
 */
export interface PushResult extends Omit<BatchOutcome, 'rejectedKeys'> {
  items: number;
  requests: number;
}

/** The job's batch, in either layout; data this version cannot read fails the job for good. */
function batchOf(data: PushPayload): PushBatch {
  try {
    return readPushBatch(data.batch);
  } catch (error) {
    throw error instanceof PushPayloadError ? new UnrecoverableError(error.message) : error;
  }
}

/**
 * `stock-push` / `prices-push` on the pushes queue: ONE bulk request of a scan's batch, sent and
 * recorded by the pipeline's `pushBatch` (items a later scan confirmed are skipped; every store
 * write carries the batch's generation). A transient failure is retried with backoff, a 429 makes
 * the whole queue wait, a refused key pauses everything.
 */
export const definePushJob = (name: 'stock-push' | 'prices-push'): JobKind<PushPayload, PushResult> => ({
  name,
  queue: PUSH_QUEUE,
  options: PUSH_CHILD_OPTIONS,
  trace: ({ batch }) => ({ span: `push ${batch.pipeline}`, pipeline: batch.pipeline }),
  async process(job, { runtime, signal }) {
    const batch = batchOf(job.data);
    const { scanOwner } = job.data;
    const { ttlSeconds, waitSeconds } = runtime.ctx.config.sync.lease;
    // The flow is the job's parent (a scan, or an `audit --fix` heal); a job cut loose from it sends nothing.
    const flowId = job.parent?.id;
    const entered = flowId
      ? await enterFlow(runtime.ctx.store, batch.pipeline, {
          scanOwner,
          flowId,
          ttlMs: ttlSeconds * 1000,
          waitMs: waitSeconds * 1000,
          ...(signal ? { signal } : {}),
          alive: () => runtime.flowAlive(flowId),
        })
      : 'ended';
    if (entered === 'ended')
      throw new UnrecoverableError(
        `its ${batch.pipeline} flow has ended (failed or lost): the batch is not sent`,
      );
    if (entered === 'busy')
      throw new Error(`another run holds sync:${batch.pipeline}; the batch is tried again`);
    const { ctx, counter } = bindRun(runtime.ctx);
    let outcome: BatchOutcome;
    try {
      outcome = await pushBatch(ctx, batch);
    } catch (error) {
      // Only a fatal error (the key refused) or a bug gets here.
      return handleFailure(failureOfError(error), PUSH_QUEUE, runtime);
    }
    if (outcome.error) await handleFailure(failureOfRun(outcome.error), PUSH_QUEUE, runtime);
    const { rejectedKeys: _rejectedKeys, ...counts } = outcome;
    return { ...counts, items: batch.items.length, requests: counter.total };
  },
});
