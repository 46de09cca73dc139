import type { FingerprintPipeline } from '../../store/index.js';
import { chunks } from '../../store/chunks.js';
import { pushBatch, type PushBatch, type PushItem } from './pushBatch.js';
import { describeFailure } from '../frame/classifyFailure.js';
import { runInFrame } from '../frame/runInFrame.js';
import type { RunFailure, RunOptions, RunSummary, SyncContext } from '../frame/types.js';

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
  /** The parts of the fix not carried out (a batch not confirmed, a flow not enqueued or failed). */
  failures: HealFailure[];
}

/** A part of the fix that was not carried out: its pipeline, which batch or job, and why. */
export interface HealFailure {
  pipeline: FingerprintPipeline;
  /** `batch 1 of 2 (100 item(s): A .. B)`, `job runs/<id>`, `flow runs/<id>`. */
  part: string;
  reason: string;
}

/** `batch 1 of 2 (100 item(s): A .. B)`: which items a failed request carried. */
export function describeBatch(index: number, count: number, items: PushItem[]): string {
  const keys = items.length > 1 ? `${items[0]!.key} .. ${items.at(-1)!.key}` : (items[0]?.key ?? '');
  return `batch ${index + 1} of ${count} (${items.length} item(s): ${keys})`;
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
    const failures: HealFailure[] = [];
    for (const batch of healingBatches(batches)) {
      const runOptions: RunOptions = { full: false, dryRun: false, ...options };
      const parts = [...chunks(batch.items, ctx.config.sync.batchSize)];
      const recorded = new Set<RunFailure>();
      let part = 'run';
      const summary = await runInFrame(batch.pipeline, ctx, runOptions, async (run) => {
        run.summary.read = batch.items.length;
        for (const [index, items] of parts.entries()) {
          part = describeBatch(index, parts.length, items);
          const outcome = await pushBatch(run.ctx, { ...batch, items }, { lease: run.lease });
          run.summary.sent += items.length - outcome.superseded;
          run.summary.applied += outcome.applied;
          run.summary.notFound += outcome.notFound;
          run.summary.rejected += outcome.rejected;
          run.summary.failed += outcome.failed;
          run.summary.error ??= outcome.error;
          if (outcome.error) {
            recorded.add(outcome.error);
            failures.push({ pipeline: batch.pipeline, part, reason: describeFailure(outcome.error) });
          }
          run.progress();
        }
        part = 'run';
      });
      // Thrown out of the frame (the lease not had, a fatal answer): the batch under way, or the run.
      if (summary.error && !recorded.has(summary.error))
        failures.push({ pipeline: batch.pipeline, part, reason: describeFailure(summary.error) });
      summaries.push(summary);
    }
    return { via: 'inline', summaries, enqueued: [], failures };
  };
