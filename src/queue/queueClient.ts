import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { RedisConfig } from './daemonConfigSchema.js';
import { QUEUE_NAMES, type QueueName } from './jobTypes.js';
import { createRedisConnection, redactRedisUrl, waitForRedis } from './redisConnection.js';
import { RedisUnavailableError } from './RedisUnavailableError.js';

/** The daemon's queues as seen from a CLI command (sync, jobs, status): producer side only. */
export interface QueueClient {
  redis: Redis;
  prefix: string;
  queue(name: QueueName): Queue;
  queues(): Queue[];
  close(): Promise<void>;
}

export async function openQueueClient(config: RedisConfig, timeoutMs = 5_000): Promise<QueueClient> {
  const redis = createRedisConnection(config.url, 'producer');
  redis.on('error', () => undefined);
  try {
    await waitForRedis(redis, timeoutMs);
  } catch (error) {
    redis.disconnect();
    throw new RedisUnavailableError(redactRedisUrl(config.url), (error as Error).message);
  }
  const opened = new Map<QueueName, Queue>();
  const queue = (name: QueueName): Queue => {
    let q = opened.get(name);
    if (!q) {
      q = new Queue(name, { connection: redis, prefix: config.prefix });
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
