import { Job, type Queue } from 'bullmq';
import type { ScanPayload } from './jobTypes.js';

/** What the lease keeper needs to know of a flow holding its pipeline. */
export interface FlowView {
  /** The scan job waits for its push jobs (`waiting-children`). */
  pushing: boolean;
  /** Since the scan handed the lease to the flow. */
  ageMs: number;
  batches: number;
}

/** The flow of scan job `scanJobId` as Redis has it; null once the job is gone. */
export async function inspectFlow(
  runs: Queue,
  scanJobId: string,
  now = Date.now(),
): Promise<FlowView | null> {
  const job = await Job.fromId<ScanPayload>(runs, scanJobId);
  if (!job) return null;
  const pushing = (await job.getState()) === 'waiting-children';
  const since = job.data.scan?.scannedAt ?? job.processedOn ?? job.timestamp;
  return { pushing, ageMs: now - since, batches: job.data.scan?.batches ?? 1 };
}

/** Whether a scan job still waits for (or runs) its push jobs: false once gone with Redis or failed as stuck. */
export async function flowAlive(runs: Queue, scanJobId: string): Promise<boolean> {
  const job = await Job.fromId<ScanPayload>(runs, scanJobId);
  if (!job || job.data.stuck !== undefined) return false;
  return ['active', 'waiting-children', 'waiting', 'delayed'].includes(await job.getState());
}

/**
 * Fails a flow that held its pipeline too long (BullMQ parents can stay in `waiting-children`
 * for ever, taskforcesh/bullmq#3122 and #3362): the scan job is marked stuck (its push jobs that
 * wake up later see a dead flow and send nothing), its waiting batches are removed (never sent:
 * the next scan diffs their items again), a running one is detached (its items stay in flight, so
 * the next scan sends them again), and the scan job, with no child left, goes back to its worker,
 * which fails it with the reason. A parent stuck with no child at all stays where it is, marked:
 * the lease, released by the caller, is what held the pipeline.
 */
export async function failStuckFlow(
  runs: Queue,
  pushes: Queue,
  scanJobId: string,
  reason: string,
): Promise<void> {
  const job = await Job.fromId<ScanPayload>(runs, scanJobId);
  if (!job) return;
  await job.updateData({ ...job.data, stuck: reason });
  await job.removeUnprocessedChildren();
  const { unprocessed = [] } = await job.getDependencies();
  for (const key of unprocessed) {
    const child = await Job.fromId(pushes, key.slice(key.lastIndexOf(':') + 1));
    await child?.removeChildDependency();
  }
}
