import { ErpSyncError, type ErrorCode, type ErrorDetails } from '../../domain/errors.js';

/**
 * A failed Tryton call, by kind:
 * - `erp_rejected`: Tryton refused the call (a UserError: a missing value, a rule); redoing it
 *   changes nothing.
 * - `erp_permission`: an access error (a UserError "You are not allowed to ..."): erp-sync's user
 *   lacks a right, the same for every order until a person grants it.
 * - `erp_unavailable`: no answer, a 5xx or 429, a concurrent update or a locked database; heals.
 * - `erp_auth`: the login is refused even after a fresh login; a person must fix the user or
 *   the password (fatal: the pipelines stop).
 * - `internal`: the call itself is wrong (a method Tryton does not expose, a missing field).
 * Details name the method and, for a UserError, Tryton's message; never the password or the
 * parameters.
 */
export class TrytonError extends ErpSyncError {
  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}, options?: { cause?: unknown }) {
    super(code, message, details, options);
  }
}
