import { isErpSyncError } from '../../domain/errors.js';
import { LeaseLostError } from './lease.js';
import type { RunFailure } from './types.js';

/**
 * Turns anything a run threw into its typed outcome. Our own errors keep their code; anything else
 * is a bug (`internal`, permanent). A lost lease is retryable: another run took over and carries on.
 */
export function classifyFailure(error: unknown): RunFailure {
  if (error instanceof LeaseLostError) return { code: error.code, kind: 'retryable', message: error.message };
  if (isErpSyncError(error)) {
    const kind = error.fatal ? 'fatal' : error.retryable ? 'retryable' : 'permanent';
    const retryAfterMs = error.details.retryAfterMs;
    return {
      code: error.code,
      kind,
      message: error.message,
      // The platform's Retry-After, carried so a queue can wait exactly that long (invariant 8).
      ...(typeof retryAfterMs === 'number' ? { retryAfterMs } : {}),
    };
  }
  return {
    code: 'internal',
    kind: 'permanent',
    message: error instanceof Error ? error.message : String(error),
  };
}

/** One line for people and the run record: `code: message`. */
export function describeFailure(failure: RunFailure): string {
  return `${failure.code}: ${failure.message}`;
}

/** Errors that end the run instead of leaving one batch unconfirmed. */
export function stopsTheRun(error: unknown): boolean {
  return error instanceof LeaseLostError || (isErpSyncError(error) && error.fatal);
}
