import {
  ApiValidationError,
  AuthError,
  ConflictError,
  HttpError,
  NetworkError,
  NotFoundError,
  OutcomeUnknownError,
  PayloadTooLargeError,
  RateLimitedError,
  ServerError,
  TimeoutError,
  redactError,
  redactSecret,
  type ApiError,
  type FieldErrors,
  type RequestContext,
} from './errors.js';
import { parseRetryAfter } from './retryAfter.js';

/**
 * The one place where HTTP results and wire failures become typed errors. Every text that came from
 * the server is passed through redactSecret, so an echoed key never reaches an error.
 */

/** Codes of failures that happen before a single byte of the request left: safe to repeat any request. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  // The pool was closed or destroyed: undici refused to dispatch.
  'UND_ERR_CLOSED',
  'UND_ERR_DESTROYED',
]);

export interface ErrorBody {
  error?: unknown;
  message?: unknown;
  errors?: unknown;
}

function readFieldErrors(value: unknown, secret: string): FieldErrors {
  const out: FieldErrors = {};
  if (!value || typeof value !== 'object' || Array.isArray(value)) return out;
  for (const [field, reasons] of Object.entries(value as Record<string, unknown>)) {
    const list = Array.isArray(reasons) ? reasons : [reasons];
    out[redactSecret(field, secret)] = list.map((reason) =>
      redactSecret(typeof reason === 'string' ? reason : JSON.stringify(reason), secret),
    );
  }
  return out;
}

/** Maps a non-2xx response. `idempotent` decides whether a 5xx may have been applied unseen. */
export function errorFromResponse(
  status: number,
  body: unknown,
  headers: Record<string, string | string[] | undefined>,
  context: RequestContext,
  idempotent: boolean,
  secret: string,
): ApiError {
  const parsed: ErrorBody =
    body && typeof body === 'object' && !Array.isArray(body) ? (body as ErrorBody) : {};
  const apiCode = typeof parsed.error === 'string' ? redactSecret(parsed.error, secret) : undefined;
  const serverMessage = typeof parsed.message === 'string' ? redactSecret(parsed.message, secret) : '';
  const ctx: RequestContext = { ...context, status, ...(apiCode ? { apiCode } : {}) };
  const what = `${context.method} ${context.route} -> ${status}${apiCode ? ` ${apiCode}` : ''}`;
  const message = serverMessage ? `${what}: ${serverMessage}` : what;

  if (status === 401 || status === 403) return new AuthError(message, ctx);
  if (status === 404) return new NotFoundError(message, ctx);
  if (status === 409) return new ConflictError(message, ctx);
  if (status === 413) return new PayloadTooLargeError(message, ctx);
  if (status === 422) return new ApiValidationError(message, ctx, readFieldErrors(parsed.errors, secret));
  if (status === 429) return new RateLimitedError(message, ctx, parseRetryAfter(headers['retry-after']));
  if (status >= 500) {
    // 503 says "not processed"; any other 5xx on a create may have created the record.
    if (!idempotent && status !== 503) {
      return new OutcomeUnknownError(`${message} (the request may have been applied)`, ctx, 'api_server');
    }
    return new ServerError(message, ctx, parseRetryAfter(headers['retry-after']));
  }
  return new HttpError(message, ctx);
}

function networkCodeOf(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Maps a failure without a response (refused, reset, closed, timed out). */
export function errorFromFailure(
  error: unknown,
  context: RequestContext,
  idempotent: boolean,
  timedOutAfterMs: number | null,
  secret: string,
): ApiError {
  const ctx: RequestContext = { ...context, status: null };
  const what = `${context.method} ${context.route}`;
  if (timedOutAfterMs !== null) {
    const message = `${what}: no complete response within ${timedOutAfterMs} ms`;
    if (!idempotent) {
      return new OutcomeUnknownError(`${message} (the request may have been applied)`, ctx, 'api_timeout');
    }
    return new TimeoutError(message, ctx, timedOutAfterMs);
  }
  const code = networkCodeOf(error);
  const cause = redactError(error, secret);
  const detail = redactSecret(error instanceof Error ? error.message : String(error), secret);
  const message = `${what}: ${code ?? 'network error'}${detail ? ` (${detail})` : ''}`;
  if (!idempotent && !(code && NOT_SENT_CODES.has(code))) {
    return new OutcomeUnknownError(
      `${message}; the request may have been applied`,
      ctx,
      'api_network',
      cause,
    );
  }
  return new NetworkError(message, ctx, code, cause);
}
