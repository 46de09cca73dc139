import { ApiError, RateLimitedError, ServerError } from './errors.js';
import { monotonicMs } from '../domain/monotonicMs.js';

const MIN_ATTEMPT_MS = 100;

export interface RetrySettings {
  retries: number;
  deadlineMs: number;
  minBackoffMs: number;
  maxBackoffMs: number;
}

export interface RetrySignals {
  /** The caller's signal: aborting it rejects a retry wait with its reason. */
  abort?: AbortSignal | undefined;
  /** The client's close(): ends a retry wait at once, and the call with its last error. */
  stop?: AbortSignal | undefined;
}

/** Waits `ms`; resolves false when `stop` fires first, rejects with the reason when `abort` does. */
function wait(ms: number, { abort, stop }: RetrySignals): Promise<boolean> {
  return new Promise<boolean>((resolve, reject) => {
    if (abort?.aborted) return reject(abort.reason as Error);
    if (stop?.aborted) return resolve(false);
    const done = () => {
      clearTimeout(timer);
      abort?.removeEventListener('abort', onAbort);
      stop?.removeEventListener('abort', onStop);
    };
    const onAbort = () => {
      done();
      reject(abort?.reason as Error);
    };
    const onStop = () => {
      done();
      resolve(false);
    };
    const timer = setTimeout(() => {
      done();
      resolve(true);
    }, ms);
    abort?.addEventListener('abort', onAbort, { once: true });
    stop?.addEventListener('abort', onStop, { once: true });
  });
}

/** True when the failure may heal by itself and repeating the request cannot apply it twice. */
export function isRetryable(error: unknown): error is ApiError {
  // Outcome-unknown is not retryable by catalogue; non-idempotent requests never get here otherwise.
  return error instanceof ApiError && error.retryable;
}

function retryAfterOf(error: ApiError): number | null {
  return error instanceof RateLimitedError || error instanceof ServerError ? error.retryAfterMs : null;
}

/**
 * The wait before retry number `retryIndex + 1`: `minBackoffMs * 2^retryIndex`, times a random
 * factor in [1, 2), capped at `maxBackoffMs`.
 */
export function backoffDelay(
  retryIndex: number,
  settings: Pick<RetrySettings, 'minBackoffMs' | 'maxBackoffMs'>,
  random: () => number = Math.random,
): number {
  const step = settings.minBackoffMs * 2 ** retryIndex;
  return Math.floor(Math.min(settings.maxBackoffMs, step * (1 + random())));
}

/**
 * The wait before the next attempt: the backoff step, or for a 429 (or a 503) with Retry-After, that
 * delay plus a jitter of at most one minimum step (so that waiting clients do not return together).
 */
export function retryDelay(
  error: ApiError,
  retryIndex: number,
  settings: RetrySettings,
  random: () => number = Math.random,
): number {
  const retryAfterMs = retryAfterOf(error);
  if (retryAfterMs === null) return backoffDelay(retryIndex, settings, random);
  return retryAfterMs + Math.round(random() * settings.minBackoffMs);
}

/**
 * Runs `attempt` again for retryable ApiErrors, after retryDelay, at most `settings.retries` times.
 * The deadline is strict: when the wait plus a minimal attempt (100 ms, or a tenth of the deadline)
 * would not fit in what is left, the call ends at once with the last error, so no request is sent
 * that would be cut off at once yet could still reach the server. Non-idempotent requests are safe
 * here because the transport maps their maybe-applied failures to OutcomeUnknownError, which is
 * not retryable. The caller's abort signal wins over any outcome: once it has fired, the call
 * rejects with its reason (before an attempt, after one, failed or not, and during a wait).
 */
export async function withRetries<T>(
  attempt: (attemptNumber: number) => Promise<T>,
  settings: RetrySettings,
  onRetry: (error: ApiError, attemptNumber: number, delayMs: number) => void,
  signals: RetrySignals = {},
): Promise<T> {
  const startedAt = monotonicMs();
  const remaining = () => settings.deadlineMs - (monotonicMs() - startedAt);
  const minAttemptMs = Math.min(MIN_ATTEMPT_MS, settings.deadlineMs / 10);
  for (let attemptNumber = 1; ; attemptNumber++) {
    signals.abort?.throwIfAborted();
    let failure: unknown;
    try {
      const result = await attempt(attemptNumber);
      signals.abort?.throwIfAborted();
      return result;
    } catch (error) {
      failure = error;
    }
    signals.abort?.throwIfAborted();
    const retryIndex = attemptNumber - 1;
    if (retryIndex >= settings.retries || remaining() <= 0) throw failure;
    if (!isRetryable(failure) || signals.stop?.aborted) throw failure;
    const delayMs = retryDelay(failure, retryIndex, settings);
    if (delayMs + minAttemptMs > remaining()) throw failure;
    onRetry(failure, attemptNumber, delayMs);
    if (!(await wait(delayMs, signals)) || remaining() <= 0) throw failure;
  }
}
