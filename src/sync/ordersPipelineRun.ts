import {
  ApiValidationError,
  ClientValidationError,
  ConflictError,
  HttpError,
  NotFoundError,
  PayloadTooLargeError,
} from '../api/errors.js';
import { describeError, isErpSyncError } from '../domain/errors.js';
import { acquireLease, type Lease } from './lease.js';
import { emptySummary } from './summary.js';
import type { RunOptions, RunSummary, SyncContext } from './types.js';

const LEASE_TTL_MS = 60_000;
const LEASE_WAIT_MS = 120_000;

/**
 * The frame the order pipelines share: one lease per pipeline (overlapping runs take turns), a run
 * record in the store, request counts and time, and errors turned into the summary (a fatal one
 * marks it fatal so run-once stops). The body fills the summary's counts.
 */
export async function runOrderPipeline(
  ctx: SyncContext,
  name: string,
  options: RunOptions,
  body: (summary: RunSummary, lease: Lease) => Promise<void>,
): Promise<RunSummary> {
  const summary = emptySummary(name, options);
  const started = performance.now();
  const before = { ...ctx.requests };
  let lease: Lease | undefined;
  let runId: number | undefined;
  try {
    lease = await acquireLease(ctx.store, name, {
      ttlMs: LEASE_TTL_MS,
      waitMs: LEASE_WAIT_MS,
      signal: ctx.signal,
    });
    if (!options.dryRun) runId = ctx.store.runs.start(name, options);
    await body(summary, lease);
  } catch (error) {
    summary.error = describeError(error);
    summary.fatal = isErpSyncError(error) && error.fatal;
    // ERROR only when a person must act; a transient failure heals on the next run.
    const heals = isErpSyncError(error) && error.retryable;
    ctx.logger[heals ? 'warn' : 'error'](
      { pipeline: name, err: summary.error },
      summary.fatal ? 'run stopped' : heals ? 'run interrupted, redone next run' : 'run failed',
    );
  } finally {
    summary.requests = ctx.requests.total - before.total;
    summary.writeRequests = ctx.requests.writes - before.writes;
    summary.seconds = (performance.now() - started) / 1000;
    if (runId !== undefined) {
      const { preview: _preview, ...counts } = summary;
      ctx.store.runs.finish(
        runId,
        summary.error === undefined ? { counts } : { counts, error: summary.error },
      );
    }
    lease?.release();
    ctx.onProgress?.({
      pipeline: name,
      read: summary.read,
      sent: summary.sent,
      applied: summary.applied,
      done: true,
    });
  }
  return summary;
}

export function countExtra(summary: RunSummary, key: string, n = 1): void {
  summary.extra[key] = (summary.extra[key] ?? 0) + n;
}

/** The headline of an order pipeline's dry-run preview (run-once prints it above the items). */
export function orderPreviewTitle(summary: RunSummary): string | undefined {
  const n = (key: string) => summary.extra[key] ?? 0;
  switch (summary.pipeline) {
    case 'orders':
      return `would import ${n('wouldImport')} order(s) into the ERP and deliver ${n('wouldUpdate')} change(s); ${n('wouldSkip')} new order(s) in a status not imported`;
    case 'feedback':
      return `would apply ${summary.sent} event(s) on the platform`;
    case 'erp-orders':
      return `would create ${summary.sent} order(s) on the platform`;
    default:
      return undefined;
  }
}

/**
 * The platform answered and refused one order's request for good (422 or its client-side twin,
 * 404, 409, 413, another 4xx): retrying cannot change the answer, so it is a reject of that order
 * or event and the others go on.
 */
export function isRefusal(error: unknown): error is Error {
  return (
    error instanceof ApiValidationError ||
    error instanceof ClientValidationError ||
    error instanceof NotFoundError ||
    error instanceof ConflictError ||
    error instanceof PayloadTooLargeError ||
    error instanceof HttpError
  );
}
