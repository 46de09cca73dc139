import type { FingerprintPipeline } from '../store/index.js';
import { chunks } from '../store/chunks.js';
import { pushBatch, type PushBatch } from './pushBatch.js';
import { runInFrame } from './runInFrame.js';
import type { RunOptions, RunSummary, SyncContext } from './types.js';

/** The healing items handed to a healer: at most one batch per push pipeline. */
export type HealingBatches = Partial<Record<FingerprintPipeline, PushBatch>>;

/** What a healer did with the healing items. */
export interface HealOutcome {
  /** `inline`: sent by this process; `daemon`: handed to the running daemon's queues. */
  via: 'inline' | 'daemon';
  /** The runs done (inline), or waited for (daemon). */
  summaries: RunSummary[];
  /** Daemon: per pipeline, the job whose push jobs carry the items (`runs/<id>`, with `pushes/<id>` children). */
  enqueued: { pipeline: FingerprintPipeline; job: string; pushJobs: string[]; items: number }[];
}

/**
 * Where the pushes that heal an audit's drift go: inline (`healDriftInline`, below) sends them
 * now; the daemon's (`healDriftQueued`, src/queue) enqueues them as push jobs, the same
 * `PushBatch`es a scan job hands its push jobs, which send them with `pushBatch` later.
 */
export type DriftHealer = (
  batches: HealingBatches,
  options: Pick<RunOptions, 'signal'>,
) => Promise<HealOutcome>;

/** The pipelines in the order a healer handles them, with their non-empty batch. */
export function healingBatches(batches: HealingBatches): PushBatch[] {
  return (['stock', 'prices'] as const).flatMap((pipeline) => {
    const batch = batches[pipeline];
    return batch?.items.length ? [batch] : [];
  });
}

/**
 * Sends exactly the audit's healing items, through the push stages (`pushBatch`: generation guard,
 * fingerprints only for acknowledged items, rejects for refused and missing ones), in a run frame
 * per pipeline (its lease, a run record, its request count), `sync.batchSize` items per request.
 */
export const healDriftInline =
  (ctx: SyncContext): DriftHealer =>
  async (batches, options) => {
    const summaries: RunSummary[] = [];
    for (const batch of healingBatches(batches)) {
      const runOptions: RunOptions = { full: false, dryRun: false, ...options };
      summaries.push(
        await runInFrame(batch.pipeline, ctx, runOptions, async (run) => {
          run.summary.read = batch.items.length;
          for (const items of chunks(batch.items, ctx.config.sync.batchSize)) {
            const outcome = await pushBatch(run.ctx, { ...batch, items }, { lease: run.lease });
            run.summary.sent += items.length - outcome.superseded;
            run.summary.applied += outcome.applied;
            run.summary.notFound += outcome.notFound;
            run.summary.rejected += outcome.rejected;
            run.summary.failed += outcome.failed;
            run.summary.error ??= outcome.error;
            run.progress();
          }
        }),
      );
    }
    return { via: 'inline', summaries, enqueued: [] };
  };
