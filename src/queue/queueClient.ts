import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { RedisConfig } from '../config/daemonConfigSchema.js';
import { QUEUE_NAMES, type QueueName } from './jobTypes.js';
import { openRedis } from './redisConnection.js';
import { queueTelemetry } from '../tracing/activeTracing.js';

/** The daemon's queues as seen from a CLI command (sync, jobs, status): producer side only. */
export interface QueueClient {
  redis: Redis;
  prefix: string;
  queue(name: QueueName): Queue;
  queues(): Queue[];
  close(): Promise<void>;
}

export async function openQueueClient(config: RedisConfig, timeoutMs = 5_000): Promise<QueueClient> {
  const redis = await openRedis(config.url, timeoutMs);
  // BullMQ is loaded once Redis answers: a command that finds Redis away (status) never pays for it.
  let BullQueue: typeof Queue;
  try {
    ({ Queue: BullQueue } = await import('bullmq'));
  } catch (error) {
    redis.disconnect();
    throw error;
  }
  const opened = new Map<QueueName, Queue>();
  const queue = (name: QueueName): Queue => {
    let q = opened.get(name);
    if (!q) {
      q = new BullQueue(name, { connection: redis, prefix: config.prefix, ...queueTelemetry() });
      q.on('error', () => undefined);
      opened.set(name, q);
    }
    return q;
  };
  return {
    redis,
    prefix: config.prefix,
    queue,
    queues: () => QUEUE_NAMES.map(queue),
    async close() {
      await Promise.all([...opened.values()].map((q) => q.close().catch(() => undefined)));
      redis.disconnect();
    },
  };
}
