import { Queue, Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRunJob, type RunJobView } from '../../../src/queue/readRunJob.js';
import { startPrivateRedis, type PrivateRedis } from '../../../dev/redisServer.js';

let redis: PrivateRedis;
beforeAll(async () => {
  redis = await startPrivateRedis();
});
afterAll(async () => {
  await redis.close();
});

describe('reading a run job while a worker finishes it (sync --wait, audit --fix --wait)', () => {
  it('never shows a finished job without its summary or its failure reason', async () => {
    const connection = { host: '127.0.0.1', port: redis.port };
    const runs = new Queue('runs', { connection, prefix: 'read-run-job' });
    // Each job ends after a few random milliseconds, so the reads below fall at every point of it.
    const worker = new Worker(
      'runs',
      async (job) => {
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
        if (job.data.fail) throw new Error(`job ${job.id} failed`);
        return { pipeline: 'stock', read: job.data.n };
      },
      { connection, prefix: 'read-run-job' },
    );
    const seen: RunJobView[] = [];
    try {
      for (let n = 0; n < 100; n++) {
        const job = await runs.add('stock-scan', { n, fail: n % 4 === 0 });
        let view: RunJobView | null = null;
        while (view?.state !== 'completed' && view?.state !== 'failed')
          view = await readRunJob(runs, job.id!);
        seen.push(view);
      }
    } finally {
      await worker.close();
      await runs.close();
    }
    // Read in the other order (the job, then its state), about a third of them came back "completed"
    // with no summary: `audit --fix --wait` then printed no summary line.
    expect(seen.filter((view) => view.state === 'completed' && view.summary === null)).toEqual([]);
    expect(seen.filter((view) => view.state === 'failed' && view.failedReason === null)).toEqual([]);
    expect(seen.filter((view) => view.state === 'completed')).toHaveLength(75);
    expect(seen.find((view) => view.state === 'failed')?.failedReason).toMatch(/^job \d+ failed$/);
  });
});
