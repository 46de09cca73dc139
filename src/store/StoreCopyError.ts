import { ErpSyncError, type ErrorDetails } from '../domain/errors.js';

/** A store copy (`store migrate`) refused before writing, or found different when read back. */
export class StoreCopyError extends ErpSyncError {
  constructor(
    code: 'store_copy_refused' | 'store_copy_mismatch',
    message: string,
    details: ErrorDetails = {},
  ) {
    super(code, message, details);
  }
}
