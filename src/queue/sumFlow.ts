import type { RunSummary } from '../sync/frame/types.js';
import type { ScanPayload } from './jobTypes.js';
import type { PushResult } from './pushJob.js';

/**
 * The run summary of a finished flow: the scan's own counts plus its push jobs' outcomes
 * (`children` and `failures` by job key, as BullMQ gives them). Batches an earlier attempt of the
 * scan job had finished (`scan.earlierBatches`) are not this scan's: counted apart as
 * `extra.earlierBatches`, never summed in. `error` is set when any item or batch went unconfirmed;
 * the items of a batch whose job failed for good count in `failed` (what the scan put into batches
 * less what the finished batches report), and the message names the pipeline, the items and the cause.
 */
export function sumFlow(
  scan: NonNullable<ScanPayload['scan']>,
  children: Record<string, PushResult>,
  failures: Record<string, string>,
): RunSummary {
  const summary: RunSummary = { ...scan.summary, extra: { ...scan.summary.extra } };
  const earlier = new Set(scan.earlierBatches ?? []);
  const ours = <T>(byKey: Record<string, T>): T[] =>
    Object.entries(byKey)
      .filter(([key]) => !earlier.has(key))
      .map(([, value]) => value);
  const failed = ours(failures);
  if (earlier.size > 0) summary.extra.earlierBatches = earlier.size;
  let firstError = summary.error;
  let reported = 0;
  for (const result of ours(children)) {
    reported += result.items;
    summary.applied += result.applied;
    summary.notFound += result.notFound;
    summary.rejected += result.rejected;
    summary.failed += result.failed;
    summary.extra.superseded = (summary.extra.superseded ?? 0) + result.superseded;
    summary.requests += result.requests;
    firstError ??= result.error;
  }
  if (failed.length) {
    summary.extra.failedBatches = failed.length;
    summary.failed += Math.max(0, scan.summary.sent - reported);
    firstError ??= { code: 'api_server', kind: 'retryable', message: failed[0]! };
  }
  if (firstError)
    summary.error = {
      ...firstError,
      message: `${summary.pipeline}: ${summary.failed} item(s) not confirmed (${failed.length} batch(es) failed), sent again next run: ${firstError.message}`,
    };
  return summary;
}
