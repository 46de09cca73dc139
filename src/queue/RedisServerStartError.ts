import { ErpSyncError } from '../domain/errors.js';

/** A local `redis-server` could not be started: not on PATH (`notFound`), or it exited or hung. */
export class RedisServerStartError extends ErpSyncError {
  readonly notFound: boolean;

  constructor(reason: string, notFound: boolean) {
    super('redis_unavailable', `redis-server could not be started: ${reason}`, { notFound });
    this.notFound = notFound;
  }
}
