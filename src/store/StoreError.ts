import { ErpSyncError, type ErrorDetails } from '../domain/errors.js';

/** The local store cannot be opened, migrated or written: nothing can be synced safely. */
export class StoreError extends ErpSyncError {
  constructor(message: string, options?: { cause?: unknown; details?: ErrorDetails }) {
    super('store_failure', message, options?.details ?? {}, options);
  }
}

/** A command that only looks found no store where the configuration points (it never creates one). */
export class StoreNotFoundError extends StoreError {}

/**
 * A statement the store cannot run while an iteration over a result is open on its connection (a
 * write, a transaction, the iterated statement itself), as better-sqlite3 refuses it on SQLite.
 */
export class StoreBusyError extends StoreError {}
