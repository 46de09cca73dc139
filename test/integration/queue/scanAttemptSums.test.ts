import { FlowProducer, Queue, QueueEvents, Worker, type Job } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PushResult } from '../../../src/queue/pushJob.js';
import { finishedChildKeys } from '../../../src/queue/settleEarlierAttempt.js';
import { sumFlow } from '../../../src/queue/sumFlow.js';
import { emptySummary } from '../../../src/sync/frame/summary.js';
import { startPrivateRedis, type PrivateRedis } from '../../../dev/redisServer.js';

let redis: PrivateRedis;
beforeAll(async () => {
  redis = await startPrivateRedis();
});
afterAll(async () => {
  await redis.close();
});

const pushed = (applied: number): PushResult => ({
  superseded: 0,
  applied,
  notFound: 0,
  rejected: 0,
  failed: 0,
  items: applied,
  requests: 1,
});

describe('the summary of a scan job that ran again', () => {
  it('sums only the batches of this attempt; those an earlier attempt finished are counted apart', async () => {
    const connection = { host: '127.0.0.1', port: redis.port };
    const prefix = 'sums';
    const flows = new FlowProducer({ connection, prefix });
    const pushes = new Queue('pushes', { connection, prefix });
    const events = new QueueEvents('pushes', { connection, prefix });
    // A push job "fails" for good when it carries fail: true; the others apply `applied` items.
    const worker = new Worker(
      'pushes',
      async (job: Job<{ applied: number; fail?: boolean }>) => {
        if (job.data.fail) throw new Error('upstream down');
        return pushed(job.data.applied);
      },
      { connection, prefix },
    );
    try {
      await events.waitUntilReady();
      const child = { queueName: 'pushes', opts: { ignoreDependencyOnFailure: true, attempts: 1 } };
      // The earlier attempt: three batches, two applied, one failed for good, before its process died.
      const flow = await flows.add({
        name: 'stock-scan',
        queueName: 'runs',
        data: {},
        children: [
          { ...child, name: 'stock-push', data: { applied: 5 } },
          { ...child, name: 'stock-push', data: { applied: 7 } },
          { ...child, name: 'stock-push', data: { fail: true } },
        ],
      });
      const scan = flow.job;
      await Promise.all(
        flow.children!.map(({ job }) => job.waitUntilFinished(events).catch(() => undefined)),
      );

      // The new attempt: what was finished when it began, then a batch of its own.
      const earlierBatches = await finishedChildKeys(scan);
      expect(earlierBatches).toHaveLength(3);
      const own = await pushes.add(
        'stock-push',
        { applied: 2 },
        { parent: { id: scan.id!, queue: scan.queueQualifiedName } },
      );
      await own.waitUntilFinished(events);

      const summary = { ...emptySummary('stock', { full: false, dryRun: false }), sent: 2 };
      const children = await scan.getChildrenValues<PushResult>();
      const failures = await scan.getIgnoredChildrenFailures();
      const sums = sumFlow({ summary, receipt: null, batches: 1, earlierBatches }, children, failures);
      expect(sums.applied).toBe(2);
      expect(sums.requests).toBe(1);
      expect(sums.extra).toEqual({ earlierBatches: 3, superseded: 0 });
      expect(sums.error).toBeUndefined();
      // Without the earlier attempt's keys, its batches would be summed in (and its failure reported).
      const unfiltered = sumFlow({ summary, receipt: null, batches: 1 }, children, failures);
      expect(unfiltered.applied).toBe(14);
      expect(unfiltered.extra.failedBatches).toBe(1);
      expect(unfiltered.error?.message).toContain('upstream down');
    } finally {
      await worker.close();
      await Promise.all([flows.close(), pushes.close(), events.close()]);
    }
  });
});
