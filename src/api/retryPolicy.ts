import pRetry from 'p-retry';
import { ApiError, RateLimitedError } from './errors.js';

export interface RetrySettings {
  retries: number;
  deadlineMs: number;
  minBackoffMs: number;
  maxBackoffMs: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** True when the failure may heal by itself and repeating the request cannot apply it twice. */
export function isRetryable(error: unknown): error is ApiError {
  // Outcome-unknown is not retryable by catalogue; non-idempotent requests never get here otherwise.
  return error instanceof ApiError && error.retryable;
}

/**
 * Runs `attempt` with exponential backoff and jitter (p-retry) for retryable ApiErrors, waiting at
 * least a 429's Retry-After, and never past the deadline: a wait that would cross it ends the call
 * with the last error instead. Non-idempotent requests are safe here because the transport maps
 * their maybe-applied failures to OutcomeUnknownError, which is not retryable.
 */
export async function withRetries<T>(
  attempt: (attemptNumber: number) => Promise<T>,
  settings: RetrySettings,
  onRetry: (error: ApiError, attemptNumber: number, delayMs: number | null) => void,
): Promise<T> {
  const startedAt = performance.now();
  const remaining = () => settings.deadlineMs - (performance.now() - startedAt);
  return pRetry(attempt, {
    retries: settings.retries,
    factor: 2,
    minTimeout: settings.minBackoffMs,
    maxTimeout: settings.maxBackoffMs,
    randomize: true,
    maxRetryTime: settings.deadlineMs,
    shouldRetry: async ({ error, attemptNumber }) => {
      if (!isRetryable(error)) return false;
      if (error instanceof RateLimitedError && error.retryAfterMs !== null) {
        if (error.retryAfterMs >= remaining()) return false;
        onRetry(error, attemptNumber, error.retryAfterMs);
        await sleep(error.retryAfterMs);
        return true;
      }
      onRetry(error, attemptNumber, null);
      return true;
    },
  });
}
