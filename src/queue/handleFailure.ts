import { Worker } from 'bullmq';
import type { JobRuntime } from './jobRuntime.js';
import type { QueueName } from './jobTypes.js';
import { isRateLimit, rateLimitWaitMs, unrecoverable, type JobFailure } from './jobFailure.js';

/**
 * Turns a failure into what BullMQ does next (invariant 8): fatal -> every queue pauses and the
 * job goes back to wait (it runs once the queues resume); 429 -> the whole queue waits the
 * platform's Retry-After (bounded) and the job goes back without spending an attempt;
 * retryable -> an attempt with exponential backoff; permanent -> no retry. The last two are failed
 * attempts, counted (erp_sync_job_failures_total).
 */
export async function handleFailure(
  failure: JobFailure,
  queue: QueueName,
  runtime: JobRuntime,
): Promise<never> {
  if (failure.kind === 'fatal') {
    await runtime.pause(failure.message, failure.code);
    // Back to wait without spending an attempt: it runs again once the key is accepted.
    throw Worker.RateLimitError();
  }
  if (isRateLimit(failure)) {
    await runtime.rateLimit(queue, rateLimitWaitMs(failure));
    throw Worker.RateLimitError();
  }
  runtime.recordJobFailure(queue, failure);
  if (failure.kind === 'retryable') throw new Error(failure.message);
  throw unrecoverable(failure);
}
