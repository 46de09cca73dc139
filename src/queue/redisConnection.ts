import { Redis, type RedisOptions } from 'ioredis';
import { redactRedisUrl } from './redactRedisUrl.js';
import { RedisUnavailableError } from './RedisUnavailableError.js';

/**
 * One ioredis connection. Workers need `maxRetriesPerRequest: null` (BullMQ refuses others);
 * producers fail fast while Redis is away (`enableOfflineQueue: false`) so a cron trigger or a
 * CLI command reports the outage instead of hanging. Both reconnect forever, backing off to 5 s.
 */
export function createRedisConnection(url: string, role: 'worker' | 'producer'): Redis {
  const options: RedisOptions = {
    maxRetriesPerRequest: role === 'worker' ? null : 1,
    enableOfflineQueue: role === 'worker',
    retryStrategy: (times) => Math.min(200 * times, 5_000),
    connectTimeout: 5_000,
    lazyConnect: false,
  };
  return new Redis(url, options);
}

/** Resolves once the connection is ready, or rejects after timeoutMs (without closing it). */
export function waitForRedis(redis: Redis, timeoutMs: number): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      redis.off('ready', onReady);
      reject(new Error(`Redis not reachable within ${Math.round(timeoutMs / 1000)} s`));
    }, timeoutMs);
    const onReady = (): void => {
      clearTimeout(timer);
      resolve();
    };
    redis.once('ready', onReady);
  });
}

/**
 * A producer connection once Redis answers, for a CLI command; RedisUnavailableError (the URL
 * without its password, and why) when it does not within timeoutMs, the connection closed then.
 */
export async function openRedis(url: string, timeoutMs: number): Promise<Redis> {
  const redis = createRedisConnection(url, 'producer');
  redis.on('error', () => undefined);
  try {
    await waitForRedis(redis, timeoutMs);
  } catch (error) {
    redis.disconnect();
    throw new RedisUnavailableError(redactRedisUrl(url), (error as Error).message);
  }
  return redis;
}
