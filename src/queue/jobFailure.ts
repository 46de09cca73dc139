import { UnrecoverableError } from 'bullmq';
import type { ErrorCode } from '../domain/errors.js';
import { classifyFailure } from '../sync/frame/classifyFailure.js';
import type { RunFailure, RunSummary } from '../sync/frame/types.js';

/** How a failed run or job is handled (invariant 8). */
export type FailureKind = 'retryable' | 'permanent' | 'fatal';

export interface JobFailure {
  kind: FailureKind;
  code: string;
  message: string;
  /** For a 429: how long the platform asked us to wait, when it said. */
  retryAfterMs?: number;
}

/** When a 429 carried no usable Retry-After. */
export const DEFAULT_RATE_LIMIT_WAIT_MS = 5_000;
/** Shortest wait of a 429: "Retry-After: 0" (or a past date) must not turn into a request storm. */
export const MIN_RATE_LIMIT_WAIT_MS = 1_000;
/** Longest wait of a 429: past it, the queue asks again (a wrong clock or an hour-long date must not stop the daemon). */
export const MAX_RATE_LIMIT_WAIT_MS = 300_000;

/** The failure a run's typed failure stands for in the queue (`code: message` for the job's reason). */
export function failureOfRun(failure: RunFailure): JobFailure {
  const { code, kind, message, retryAfterMs } = failure;
  return {
    code,
    kind,
    message: `${code}: ${message}`,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  };
}

/** The failure a run summary reports, or null when the run ended well. */
export function failureOfSummary(summary: RunSummary): JobFailure | null {
  return summary.error === undefined ? null : failureOfRun(summary.error);
}

/** The failure a thrown error stands for (errors we did not make are bugs: permanent). */
export function failureOfError(error: unknown): JobFailure {
  return failureOfRun(classifyFailure(error));
}

export function isRateLimit(failure: JobFailure): boolean {
  return failure.code === ('api_rate_limited' satisfies ErrorCode);
}

/**
 * How long the whole queue waits after a 429: the platform's Retry-After (already in ms, from
 * seconds or an HTTP date), bounded to [MIN, MAX]; the default when the answer gave none.
 */
export function rateLimitWaitMs(failure: JobFailure): number {
  const asked = failure.retryAfterMs;
  if (asked === undefined || !Number.isFinite(asked)) return DEFAULT_RATE_LIMIT_WAIT_MS;
  return Math.min(MAX_RATE_LIMIT_WAIT_MS, Math.max(MIN_RATE_LIMIT_WAIT_MS, Math.round(asked)));
}

/** The error a processor throws for a failure BullMQ must not retry. */
export function unrecoverable(failure: JobFailure): UnrecoverableError {
  return new UnrecoverableError(failure.message);
}
