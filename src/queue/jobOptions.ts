import type { JobsOptions } from 'bullmq';
import type { QueueConfig } from '../config/daemonConfigSchema.js';

/**
 * What every job gets: attempts with exponential backoff for retryable failures, and bounded
 * retention (completed jobs go after an hour or the newest thousand, failed ones are kept longer
 * for `erp-sync jobs`), so Redis never grows without end.
 */
export function defaultJobOptions(queue: QueueConfig): JobsOptions {
  return {
    attempts: queue.attempts,
    backoff: { type: 'exponential', delay: Math.round(queue.backoffSeconds * 1000) },
    removeOnComplete: { age: queue.keepCompletedSeconds, count: queue.keepCompleted },
    removeOnFail: { age: queue.keepFailedSeconds, count: queue.keepFailed },
  };
}

/**
 * Lock and stalled-check timing: a job of a killed process is back in `wait` within about
 * lockDuration + 2 stalled checks of a restart (well under 15 s), while a live worker renews its
 * lock every lockDuration / 2 (pipelines are asynchronous, so renewal is never starved for long).
 */
export const WORKER_TIMING = {
  lockDuration: 8_000,
  stalledInterval: 3_000,
  // A stall is a crash, not a poison job: runs are idempotent, so a stalled job is always redone.
  maxStalledCount: 10,
} as const;
