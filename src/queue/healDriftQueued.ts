import { randomUUID } from 'node:crypto';
import { FlowProducer, type FlowJob } from 'bullmq';
import type { Config } from '../config.js';
import { describeError } from '../domain/errors.js';
import { chunks } from '../store/chunks.js';
import { healingBatches, type DriftHealer, type HealOutcome } from '../sync/push/healDrift.js';
import { emptySummary } from '../sync/frame/summary.js';
import { defaultJobOptions } from './jobOptions.js';
import { jobOptionsOf } from './jobRegistry.js';
import { pushJobName, RUN_JOB_NAMES, type PushPayload, type ScanPayload } from './jobTypes.js';
import { packBatch } from './packedBatch.js';
import { PUSH_QUEUE } from './pushJob.js';
import type { QueueClient } from './queueClient.js';
import { queueTelemetry } from '../tracing/activeTracing.js';

/**
 * The daemon's healer for `audit --fix`: per pipeline, one flow shaped like a scan's after its
 * read: a `<pipeline>-scan` parent already at its `scanned` step (nothing left to read) and one
 * push job per `sync.batchSize` items, each carrying the audit's batch and generation (taken before
 * the ERP read, so a later scan's value still wins). The daemon's push jobs send them under the
 * flow's lease (`flow-<parent id>`: they take turns with scans), and the parent sums them up and
 * releases the lease, as it does for a scan. Enqueued atomically: a flow is there whole or not at
 * all; one that could not be enqueued is a failure of the outcome (the other pipeline still goes).
 */
export const healDriftQueued =
  (client: QueueClient, config: Config): DriftHealer =>
  async (batches) => {
    const outcome: HealOutcome = { via: 'daemon', summaries: [], enqueued: [], failures: [] };
    const jobOptions = defaultJobOptions(config.queue);
    const flows = new FlowProducer({ connection: client.redis, prefix: client.prefix, ...queueTelemetry() });
    flows.on('error', () => undefined);
    try {
      for (const batch of healingBatches(batches)) {
        const parentId = `audit-fix-${batch.pipeline}-${randomUUID()}`;
        const parts = [...chunks(batch.items, config.sync.batchSize)];
        const summary = emptySummary(batch.pipeline, { full: false, dryRun: false });
        summary.read = batch.items.length;
        summary.sent = batch.items.length;
        const parent: ScanPayload = {
          pipeline: batch.pipeline,
          full: false,
          trigger: 'audit',
          requestedAt: new Date().toISOString(),
          step: 'scanned',
          scan: { summary, receipt: null, batches: parts.length, scannedAt: Date.now() },
        };
        const name = pushJobName(batch.pipeline);
        const children: FlowJob[] = parts.map((items) => {
          const data: PushPayload = {
            batch: packBatch({ ...batch, items }),
            scanOwner: '',
          };
          return {
            name,
            queueName: PUSH_QUEUE,
            data,
            opts: { ...jobOptions, ...jobOptionsOf(name) },
          };
        });
        let node;
        try {
          node = await flows.add({
            name: RUN_JOB_NAMES[batch.pipeline],
            queueName: 'runs',
            data: parent,
            opts: { ...jobOptions, jobId: parentId },
            children,
          });
        } catch (error) {
          outcome.failures.push({
            pipeline: batch.pipeline,
            part: `flow runs/${parentId} (${batch.items.length} item(s))`,
            reason: `could not be enqueued: ${describeError(error)}`,
          });
          continue;
        }
        outcome.enqueued.push({
          pipeline: batch.pipeline,
          job: `runs/${parentId}`,
          pushJobs: (node.children ?? []).map((child) => `${PUSH_QUEUE}/${child.job.id!}`),
          items: batch.items.length,
        });
      }
    } finally {
      await flows.close().catch(() => undefined);
    }
    return outcome;
  };
