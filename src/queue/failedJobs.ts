import { Job } from 'bullmq';
import type { QueueName } from './jobTypes.js';
import type { QueueClient } from './queueClient.js';

export interface FailedJobView {
  queue: QueueName;
  id: string;
  name: string;
  reason: string;
  attempts: number;
  failedAt: string | null;
  data: unknown;
}

const LIST_LIMIT = 1000;

/** The failed jobs kept in every queue (bounded by queue.keepFailed), newest first. */
export async function listFailedJobs(client: QueueClient): Promise<FailedJobView[]> {
  const out: FailedJobView[] = [];
  for (const queue of client.queues()) {
    for (const job of await queue.getFailed(0, LIST_LIMIT - 1)) {
      out.push({
        queue: queue.name as QueueName,
        id: job.id ?? '?',
        name: job.name,
        reason: job.failedReason,
        attempts: job.attemptsMade,
        failedAt: job.finishedOn ? new Date(job.finishedOn).toISOString() : null,
        data: job.data,
      });
    }
  }
  return out.sort((a, b) => (b.failedAt ?? '').localeCompare(a.failedAt ?? ''));
}

/**
 * Puts failed jobs back to wait: the given ids (plain or `queue/id`), or every failed job.
 * Returns what was retried and which ids were not found among the failed jobs.
 */
export async function retryFailedJobs(
  client: QueueClient,
  ids: string[],
): Promise<{ retried: string[]; notFound: string[] }> {
  const retried: string[] = [];
  const notFound: string[] = [];
  if (ids.length === 0) {
    for (const failed of await listFailedJobs(client)) {
      const job = await Job.fromId(client.queue(failed.queue), failed.id);
      if (!job) continue;
      await job.retry('failed');
      retried.push(`${failed.queue}/${failed.id}`);
    }
    return { retried, notFound };
  }
  for (const given of ids) {
    const [queueName, id] = given.includes('/') ? given.split('/', 2) : [null, given];
    let found = false;
    for (const queue of client.queues()) {
      if (queueName && queue.name !== queueName) continue;
      const job = await Job.fromId(queue, id!);
      if (!job || !(await job.isFailed())) continue;
      await job.retry('failed');
      retried.push(`${queue.name}/${id}`);
      found = true;
      break;
    }
    if (!found) notFound.push(given);
  }
  return { retried, notFound };
}
