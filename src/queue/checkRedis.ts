import type { RedisConfig } from '../config/daemonConfigSchema.js';
import { redactRedisUrl } from './redactRedisUrl.js';
import { RespConnection } from './RespConnection.js';

export const MIN_REDIS_VERSION = [6, 2] as const;

export interface RedisCheck {
  ok: boolean;
  details: string;
}

export function infoField(info: string, name: string): string | undefined {
  return new RegExp(`^${name}:(.*)$`, 'm').exec(info)?.[1]?.trim();
}

/** Whether a Redis version string is at least 6.2 (BullMQ's minimum). */
export function redisVersionOk(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map((part) => Number.parseInt(part, 10));
  return major > MIN_REDIS_VERSION[0] || (major === MIN_REDIS_VERSION[0] && minor >= MIN_REDIS_VERSION[1]);
}

/**
 * `erp-sync check`'s Redis line: reachable, version >= 6.2, and `maxmemory-policy noeviction`
 * (any eviction policy may drop queue keys under memory pressure: jobs would vanish).
 */
export async function checkRedis(config: RedisConfig): Promise<RedisCheck> {
  const where = redactRedisUrl(config.url);
  // A plain connection: the check reads INFO and needs no queue (nor BullMQ, nor ioredis).
  let redis;
  try {
    redis = await RespConnection.open(config.url, 3_000);
  } catch (error) {
    return { ok: false, details: (error as Error).message };
  }
  try {
    // Both sent at once: the replies come in order (RespConnection's queue), one round trip.
    const [server, memory] = await Promise.all([redis.call('INFO', 'server'), redis.call('INFO', 'memory')]);
    const info = `${String(server)}\n${String(memory)}`;
    const version = infoField(info, 'redis_version') ?? '?';
    const policy = infoField(info, 'maxmemory_policy') ?? '?';
    const problems: string[] = [];
    if (!redisVersionOk(version)) problems.push(`version ${version} is older than 6.2`);
    if (policy !== 'noeviction')
      problems.push(`maxmemory-policy is ${policy}; set it to noeviction or jobs may be evicted`);
    return problems.length
      ? { ok: false, details: `${where}: ${problems.join('; ')}` }
      : { ok: true, details: `${where} (version ${version}, maxmemory-policy noeviction)` };
  } catch (error) {
    return { ok: false, details: `${where}: ${(error as Error).message}` };
  } finally {
    redis.close();
  }
}
