import cliProgress from 'cli-progress';
import type { Queue } from 'bullmq';
import { readRunJob, type RunJobView } from '../queue/readRunJob.js';

const POLL_MS = 300;

/**
 * Waits until every given run job is done (completed, failed, or gone), with one progress bar per
 * job on a terminal: `sync --wait` and `audit --fix --wait`.
 */
export async function waitForRuns(
  runs: Queue,
  jobs: { pipeline: string; id: string }[],
  tty: boolean,
): Promise<RunJobView[]> {
  const bars = tty
    ? new cliProgress.MultiBar(
        {
          format: '{pipeline} | {state} | read {read} | sent {sent} | applied {applied}/{sent}',
          stream: process.stderr,
          hideCursor: true,
          noTTYOutput: true,
        },
        cliProgress.Presets.shades_classic,
      )
    : null;
  const bar = new Map(
    jobs.map((job) => [
      job.id,
      bars?.create(1, 0, {
        pipeline: job.pipeline.padEnd(10),
        state: 'waiting',
        read: 0,
        sent: 0,
        applied: 0,
      }),
    ]),
  );
  const done = new Map<string, RunJobView>();
  try {
    while (done.size < jobs.length) {
      for (const job of jobs) {
        if (done.has(job.id)) continue;
        const view = (await readRunJob(runs, job.id)) ?? {
          id: job.id,
          state: 'missing',
          progress: null,
          summary: null,
          failedReason: null,
        };
        const progress = view.progress ?? view.summary ?? { read: 0, sent: 0, applied: 0 };
        bar.get(job.id)?.update(0, {
          state: view.state,
          read: progress.read,
          sent: progress.sent,
          applied: progress.applied,
        });
        if (['completed', 'failed', 'missing'].includes(view.state)) done.set(job.id, view);
      }
      if (done.size < jobs.length) await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  } finally {
    bars?.stop();
  }
  return jobs.map((job) => done.get(job.id)!);
}
