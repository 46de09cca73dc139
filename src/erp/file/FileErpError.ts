import { ErpSyncError, isErpSyncError, type ErrorDetails } from '../../domain/errors.js';

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

export function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

/** Our own errors pass through; an operating-system error becomes a FileAccessError naming the path. */
export function asAccessError(error: unknown, path: string): ErpSyncError {
  if (isErpSyncError(error)) return error;
  return new FileAccessError(`cannot read ${path}: ${(error as Error).message}`, { path }, { cause: error });
}
