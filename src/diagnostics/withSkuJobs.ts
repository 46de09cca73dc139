import type { ItemPipelineStory, SkuJob, SkuJobs, SkuStory } from './explainSku.js';
import { overallVerdict } from './explainSku.js';

const jobName = (job: SkuJob): string => `${job.queue}/${job.id}`;

/**
 * The jobs that still matter for one item: they carry it and no later push has written it (a job
 * older than the item's fingerprint is skipped by the generation guard when it runs).
 */
function jobsFor(key: string, pipeline: string, p: ItemPipelineStory, jobs: SkuJob[]): SkuJob[] {
  const acked = p.acknowledged?.generation ?? 0;
  return jobs
    .filter(
      (job) =>
        job.pipeline === pipeline && job.generation >= acked && job.items.some((item) => item.key === key),
    )
    .sort((a, b) => b.generation - a.generation);
}

/**
 * A pending item's verdict with the daemon's queues in view: a job carrying it is queued (it will
 * be pushed by that job), or the last one failed for good (blocked until it is retried or the
 * next run sends it again). Other verdicts stand: an item in step needs nothing, a blocked one
 * needs a person whatever the queue holds.
 */
function withJobs(key: string, pipeline: string, p: ItemPipelineStory, jobs: SkuJob[]): ItemPipelineStory {
  if (p.verdict.state !== 'pending') return p;
  const relevant = jobsFor(key, pipeline, p, jobs);
  const queued = relevant.find((job) => job.state !== 'failed');
  if (queued) {
    const value = queued.items.find((item) => item.key === key)?.value ?? '?';
    return {
      ...p,
      verdict: {
        state: 'pending',
        text: `will be pushed: queued in job ${jobName(queued)} (${queued.state}, ${value})`,
      },
    };
  }
  const failed = relevant.find((job) => job.state === 'failed');
  if (!failed) return p;
  return {
    ...p,
    verdict: {
      state: 'blocked',
      text: `blocked: job ${jobName(failed)} failed after ${failed.attempts} attempt(s): ${failed.failedReason ?? '?'} — retry with \`erp-sync jobs retry ${jobName(failed)}\` (the next ${pipeline} run also sends it again)`,
    },
  };
}

/** The story with the daemon's jobs carrying the SKU, and the verdicts they change. */
export function withSkuJobs(story: SkuStory, jobs: SkuJobs): SkuStory {
  const items = story.items.map((item) => ({
    ...item,
    stock: withJobs(item.key, 'stock', item.stock, jobs.jobs),
    prices: withJobs(item.key, 'prices', item.prices, jobs.jobs),
  }));
  const out: SkuStory = { ...story, items, jobs };
  return { ...out, verdict: overallVerdict(out) };
}
