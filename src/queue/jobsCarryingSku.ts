import type { Job } from 'bullmq';
import type { SkuJob, SkuJobs } from '../diagnostics/explainSku.js';
import type { RedisConfig } from '../config/daemonConfigSchema.js';
import type { PushBatch } from '../sync/push/pushBatch.js';
import type { PushPayload } from './jobTypes.js';
import { readPushBatch } from './packedBatch.js';
import { PUSH_QUEUE } from './pushJob.js';
import { openQueueClient, type QueueClient } from './queueClient.js';
import { redactRedisUrl } from './redactRedisUrl.js';

/** The states a push job still matters in: about to be sent, being sent, or failed for good (kept for `jobs`). */
const STATES = ['active', 'waiting', 'prioritized', 'delayed', 'failed'] as const;
const PAGE = 200;
/** Push jobs looked at, at most: a backlog larger than this is a problem `erp-sync status` shows anyway. */
export const JOB_SCAN_LIMIT = 5_000;

/** A push job's batch, in either layout; null for data of another shape. */
function batchOf(job: Job): PushBatch | null {
  try {
    return readPushBatch((job.data as Partial<PushPayload> | undefined)?.batch);
  } catch {
    return null;
  }
}

/** The SKU's items (the SKU and its variants) in a push job's batch, packed or not. */
function itemsOf(batch: PushBatch, sku: string): SkuJob['items'] {
  return batch.items
    .filter((item) => item?.sku === sku)
    .map((item) => ({ key: String(item.key), value: String(item.hash) }));
}

/** How long `explain` looks for Redis before it says it could not. */
const REDIS_TIMEOUT_MS = 2_000;

/**
 * The daemon's push jobs carrying a SKU, for `explain sku`; Redis away is an answer (`read`
 * false, with the reason), not an error: the rest of the story stands without it.
 */
export async function jobsCarryingSku(
  redis: RedisConfig,
  sku: string,
  limit = JOB_SCAN_LIMIT,
): Promise<SkuJobs> {
  const where = `${redactRedisUrl(redis.url)}, prefix ${redis.prefix}`;
  let client: QueueClient;
  try {
    client = await openQueueClient(redis, REDIS_TIMEOUT_MS);
  } catch {
    return { read: false, where, error: 'Redis is not reachable', jobs: [], scanned: 0, truncated: false };
  }
  try {
    return { read: true, where, ...(await scanPushJobs(client, sku, limit)) };
  } catch (error) {
    return { read: false, where, error: (error as Error).message, jobs: [], scanned: 0, truncated: false };
  } finally {
    await client.close();
  }
}

/**
 * A bounded walk through the pushes queue's active, waiting, prioritized, delayed and failed jobs,
 * a page at a time, keeping those that carry the SKU.
 */
async function scanPushJobs(
  client: QueueClient,
  sku: string,
  limit: number,
): Promise<{ jobs: SkuJob[]; scanned: number; truncated: boolean }> {
  const queue = client.queue(PUSH_QUEUE);
  const jobs: SkuJob[] = [];
  let scanned = 0;
  for (const state of STATES) {
    for (let start = 0; ; start += PAGE) {
      if (scanned >= limit) return { jobs, scanned, truncated: true };
      const size = Math.min(PAGE, limit - scanned);
      const page = await queue.getJobs([state], start, start + size - 1, true);
      scanned += page.length;
      for (const job of page) {
        // A job removed between the listing and its read comes back empty.
        if (!job) continue;
        const batch = batchOf(job);
        const items = batch ? itemsOf(batch, sku) : [];
        if (!batch || !items.length) continue;
        jobs.push({
          queue: PUSH_QUEUE,
          id: job.id ?? '?',
          name: job.name,
          state,
          pipeline: batch.pipeline,
          generation: Number(batch.generation) || 0,
          attempts: job.attemptsMade,
          failedReason: state === 'failed' ? (job.failedReason ?? null) : null,
          items,
        });
      }
      if (page.length < size) break;
    }
  }
  return { jobs, scanned, truncated: false };
}
