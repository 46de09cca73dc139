import type { ProgressEvent, RunOptions, RunSummary, SyncContext } from '../sync/frame/types.js';
import { handleFailure } from './handleFailure.js';
import type { JobKind } from './jobKind.js';
import type { JobRuntime } from './jobRuntime.js';
import type { JobName, PipelineName, QueueName, RunPayload, RunResult } from './jobTypes.js';
import { failureOfSummary } from './jobFailure.js';

/** What `sync --wait` reads from a running job. */
export interface RunProgress {
  pipeline: string;
  read: number;
  sent: number;
  applied: number;
  done: boolean;
}

/** A job kind on the runs queue that runs one pipeline (a run, or a scan that fans out). */
export type RunJobKind<P extends RunPayload = RunPayload> = JobKind<P, RunResult>;

/** The span of a pipeline's run job. */
export const runTrace = (pipeline: PipelineName) => (): { span: string; pipeline: PipelineName } => ({
  span: `run ${pipeline}`,
  pipeline,
});

const PROGRESS_EVERY_MS = 500;

/** How a job kind runs its pipeline when it is not simply `runPipeline` (the orders poll fans out). */
export type RunVariant = (runtime: JobRuntime) => {
  run: (ctx: SyncContext, options: RunOptions) => Promise<RunSummary>;
};

/** A job kind that runs one pipeline: decode, call the pipeline, turn its failure into BullMQ's terms. */
export function defineRunJob(name: JobName, pipeline: PipelineName, variant?: RunVariant): RunJobKind {
  const queue: QueueName = 'runs';
  return {
    name,
    queue,
    trace: runTrace(pipeline),
    async process(job, { runtime, signal }) {
      let lastAt = 0;
      const onProgress = (event: ProgressEvent): void => {
        const now = Date.now();
        if (!event.done && now - lastAt < PROGRESS_EVERY_MS) return;
        lastAt = now;
        const progress: RunProgress = {
          pipeline: event.pipeline,
          read: event.read,
          sent: event.sent,
          applied: event.applied,
          done: event.done ?? false,
        };
        job.updateProgress({ ...progress }).catch(() => undefined);
      };
      const stop = signal ? AbortSignal.any([runtime.shutdown, signal]) : runtime.shutdown;
      const options: RunOptions = { full: job.data.full, dryRun: false, onProgress, signal: stop };
      const summary = variant
        ? await variant(runtime).run(runtime.ctx, options)
        : await runtime.runPipeline(pipeline, runtime.ctx, options);
      runtime.recordRun(summary);
      const failure = failureOfSummary(summary);
      if (failure) await handleFailure(failure, queue, runtime);
      return summary;
    },
  };
}
