import { UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import { inSpan, queueTelemetry } from '../tracing/activeTracing.js';
import type { JobContext, JobKind } from './jobKind.js';
import { JobKindMissingError } from './JobKindMissingError.js';
import { WORKER_TIMING } from './jobOptions.js';
import type { JobRegistry } from './jobRegistry.js';
import type { JobRuntime } from './jobRuntime.js';
import { importConcurrency } from '../sync/orders/importConcurrency.js';
import { QUEUE_NAMES, type PipelineName, type QueueName } from './jobTypes.js';

/** Jobs run at once on the runs queue: every pipeline, plus a manual run waiting on its lease. */
const RUNS_CONCURRENCY = 8;

/** Jobs a worker of each queue runs at once. */
const CONCURRENCY: { readonly [Q in QueueName]: (config: Config, runtime: JobRuntime) => number } = {
  runs: () => RUNS_CONCURRENCY,
  pushes: (config) => config.sync.concurrency,
  imports: (config, runtime) => importConcurrency(config, runtime.ctx.erp),
};

/** The API-bound queues (a push job is one bulk request, an import at most one GET): `queue.rateLimit` limits them. */
const RATE_LIMITED: ReadonlySet<QueueName> = new Set(['pushes', 'imports']);

type Processor<P> = (job: Job<P>, token?: string, signal?: AbortSignal) => Promise<unknown>;

export interface WorkersOptions {
  registry: JobRegistry;
  runtime: JobRuntime;
  config: Config;
  connection: Redis;
  /** Wraps every processor (the account gate: jobs run only while the store's account is the key's). */
  guard: <P>(processor: Processor<P>) => Processor<P>;
}

/**
 * One worker per queue, built from the registry: each dispatches a job to the kind of its name on
 * that queue, in the kind's span. The one place workers are made, so that what every worker needs
 * (timing, telemetry, the account gate, the rate limit) is set once.
 */
export function createWorkers(options: WorkersOptions): Map<QueueName, Worker> {
  const workers = new Map<QueueName, Worker>();
  const build = <Q extends QueueName>(queue: Q): Worker => {
    const rateLimit = RATE_LIMITED.has(queue) ? options.config.queue.rateLimit : null;
    return new Worker(queue, options.guard(dispatch(queue, options.registry[queue], options.runtime)), {
      connection: options.connection,
      prefix: options.config.redis.prefix,
      concurrency: CONCURRENCY[queue](options.config, options.runtime),
      ...WORKER_TIMING,
      ...queueTelemetry(),
      ...(rateLimit
        ? { limiter: { max: rateLimit.max, duration: Math.round(rateLimit.perSeconds * 1000) } }
        : {}),
    });
  };
  for (const queue of QUEUE_NAMES) workers.set(queue, build(queue));
  return workers;
}

function dispatch<P>(queue: QueueName, kinds: readonly JobKind<P>[], runtime: JobRuntime): Processor<P> {
  const byName = new Map<string, JobKind<P>>(kinds.map((kind) => [kind.name, kind]));
  return async (job, token, signal) => {
    const kind = byName.get(job.name);
    // A job of a name this version does not know (enqueued by hand, or by another version): never retried.
    if (!kind)
      throw new UnrecoverableError(
        new JobKindMissingError(job.name, queue, 'not a job of this queue').message,
      );
    const context: JobContext = { runtime, ...(token ? { token } : {}), ...(signal ? { signal } : {}) };
    const traced = kind.trace?.(job.data);
    if (!traced) return kind.process(job, context);
    return inSpan(traced.span, spanAttributes(job, traced.pipeline), () => kind.process(job, context));
  };
}

/** What a job's span says of it: no payload, only names and the attempt. */
function spanAttributes(job: Job, pipeline: PipelineName): Record<string, string | number> {
  return {
    'erp_sync.pipeline': pipeline,
    'messaging.message.id': job.id ?? '',
    'erp_sync.job': job.name,
    'erp_sync.attempt': job.attemptsMade + 1,
  };
}
