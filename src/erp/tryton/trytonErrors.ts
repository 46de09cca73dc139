import { TrytonError } from './TrytonError.js';

/** Error texts of Tryton (or its database) that heal when the call is redone later. */
const TRANSIENT = /database is locked|could not serialize|deadlock|ConcurrencyException|TooManyRequests/i;
const MAX_MESSAGE = 500;
/**
 * Tryton's access errors (`ir.msg_access_*`, `msg_*_rule_error`, a button of a group the user is
 * not in): UserErrors, but a missing right of erp-sync's user, never a fault of the order. The
 * client logs in with language `en`, so the texts are Tryton's English ones.
 */
const ACCESS_DENIED = /^You are not allowed to |^Calling button .* is not allowed/;

function clip(text: string): string {
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text;
}

/** A `{"error": ...}` reply (HTTP 200) as the error of its kind; `url` names the server in access errors. */
export function errorFromRpc(method: string, error: unknown, url?: string): TrytonError {
  const [kind, args] = Array.isArray(error) ? (error as unknown[]) : [error, undefined];
  const name = typeof kind === 'string' ? kind : JSON.stringify(kind);
  if (name === 'UserError' || name === 'UserWarning') {
    // args: [message, description, domain dump]; the dump can be megabytes: dropped.
    const [message, description] = Array.isArray(args) ? (args as unknown[]) : [args, ''];
    const text = [message, description].filter((part) => typeof part === 'string' && part !== '');
    const reason = clip(text.join(' ') || name);
    if (typeof message === 'string' && ACCESS_DENIED.test(message)) {
      return new TrytonError(
        'erp_permission',
        `Tryton${url ? ` at ${url}` : ''} refused ${method}: a right of erp-sync's user is missing: ${reason}`,
        { method, trytonError: name, reason },
      );
    }
    return new TrytonError('erp_rejected', `Tryton refused ${method}: ${reason}`, {
      method,
      trytonError: name,
      reason,
    });
  }
  const reason = clip(name);
  if (TRANSIENT.test(name)) {
    return new TrytonError('erp_unavailable', `Tryton failed ${method} (try again): ${reason}`, {
      method,
      reason,
    });
  }
  return new TrytonError('internal', `Tryton failed ${method}: ${reason}`, { method, reason });
}

/** A non-200 HTTP status (Tryton answers those with HTML). */
export function errorFromStatus(method: string, status: number): TrytonError {
  if (status === 401) {
    return new TrytonError(
      'erp_auth',
      `Tryton refused the login for ${method} (HTTP 401): check erp.user and the password (env TRYTON_PASSWORD)`,
      { method, status },
    );
  }
  if (status === 429 || status >= 500) {
    return new TrytonError('erp_unavailable', `Tryton answered HTTP ${status} to ${method}`, {
      method,
      status,
    });
  }
  if (status === 403) {
    return new TrytonError('internal', `Tryton does not expose ${method} over RPC (HTTP 403)`, {
      method,
      status,
    });
  }
  return new TrytonError('internal', `Tryton answered HTTP ${status} to ${method}`, { method, status });
}

/** No answer at all: refused connection, reset, timeout. */
export function errorFromFailure(method: string, url: string, error: unknown): TrytonError {
  const err = error as { code?: unknown; message?: unknown; name?: unknown };
  const code = typeof err.code === 'string' ? err.code : typeof err.name === 'string' ? err.name : 'error';
  const message = typeof err.message === 'string' ? err.message : String(error);
  return new TrytonError(
    'erp_unavailable',
    `Tryton at ${url} did not answer ${method}: ${code}: ${clip(message)}`,
    { method, cause: code },
  );
}
