import { ErpSyncError, type ErrorDetails } from '../../domain/errors.js';

/** An input file is still being written (its size or time kept changing): try again later. */
export class FileNotReadyError extends ErpSyncError {
  constructor(message: string, details: ErrorDetails = {}) {
    super('erp_unavailable', message, details);
  }
}

/** The drop folder or a file in it cannot be read or moved (permissions, missing folder). */
export class FileAccessError extends ErpSyncError {
  constructor(message: string, details: ErrorDetails = {}, options?: { cause?: unknown }) {
    super('erp_unavailable', message, details, options);
  }
}
