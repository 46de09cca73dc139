import pRetry from 'p-retry';
import { ApiError, RateLimitedError, ServerError } from './errors.js';

const MIN_ATTEMPT_MS = 100;

export interface RetrySettings {
  retries: number;
  deadlineMs: number;
  minBackoffMs: number;
  maxBackoffMs: number;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** True when the failure may heal by itself and repeating the request cannot apply it twice. */
export function isRetryable(error: unknown): error is ApiError {
  // Outcome-unknown is not retryable by catalogue; non-idempotent requests never get here otherwise.
  return error instanceof ApiError && error.retryable;
}

/**
 * Runs `attempt` with exponential backoff and jitter (p-retry) for retryable ApiErrors, waiting at
 * least a 429's (or 503's) Retry-After, and never past the deadline: a wait that would cross it ends the call
 * with the last error instead. Non-idempotent requests are safe here because the transport maps
 * their maybe-applied failures to OutcomeUnknownError, which is not retryable.
 */
function retryAfterOf(error: ApiError): number | null {
  return error instanceof RateLimitedError || error instanceof ServerError ? error.retryAfterMs : null;
}

export async function withRetries<T>(
  attempt: (attemptNumber: number) => Promise<T>,
  settings: RetrySettings,
  onRetry: (error: ApiError, attemptNumber: number, delayMs: number | null) => void,
  signal?: AbortSignal,
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
    ...(signal ? { signal } : {}),
    shouldRetry: async ({ error, attemptNumber }) => {
      if (!isRetryable(error)) return false;
      // An attempt with almost no time left would be aborted at once, yet could still reach the server.
      if (remaining() < Math.min(MIN_ATTEMPT_MS, settings.deadlineMs / 10)) return false;
      const retryAfterMs = retryAfterOf(error);
      if (retryAfterMs !== null) {
        if (retryAfterMs >= remaining()) return false;
        onRetry(error, attemptNumber, retryAfterMs);
        await sleep(retryAfterMs, signal);
        return true;
      }
      onRetry(error, attemptNumber, null);
      return true;
    },
  });
}
