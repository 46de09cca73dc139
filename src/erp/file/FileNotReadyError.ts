import type { ErrorDetails } from '../../domain/errors.js';
import { ErpUnavailableError } from '../ErpUnavailableError.js';

/** An input file is still being written (its size or time kept changing): try again later. */
export class FileNotReadyError extends ErpUnavailableError {
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details);
  }
}
