import type { Queue } from 'bullmq';
import type { Logger } from 'pino';
import type { Config } from '../config.js';

/**
 * The bound on bulk requests in flight across replicas: BullMQ's global concurrency of the pushes
 * queue, kept in Redis (the queue's meta hash), so every worker of every process counts against it.
 * A push job sends one bulk request at a time (a refused one is split and its parts sent one after
 * another), so active push jobs bound the bulk requests in flight. A killed daemon's active jobs
 * keep their slots until their locks lapse and a live worker's stalled check puts them back (about
 * 15 s, WORKER_TIMING): that is the lease of a slot. Set at every start: the last replica started wins.
 */
export async function applyBulkConcurrency(pushes: Queue, config: Config, log: Logger): Promise<void> {
  const bound = config.queue.bulkConcurrency ?? config.sync.concurrency;
  await pushes.setGlobalConcurrency(bound);
  log.info({ bulkConcurrency: bound }, 'bulk requests in flight across replicas bounded');
}
