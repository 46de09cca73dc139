import type { ItemKey } from '../../domain/records.js';
import { createPool, drainAfter } from '../frame/pool.js';
import { pushBatch, type BatchOutcome, type PushBatch, type PushItem } from './pushBatch.js';
import {
  beginPushScan,
  closePushScan,
  diffPushItems,
  readPushItems,
  type PushScan,
  type PushSpec,
} from './diffPushItems.js';
import type { PipelineRun } from '../frame/runInFrame.js';
import { failUnconfirmed } from '../frame/summary.js';
import type { RunSummary } from '../frame/types.js';
import { commitErpRead } from './erpReadCommit.js';
import { bulkSizing } from './bulkSize.js';

const PREVIEW_ITEMS = 20;

/**
 * The scan half (read and validate, diff), run inside the frame with the lease held: hands every
 * batch of `sync.batchSize` items to `onBatch` as plain data carrying the scan's generation. A
 * daemon's scan job enqueues them (a push job later calls `pushBatch` on each); run-once sends them
 * at once. Counts read, unchanged, rejected, notFound and `sent` (items put into batches).
 */
export async function scanPushBatches<R extends ItemKey, W>(
  run: PipelineRun,
  spec: PushSpec<R, W>,
  onBatch: (batch: PushBatch<W>, scan: PushScan) => Promise<void>,
): Promise<PushScan> {
  const { ctx, options, summary } = run;
  // The platform's limit as learned so far (sync.batchSize until it refuses one): a push re-cuts a
  // batch when a refusal during this scan lowered it.
  const batchSize = bulkSizing(ctx, spec.pipeline).size();
  summary.extra = { knownMissing: 0, superseded: 0, batches: 0, ...summary.extra };
  const scan = beginPushScan(ctx, spec.pipeline, options);
  let pending: PushItem<W>[] = [];
  const dispatch = async (items: PushItem<W>[]): Promise<void> => {
    summary.sent += items.length;
    summary.extra.batches! += 1;
    await onBatch({ pipeline: spec.pipeline, generation: scan.generation, items }, scan);
  };
  for await (const items of readPushItems(ctx, spec, scan, summary, options.signal)) {
    pending.push(...diffPushItems(ctx, scan, items, summary));
    while (pending.length >= batchSize) await dispatch(pending.splice(0, batchSize));
    run.progress();
  }
  if (pending.length) await dispatch(pending);
  pending = [];
  return scan;
}

/** Adds one batch's outcome to the run's summary (and the scan's rejects). */
export function tallyBatch(summary: RunSummary, scan: PushScan, outcome: BatchOutcome): void {
  summary.applied += outcome.applied;
  summary.notFound += outcome.notFound;
  summary.rejected += outcome.rejected;
  summary.failed += outcome.failed;
  summary.extra.superseded = (summary.extra.superseded ?? 0) + outcome.superseded;
  for (const key of outcome.rejectedKeys) scan.stillRejected.add(key);
}

/**
 * The push pipelines inline (run-once): read and validate -> diff against fingerprints -> batches
 * -> bounded concurrent bulk requests -> record what the platform acknowledged. Fingerprints are
 * written only for confirmed items (acknowledge before forgetting), with this scan's generation.
 */
export async function runPush<R extends ItemKey, W>(run: PipelineRun, spec: PushSpec<R, W>): Promise<void> {
  const { ctx, options, summary, lease, log } = run;
  if (options.dryRun) summary.preview = [];
  const pool = createPool(ctx.config.sync.concurrency);
  let firstError: BatchOutcome['error'];
  const scan = await drainAfter(pool, () =>
    scanPushBatches(run, spec, async (batch, current) => {
      if (options.dryRun) {
        const room = PREVIEW_ITEMS - summary.preview!.length;
        if (room > 0) summary.preview!.push(...batch.items.slice(0, room).map((item) => item.wire));
        log.debug({ items: batch.items.length }, 'dry run: batch not sent');
        return;
      }
      await pool.submit(async () => {
        const outcome = await pushBatch(ctx, batch, { lease });
        tallyBatch(summary, current, outcome);
        firstError ??= outcome.error;
        run.progress();
      });
    }),
  );
  if (failUnconfirmed(summary, firstError, 'item(s)')) return;
  closePushScan(ctx, scan, summary);
  if (!options.dryRun && scan.receipt) await commitErpRead(ctx, scan.pipeline, scan.receipt);
}
