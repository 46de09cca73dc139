import { Job, type Queue } from 'bullmq';
import type { RunSummary } from '../sync/frame/types.js';
import type { RunResult, ScanPayload } from './jobTypes.js';
import type { RunProgress } from './runJob.js';

export interface RunJobView {
  id: string;
  state: string;
  progress: RunProgress | null;
  summary: RunSummary | null;
  failedReason: string | null;
}

/** A run job's state, progress and result, for `sync --wait` (null once removed or lost). */
export async function readRunJob(queue: Queue, id: string): Promise<RunJobView | null> {
  // The state first, then the job: BullMQ stores the result and moves the job to completed in one
  // script, so a job read after its state holds at least what that state promised. Read the other
  // way round, a job that finished between the two reads showed "completed" without its summary.
  const state = await queue.getJobState(id);
  if (state === 'unknown') return null;
  const job = await Job.fromId<ScanPayload, RunResult | null | undefined>(queue, id);
  if (!job) return null;
  const progress = isRunProgress(job.progress) ? job.progress : null;
  return {
    id,
    state,
    progress,
    // A flow that left items unconfirmed failed with its summary in its data.
    summary: job.returnvalue ?? job.data.outcome ?? null,
    failedReason: job.failedReason ?? null,
  };
}

/** What a run job reports: an object with the counts (a job that has not reported yet has 0). */
function isRunProgress(progress: unknown): progress is RunProgress {
  return typeof progress === 'object' && progress !== null && 'pipeline' in progress;
}
