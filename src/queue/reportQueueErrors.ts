import type { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { redactRedisUrl } from './redactRedisUrl.js';

/** Where the daemon's Redis, queue and worker errors are reported: at warn, never only at debug. */
export interface QueueErrorReporter {
  /** An ioredis connection of the daemon: its errors while Redis is away, and its recovery. */
  connection(role: string, redis: Redis): void;
  queue(queue: Queue): void;
  /** A worker's `error` (its blocking connection, a lost lock) and `stalled` (a job whose process died). */
  worker(worker: Worker): void;
}

export interface QueueErrorReporterOptions {
  /** A source's errors are logged again after this long, with how many came meanwhile. */
  repeatMs?: number;
}

/**
 * Each connection, queue and worker emits an `error` per reconnect attempt (every 200 ms to 5 s
 * while Redis is away, its message changing from a reset to a refusal): the first one of each
 * source is logged at warn with the Redis address (password masked), the source's further errors
 * are counted and logged once per `repeatMs`, and a connection that is ready again says so at info
 * (and the next error of any source is news again). A job that stalled (its worker's process died
 * or its lock was lost) is a warning too: BullMQ runs it again, which an operator should know.
 */
export function reportQueueErrors(
  logger: Logger,
  redisUrl: string,
  options: QueueErrorReporterOptions = {},
): QueueErrorReporter {
  const repeatMs = options.repeatMs ?? 60_000;
  const redis = redactRedisUrl(redisUrl);
  const seen = new Map<string, { at: number; repeated: number }>();

  const report = (source: string, message: string, error: Error): void => {
    const now = Date.now();
    const last = seen.get(source);
    if (last && now - last.at < repeatMs) {
      last.repeated += 1;
      return;
    }
    seen.set(source, { at: now, repeated: 0 });
    logger.warn(
      { redis, source, err: error.message, ...(last?.repeated ? { repeated: last.repeated } : {}) },
      message,
    );
  };
  /** Whether this connection had reported errors; the queues and workers start afresh too (they have no 'ready'). */
  const recovered = (source: string): boolean => {
    const had = seen.delete(source);
    for (const key of [...seen.keys()]) if (!key.endsWith(' connection')) seen.delete(key);
    return had;
  };

  return {
    connection(role, connection) {
      const source = `${role} connection`;
      connection.on('error', (error: Error) =>
        report(source, `Redis unreachable (${source}); reconnecting`, error),
      );
      connection.on('ready', () => {
        if (recovered(source)) logger.info({ redis, source }, `Redis reachable again (${source})`);
      });
    },
    queue(queue) {
      const source = `queue ${queue.name}`;
      queue.on('error', (error) => report(source, `Redis error on the ${queue.name} queue`, error));
    },
    worker(worker) {
      const source = `worker ${worker.name}`;
      worker.on('error', (error) => report(source, `Redis error in the ${worker.name} worker`, error));
      worker.on('stalled', (jobId, previous) =>
        logger.warn(
          { queue: worker.name, job: jobId, previous },
          'job stalled (its worker stopped renewing the lock): it runs again',
        ),
      );
    },
  };
}
