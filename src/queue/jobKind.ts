import type { Job, JobsOptions } from 'bullmq';
import type { JobRuntime } from './jobRuntime.js';
import type { JobName, PipelineName, QueueName } from './jobTypes.js';

/** What a processor gets besides its job. */
export interface JobContext {
  runtime: JobRuntime;
  /** Aborted when BullMQ cancels the job (the daemon's shutdown is `runtime.shutdown`). */
  signal?: AbortSignal;
  /** The worker's lock token (a scan moves itself to waiting-children with it). */
  token?: string;
}

/**
 * One kind of job: its name, its queue, its payload type `P`, the options it is enqueued with,
 * and its processor. The registry (jobRegistry.ts) lists every kind; the daemon builds its
 * workers from it and refuses to start when a job name has none.
 */
export interface JobKind<P, R = unknown> {
  readonly name: JobName;
  readonly queue: QueueName;
  /** Options every job of this kind is enqueued with, over the queue's defaults. */
  readonly options?: JobsOptions;
  /** The span a job of this kind runs in, and the pipeline it works for (none: no span of its own). */
  trace?(data: P): { span: string; pipeline: PipelineName };
  process(job: Job<P>, context: JobContext): Promise<R>;
}
