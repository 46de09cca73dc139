import { ErpSyncError } from '../domain/errors.js';

/** Redis could not be reached (the CLI's queue commands need the daemon's Redis). */
export class RedisUnavailableError extends ErpSyncError {
  constructor(redis: string, reason: string) {
    super(
      'redis_unavailable',
      `Redis at ${redis} is not reachable (${reason}); start Redis or set redis.url / REDIS_URL, or run with --inline without Redis`,
      { redis },
    );
  }
}
