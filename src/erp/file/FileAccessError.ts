import type { ErrorDetails } from '../../domain/errors.js';
import { ErpUnavailableError } from '../ErpUnavailableError.js';

/** The drop folder or a file in it cannot be read or moved (permissions, missing folder). */
export class FileAccessError extends ErpUnavailableError {
  constructor(message: string, details: ErrorDetails = {}, options?: { cause?: unknown }) {
    super(message, details, options);
  }
}
