import { ErpSyncError, type ErrorDetails } from '../domain/errors.js';

/**
 * The ERP cannot be reached or read right now (a folder that cannot be read, a database that
 * refuses connections, a login that times out): retryable, the run is redone later. Adapters
 * throw it, or a subclass naming their own cause.
 */
export class ErpUnavailableError extends ErpSyncError {
  constructor(message: string, details: ErrorDetails = {}, options?: { cause?: unknown }) {
    super('erp_unavailable', message, details, options);
  }
}
