import { WaitingChildrenError, type Job } from 'bullmq';
import { asReadReceipt } from '../erp/ErpRead.js';
import { commitErpRead } from '../sync/push/erpReadCommit.js';
import { scanPush } from '../sync/push/scanPush.js';
import { handToFlow, releaseFlow, releaseLostFlow } from '../sync/frame/pipelineLease.js';
import type { ProgressEvent, RunSummary } from '../sync/frame/types.js';
import { handleFailure } from './handleFailure.js';
import type { JobRuntime } from './jobRuntime.js';
import type { JobName, PipelineName, QueueName, ScanPayload } from './jobTypes.js';
import type { PushResult } from './pushJob.js';
import { failureOfSummary } from './jobFailure.js';
import { runTrace, type RunJobKind, type RunProgress } from './runJob.js';
import { finishedChildKeys, settleEarlierAttempt } from './settleEarlierAttempt.js';
import { inSpan } from '../tracing/activeTracing.js';
import { sumFlow } from './sumFlow.js';

/**
 * `stock-scan` / `prices-scan` on the runs queue, the parent of a BullMQ flow: reads the ERP,
 * diffs against the store and enqueues one push job per bulk request (children on the pushes
 * queue, carrying the scan's generation), then waits for them; once every batch has finished, it
 * sums their outcomes, releases the pipeline's lease and completes, committing the ERP read, when
 * every batch was confirmed, or fails (the summary in its data) when items were left unconfirmed.
 */
export function defineScanJob(
  name: JobName,
  pipeline: Extract<PipelineName, 'stock' | 'prices'>,
): RunJobKind<ScanPayload> {
  const queue: QueueName = 'runs';
  return {
    name,
    queue,
    trace: runTrace(pipeline),
    async process(job, { runtime, signal, token }) {
      const data = job.data;
      const { store } = runtime.ctx;
      const flowId = job.id!;
      if (data.step !== 'scanned') {
        const stop = signal ? AbortSignal.any([runtime.shutdown, signal]) : runtime.shutdown;
        let batches = 0;
        let receipt: string | null = null;
        let scannedAt = 0;
        // Batches of an earlier attempt of this job carry older values: none may go out beside this scan's.
        const earlier = await settleEarlierAttempt(job, {
          signal: stop,
          onWait: (running) =>
            runtime.logger.info({ job: job.id, running }, 'waiting for the batches of an earlier attempt'),
        });
        if (earlier > 0)
          runtime.logger.info(
            { job: job.id, batches: earlier },
            'settled the batches of an earlier attempt (unsent ones dropped, running ones awaited)',
          );
        // An earlier attempt's flow may hold the lease (handed over before its process died): with
        // its batches settled the hold guards nothing, and this attempt takes the lease anew.
        releaseFlow(store, pipeline, flowId);
        const earlierBatches = await finishedChildKeys(job);
        await releaseLostFlow(store, pipeline, (id) => runtime.flowAlive(id));
        // The scan's span: the ERP read, the diff and each push job enqueued (their parent in the trace).
        const summary = await inSpan(`scan ${pipeline}`, { 'erp_sync.pipeline': pipeline }, () =>
          scanPush(
            pipeline,
            runtime.ctx,
            { full: data.full, dryRun: false, onProgress: progressOf(job), signal: stop },
            async (batch, lease) => {
              // The frame holds the lease while it reads: its owner lets this scan's batches go out at once.
              await runtime.enqueuePush(job, batch, lease.owner);
              batches += 1;
            },
            (scan, lease) => {
              receipt = scan.receipt;
              scannedAt = Date.now();
              if (batches > 0) handToFlow(lease, flowId);
            },
          ),
        );
        if (batches === 0) {
          runtime.recordRun(summary);
          const failure = failureOfSummary(summary);
          if (failure) await handleFailure(failure, queue, runtime);
          else if (receipt !== null) await commitErpRead(runtime.ctx, pipeline, asReadReceipt(receipt));
          return summary;
        }
        // A refused key mid-scan: the batches already out finish behind the pause, like every job.
        if (summary.error?.kind === 'fatal')
          await runtime.pause(`${summary.error.code}: ${summary.error.message}`, summary.error.code);
        const scanned: ScanPayload = {
          ...data,
          step: 'scanned',
          scan: { summary, receipt, batches, scannedAt, earlierBatches },
        };
        await job.updateData(scanned);
        // The ERP is read: a trigger from now on (a watched change, a tick) must enqueue a new scan,
        // which waits on the lease the flow holds. BullMQ keeps a de-duplicated follow-up only while
        // this job is active, so while it waits for its batches the trigger would be dropped.
        await job.removeDeduplicationKey();
      }
      // Also after a restart between the two steps: the batches still to come are waited for.
      if (token && (await job.moveToWaitingChildren(token))) throw new WaitingChildrenError();
      return finishFlow(job, runtime, pipeline);
    },
  };
}

/**
 * Every push job of the flow is done: sum them up, release the lease, commit the read if all went
 * through. A flow that left items unconfirmed (or was failed as stuck) fails the scan job for good,
 * its summary kept in its data: the next scan resends them, so BullMQ must not retry this one.
 */
async function finishFlow(
  job: Job<ScanPayload>,
  runtime: JobRuntime,
  pipeline: 'stock' | 'prices',
): Promise<RunSummary> {
  const scan = job.data.scan!;
  const summary = sumFlow(
    scan,
    await job.getChildrenValues<PushResult>(),
    await job.getIgnoredChildrenFailures(),
  );
  releaseFlow(runtime.ctx.store, pipeline, job.id!);
  // Failed by a daemon for holding the pipeline too long: its lease is gone, its read not committed.
  if (job.data.stuck !== undefined)
    summary.error = { code: 'flow_stuck', kind: 'permanent', message: job.data.stuck };
  // The adapter's own step and the receipt kept in the store: a delta adapter's next read starts here.
  else if (!summary.error && scan.receipt !== null)
    await commitErpRead(runtime.ctx, pipeline, asReadReceipt(scan.receipt));
  runtime.recordRun(summary);
  await job.updateProgress(progressValue(summary, true));
  const failure = failureOfSummary(summary);
  if (!failure) return summary;
  await job.updateData({ ...job.data, outcome: summary });
  // Permanent whatever the cause: its batches ran; a pause or a retry would only sum them again.
  return handleFailure({ ...failure, kind: 'permanent' }, 'runs', runtime);
}

function progressValue(
  summary: Pick<RunSummary, 'pipeline' | 'read' | 'sent' | 'applied'>,
  done: boolean,
): RunProgress {
  return {
    pipeline: summary.pipeline,
    read: summary.read,
    sent: summary.sent,
    applied: summary.applied,
    done,
  };
}

function progressOf(job: Job): (event: ProgressEvent) => void {
  let lastAt = 0;
  return (event) => {
    const now = Date.now();
    if (now - lastAt < 500) return;
    lastAt = now;
    // The scan's own end is not the run's: the pushes are still to come.
    job.updateProgress(progressValue(event, false)).catch(() => undefined);
  };
}
