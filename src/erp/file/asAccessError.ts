import { isErpSyncError, type ErpSyncError } from '../../domain/errors.js';
import { FileAccessError } from './FileAccessError.js';

export function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

/** Our own errors pass through; an operating-system error becomes a FileAccessError naming the path. */
export function asAccessError(error: unknown, path: string): ErpSyncError {
  if (isErpSyncError(error)) return error;
  return new FileAccessError(`cannot read ${path}: ${(error as Error).message}`, { path }, { cause: error });
}
