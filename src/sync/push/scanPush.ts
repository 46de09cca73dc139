import type { FingerprintPipeline } from '../../store/index.js';
import type { Lease } from '../frame/lease.js';
import type { PushBatch } from './pushBatch.js';
import { pushSpecOf } from './pushSpecs.js';
import { scanPushBatches } from './pushPipeline.js';
import { closePushScan, type PushScan } from './diffPushItems.js';
import { runInFrame } from '../frame/runInFrame.js';
import type { RunOptions, RunSummary, SyncContext } from '../frame/types.js';

/**
 * A push pipeline's scan alone, in the frame (lease `sync:<name>` while it reads, a run record,
 * its own request counter): reads and validates the ERP's rows, diffs them against the
 * fingerprints and hands every batch to `onBatch` as plain JSON-ready data carrying the scan's
 * generation, for a queue to send later with `pushBatch`. Nothing is sent here; `sent` counts
 * the items put into batches. The ERP read is not committed: `onScanned` gets the complete scan,
 * whose `receipt` (plain text) goes to `erp.commit` once every batch of the scan is confirmed.
 * Both get the run's lease: its owner may send while the scan reads on, and `onScanned` may hand
 * it to whoever sends the batches (`handToFlow`), so the lease outlives the frame.
 */
export function scanPush(
  name: FingerprintPipeline,
  ctx: SyncContext,
  options: RunOptions,
  onBatch: (batch: PushBatch, lease: Lease) => Promise<void>,
  onScanned?: (scan: PushScan, lease: Lease) => void | Promise<void>,
): Promise<RunSummary> {
  return runInFrame(name, ctx, options, async (run) => {
    const send = (batch: PushBatch): Promise<void> => onBatch(batch, run.lease);
    const scan = await scanPushBatches(run, pushSpecOf(name, run.ctx), send);
    // Rejects of keys this complete scan did not meet are over (pushed keys were settled in the diff).
    closePushScan(run.ctx, scan, run.summary);
    await onScanned?.(scan, run.lease);
  });
}
