import type { FingerprintPipeline } from '../store/index.js';
import { chunks } from '../store/chunks.js';
import { pushBatch, type PushBatch } from './pushBatch.js';
import { runInFrame } from './runInFrame.js';
import type { RunOptions, RunSummary, SyncContext } from './types.js';

/**
 * Where the pushes that heal an audit's drift go: inline (`healDriftInline`, below) sends them
 * now; a daemon's implementation enqueues each batch as a push job (the same `PushBatch` a scan
 * job hands its push jobs), which sends it with `pushBatch` later.
 */
export type DriftHealer = (
  batches: Partial<Record<FingerprintPipeline, PushBatch>>,
  options: Pick<RunOptions, 'signal'>,
) => Promise<RunSummary[]>;

/**
 * Sends exactly the audit's healing items, through the push stages (`pushBatch`: generation guard,
 * fingerprints only for acknowledged items, rejects for refused and missing ones), in a run frame
 * per pipeline (its lease, a run record, its request count), `sync.batchSize` items per request.
 */
export const healDriftInline =
  (ctx: SyncContext): DriftHealer =>
  async (batches, options) => {
    const summaries: RunSummary[] = [];
    for (const pipeline of ['stock', 'prices'] as const) {
      const batch = batches[pipeline];
      if (!batch?.items.length) continue;
      const runOptions: RunOptions = { full: false, dryRun: false, ...options };
      summaries.push(
        await runInFrame(pipeline, ctx, runOptions, async (run) => {
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
    return summaries;
  };
