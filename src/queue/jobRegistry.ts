import type { JobsOptions } from 'bullmq';
import type { JobKind } from './jobKind.js';
import { JobKindMissingError } from './JobKindMissingError.js';
import { JOB_NAMES, QUEUE_NAMES, type JobName, type QueueName, type QueuePayloads } from './jobTypes.js';
import { orderBatchImportJob } from './orderBatchImportJob.js';
import { orderImportJob } from './orderImportJob.js';
import { ordersPollJob } from './ordersPollJob.js';
import { definePushJob } from './pushJob.js';
import { defineRunJob } from './runJob.js';
import { defineScanJob } from './scanJob.js';

/** Every job kind, by the queue whose worker runs it (that queue's payload type is the kinds' payload). */
export type JobRegistry = { readonly [Q in QueueName]: readonly JobKind<QueuePayloads[Q]>[] };

/**
 * The daemon's job kinds: the workers are built from this list, and the daemon refuses to start
 * when a job name has no kind here. Adding a kind: its name in `JOB_NAMES` and its payload in
 * `JobPayloads` (jobTypes.ts), its module (a `JobKind`), and one line here.
 */
export const JOB_REGISTRY: JobRegistry = {
  runs: [
    defineRunJob('catalog', 'catalog'),
    // A no-op unless products.enabled.
    defineRunJob('products', 'products'),
    ordersPollJob,
    defineScanJob('stock-scan', 'stock'),
    defineScanJob('prices-scan', 'prices'),
    defineRunJob('feedback', 'feedback'),
    defineRunJob('erp-orders', 'erp-orders'),
  ],
  pushes: [definePushJob('stock-push'), definePushJob('prices-push')],
  imports: [orderBatchImportJob, orderImportJob],
};

/**
 * Every job name has exactly one kind, on the queue it is listed under; else the daemon must not
 * start (a job of that name would wait for ever, or fail on every attempt).
 */
export function checkRegistry(registry: JobRegistry): void {
  const seen = new Map<string, QueueName>();
  for (const queue of QUEUE_NAMES)
    for (const kind of registry[queue]) {
      if (kind.queue !== queue)
        throw new JobKindMissingError(kind.name, queue, `its kind is declared for the ${kind.queue} queue`);
      const earlier = seen.get(kind.name);
      if (earlier)
        throw new JobKindMissingError(kind.name, queue, `a second kind of it (the first on ${earlier})`);
      seen.set(kind.name, queue);
    }
  for (const name of JOB_NAMES)
    if (!seen.has(name)) throw new JobKindMissingError(name, 'any', 'the job registry lists no kind of it');
}

/** The options a job of this name is enqueued with, as its kind declares them. */
export function jobOptionsOf(name: JobName, registry: JobRegistry = JOB_REGISTRY): JobsOptions {
  for (const queue of QUEUE_NAMES)
    for (const kind of registry[queue]) if (kind.name === name) return kind.options ?? {};
  return {};
}
