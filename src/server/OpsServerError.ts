import { ErpSyncError } from '../domain/errors.js';

/** The ops server cannot start as configured (e.g. a non-loopback host without a dashboard password). */
export class OpsServerError extends ErpSyncError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super('config_invalid', message, details);
  }
}
