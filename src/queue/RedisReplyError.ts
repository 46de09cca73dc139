import { ErpSyncError } from '../domain/errors.js';

/** Redis answered a command with an error (its own words: `ERR unknown command ...`, `WRONGPASS ...`). */
export class RedisReplyError extends ErpSyncError {
  constructor(reply: string) {
    super('redis_reply', reply);
  }
}
