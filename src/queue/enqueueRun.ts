import { randomUUID } from 'node:crypto';
import type { Job, Queue } from 'bullmq';
import { RUN_JOB_NAMES, type PipelineName, type RunPayload, type Trigger } from './jobTypes.js';

/** The de-duplication id of a pipeline's scheduled runs: one waiting and one active at most, across replicas. */
export const scheduledRunId = (pipeline: PipelineName): string => `run-${pipeline}`;

/**
 * Enqueues one run of a pipeline. Schedules de-duplicate per pipeline (a trigger while a run is
 * waiting is dropped; while one is active, one follow-up is kept), so a slow ERP or a second
 * replica never piles up scans. A manual run gets an id of its own so `--full` is never merged
 * away; the store lease still makes it take turns with a scheduled run of the same pipeline.
 */
export async function enqueueRun(
  queue: Queue<RunPayload>,
  pipeline: PipelineName,
  options: { trigger: Trigger; full?: boolean },
): Promise<Job<RunPayload>> {
  const name = RUN_JOB_NAMES[pipeline];
  const payload: RunPayload = {
    pipeline,
    full: options.full ?? false,
    trigger: options.trigger,
    requestedAt: new Date().toISOString(),
  };
  if (options.trigger === 'manual') {
    return queue.add(name, payload, { jobId: `manual-${pipeline}-${randomUUID()}` });
  }
  return queue.add(name, payload, {
    deduplication: { id: scheduledRunId(pipeline), keepLastIfActive: true },
  });
}
