import type { Logger } from 'pino';
import { isErpSyncError } from '../../domain/errors.js';
import type { Lease } from './lease.js';
import { acquirePipelineLease, dryRunLease } from './pipelineLease.js';
import type { PipelineName } from '../../domain/pipelineNames.js';
import { classifyFailure, describeFailure } from './classifyFailure.js';
import { emptySummary } from './summary.js';
import type { RequestCounter, RunOptions, RunSummary, SyncContext } from './types.js';
import { monotonicMs } from '../../domain/monotonicMs.js';

const WRITE_METHODS = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

/** What the frame hands a pipeline's body for one run. */
export interface PipelineRun {
  readonly name: PipelineName;
  /** The shared context, with the client swapped for a view that counts this run's requests. */
  readonly ctx: SyncContext;
  readonly options: RunOptions;
  /** The body fills the counts (and may set `error` for a partial failure it did not throw). */
  readonly summary: RunSummary;
  /** `sync:<name>`, held for the whole run; a dry run takes none and gets one that never fails. */
  readonly lease: Lease;
  readonly log: Logger;
  /** Reports the summary's counts so far to `options.onProgress`. */
  progress(): void;
}

export type PipelineBody = (run: PipelineRun) => Promise<void>;

/**
 * The context as one run sees it: the shared one with the client swapped for a view that counts
 * this run's requests (into `counter`, and into `options.requests` when given). The frame uses
 * it; a job that calls one stage alone (`pushBatch`, `importPlatformOrder`) uses it too.
 */
export function bindRun(
  ctx: SyncContext,
  options: Pick<RunOptions, 'requests'> = {},
): { ctx: SyncContext; counter: RequestCounter } {
  const counter: RequestCounter = { total: 0, writes: 0 };
  const counters = options.requests ? [counter, options.requests] : [counter];
  const client = ctx.client.observe((info) => {
    const write = WRITE_METHODS.has(info.method.toUpperCase());
    for (const c of counters) {
      c.total += 1;
      if (write) c.writes += 1;
    }
  });
  return { ctx: { ...ctx, client }, counter };
}

/**
 * The one frame every pipeline runs in: the lease (overlapping runs of a pipeline take turns;
 * settings from `sync.lease.*`), the run record, the run's own request counter, progress, and
 * every error turned into the summary's typed RunFailure and logged (with its stack when it is
 * not one of ours: that is a bug). A dry run writes nothing, so it neither takes the lease (it
 * never waits behind, or holds up, a real run) nor leaves a run record.
 */
export async function runInFrame(
  name: PipelineName,
  ctx: SyncContext,
  options: RunOptions,
  body: PipelineBody,
): Promise<RunSummary> {
  const started = monotonicMs();
  const summary = emptySummary(name, options);
  const log = ctx.logger.child({ pipeline: name });
  const { ctx: runCtx, counter } = bindRun(ctx, options);
  const progress = (done = false): void => {
    const { read, sent, applied } = summary;
    options.onProgress?.({ pipeline: name, read, sent, applied, ...(done ? { done } : {}) });
  };
  let lease: Lease | undefined;
  let runId: number | undefined;
  try {
    if (options.dryRun) lease = dryRunLease(name);
    else {
      const { ttlSeconds, waitSeconds } = ctx.config.sync.lease;
      lease = await acquirePipelineLease(ctx.store, name, {
        ttlMs: ttlSeconds * 1000,
        waitMs: waitSeconds * 1000,
        ...(options.signal ? { signal: options.signal } : {}),
        onWait: (holder) =>
          log.info({ holder }, 'another run of this pipeline is in progress; waiting for it'),
      });
      runId = ctx.store.runs.start(name, { full: options.full, dryRun: options.dryRun });
    }
    await body({ name, ctx: runCtx, options, summary, lease, log, progress: () => progress() });
    // Done means done (invariant 14): a body that left items unconfirmed without saying why is a bug,
    // and still never a success.
    if (summary.failed > 0 && summary.error === undefined) {
      summary.error = {
        code: 'internal',
        kind: 'permanent',
        message: `${summary.failed} item(s) not confirmed, tried again next run`,
      };
      log.error({ failed: summary.failed }, 'run left items unconfirmed without a reason');
    }
  } catch (error) {
    summary.error = classifyFailure(error);
    const { kind } = summary.error;
    // ERROR only when a person must act; a transient failure heals on the next run.
    log[kind === 'retryable' ? 'warn' : 'error'](
      { err: isErpSyncError(error) ? describeFailure(summary.error) : error },
      kind === 'fatal'
        ? 'run stopped'
        : kind === 'retryable'
          ? 'run interrupted, redone next run'
          : 'run failed',
    );
  } finally {
    summary.requests = counter.total;
    summary.writeRequests = counter.writes;
    summary.seconds = (monotonicMs() - started) / 1000;
    if (runId !== undefined) {
      const { preview: _preview, error, ...counts } = summary;
      ctx.store.runs.finish(
        runId,
        error === undefined ? { counts } : { counts, error: describeFailure(error) },
      );
    }
    lease?.release();
    progress(true);
  }
  return summary;
}
