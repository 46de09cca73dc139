import { enqueueRun } from '../../src/queue/enqueueRun.js';
import type { QueueClient } from '../../src/queue/queueClient.js';
import { readRunJob } from '../../src/queue/readRunJob.js';

/** Enqueues a manual run (what `erp-sync sync` does) and waits for its job to complete. */
export async function runThroughQueue(
  queues: QueueClient,
  pipeline: 'stock' | 'orders',
): Promise<{ triggeredAt: number; completedAt: number }> {
  const runs = queues.queue('runs');
  const triggeredAt = Date.now();
  const job = await enqueueRun(runs, pipeline, { trigger: 'manual' });
  for (;;) {
    const view = await readRunJob(runs, job.id!);
    if (view?.state === 'completed') return { triggeredAt, completedAt: Date.now() };
    if (view?.state === 'failed') throw new Error(`${pipeline} run failed: ${JSON.stringify(view)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
