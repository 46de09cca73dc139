import { UnrecoverableError } from 'bullmq';
import { isErpSyncError, type ErrorCode } from '../domain/errors.js';
import type { RunSummary } from '../sync/types.js';

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

/** The failure a run summary reports, or null when the run ended well. */
export function failureOfSummary(summary: RunSummary): JobFailure | null {
  if (summary.error === undefined) return null;
  const { code, kind, message } = summary.error;
  return { code, kind, message: `${code}: ${message}` };
}

/** The failure a thrown error stands for (errors we did not make are bugs: permanent). */
export function failureOfError(error: unknown): JobFailure {
  if (isErpSyncError(error)) {
    const retryAfter = (error as { retryAfterMs?: unknown }).retryAfterMs;
    return {
      kind: error.fatal ? 'fatal' : error.retryable ? 'retryable' : 'permanent',
      code: error.code,
      message: `${error.code}: ${error.message}`,
      ...(typeof retryAfter === 'number' ? { retryAfterMs: retryAfter } : {}),
    };
  }
  return {
    kind: 'permanent',
    code: 'internal',
    message: error instanceof Error ? error.message : String(error),
  };
}

export function isRateLimit(failure: JobFailure): boolean {
  return failure.code === ('api_rate_limited' satisfies ErrorCode);
}

/** The error a processor throws for a failure BullMQ must not retry. */
export function unrecoverable(failure: JobFailure): UnrecoverableError {
  return new UnrecoverableError(failure.message);
}
