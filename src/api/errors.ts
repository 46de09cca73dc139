import { ErpSyncError, type ErrorCode, type ErrorDetails } from '../domain/errors.js';

/** Where a failed call went: enough to find it in the sandbox's or the platform's logs. */
export interface RequestContext {
  method: string;
  /** The path relative to the base URL, without the query string. */
  path: string;
  /** The path template, e.g. `/products/{id}`. */
  route: string;
  requestId: string;
  status?: number | null;
  /** The server's stable error code from the body (`invalid_token`, `validation_error`, ...). */
  apiCode?: string;
}

export type FieldErrors = Record<string, string[]>;

/** Base of every failure of a call to API v2. Never carries the API key (see redactSecret). */
export class ApiError extends ErpSyncError {
  readonly status: number | null;
  readonly method: string;
  readonly path: string;
  readonly endpoint: string;
  readonly requestId: string;
  readonly apiCode: string | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    context: RequestContext,
    details: ErrorDetails = {},
    options?: { cause?: unknown },
  ) {
    const endpoint = `${context.method} ${context.route}`;
    super(
      code,
      message,
      {
        status: context.status ?? null,
        method: context.method,
        path: context.path,
        endpoint,
        requestId: context.requestId,
        ...(context.apiCode ? { apiCode: context.apiCode } : {}),
        ...details,
      },
      options,
    );
    this.status = context.status ?? null;
    this.method = context.method;
    this.path = context.path;
    this.endpoint = endpoint;
    this.requestId = context.requestId;
    this.apiCode = context.apiCode;
  }
}

/** 401 `missing_token` / `invalid_token`, 403 `no_user`: fatal, a person must fix the key or the account. */
export class AuthError extends ApiError {
  constructor(message: string, context: RequestContext) {
    super('api_auth', message, context);
  }
}

export class NotFoundError extends ApiError {
  constructor(message: string, context: RequestContext) {
    super('api_not_found', message, context);
  }
}

/** 422 from the server; `fieldErrors` holds its per-field `errors` when it gave them. */
export class ApiValidationError extends ApiError {
  readonly fieldErrors: FieldErrors;
  constructor(message: string, context: RequestContext, fieldErrors: FieldErrors) {
    super('api_validation', message, context, { fieldErrors });
    this.fieldErrors = fieldErrors;
  }
}

export class ConflictError extends ApiError {
  constructor(message: string, context: RequestContext) {
    super('api_conflict', message, context);
  }
}

export class PayloadTooLargeError extends ApiError {
  constructor(message: string, context: RequestContext) {
    super('api_payload_too_large', message, context);
  }
}

/** 429; `retryAfterMs` is the server's Retry-After (null when it gave none or an unreadable one). */
export class RateLimitedError extends ApiError {
  readonly retryAfterMs: number | null;
  constructor(message: string, context: RequestContext, retryAfterMs: number | null) {
    super('api_rate_limited', message, context, { retryAfterMs });
    this.retryAfterMs = retryAfterMs;
  }
}

/** 5xx; a 503 may carry Retry-After, which the retry policy honours like a 429's. */
export class ServerError extends ApiError {
  readonly retryAfterMs: number | null;
  constructor(message: string, context: RequestContext, retryAfterMs: number | null = null) {
    super('api_server', message, context, retryAfterMs === null ? {} : { retryAfterMs });
    this.retryAfterMs = retryAfterMs;
  }
}

/** Any other HTTP status the client has no better name for (405, 400, ...). */
export class HttpError extends ApiError {
  constructor(message: string, context: RequestContext) {
    super('api_http', message, context);
  }
}

/** Refused, reset, DNS, closed mid-response: no usable answer. Safe to repeat only for idempotent calls. */
export class NetworkError extends ApiError {
  readonly networkCode: string | undefined;
  constructor(message: string, context: RequestContext, networkCode: string | undefined, cause?: unknown) {
    super('api_network', message, context, { networkCode }, { cause });
    this.networkCode = networkCode;
  }
}

export class TimeoutError extends ApiError {
  readonly timeoutMs: number;
  constructor(message: string, context: RequestContext, timeoutMs: number) {
    super('api_timeout', message, context, { timeoutMs });
    this.timeoutMs = timeoutMs;
  }
}

/**
 * A non-idempotent request (POST /products, POST /orders) may have been applied, but no answer
 * came. Never repeated blindly: the caller reconciles (search by SKU or source_order_id, then create).
 */
export class OutcomeUnknownError extends ApiError {
  /** What went wrong on the wire: `api_network`, `api_timeout` or `api_server`. */
  readonly reason: string;
  constructor(message: string, context: RequestContext, reason: string, cause?: unknown) {
    super('api_outcome_unknown', message, context, { reason }, { cause });
    this.reason = reason;
  }
}

/** A response that does not have the shape the daemon relies on: names the endpoint and the field. */
export class SchemaError extends ApiError {
  readonly field: string;
  constructor(message: string, context: RequestContext, field: string) {
    super('api_schema', message, context, { field });
    this.field = field;
  }
}

/** The input broke a rule of the spec; thrown before any request is made. */
export class ClientValidationError extends ErpSyncError {
  readonly fieldErrors: FieldErrors;
  constructor(operation: string, fieldErrors: FieldErrors) {
    const fields = Object.entries(fieldErrors)
      .map(([field, reasons]) => `${field}: ${reasons.join(', ')}`)
      .join('; ');
    super('client_validation', `${operation}: invalid input (${fields})`, { operation, fieldErrors });
    this.fieldErrors = fieldErrors;
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}

const REDACTED = '[redacted]';

/** Removes every occurrence of the secret from text the server sent back (messages can echo input). */
export function redactSecret(text: string, secret: string): string {
  if (!secret) return text;
  return text.split(secret).join(REDACTED);
}

/** Deep copy of a JSON value with every string's occurrences of the secret redacted. */
export function redactDeep<T>(value: T, secret: string): T {
  if (!secret) return value;
  if (typeof value === 'string') return redactSecret(value, secret) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => redactDeep(item, secret)) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value))
      out[redactSecret(key, secret)] = redactDeep(item, secret);
    return out as T;
  }
  return value;
}

/**
 * A copy of a foreign error (undici's, the OS's) safe to keep as a `cause`: name, code, message and
 * stack with the secret redacted, its own cause (and an AggregateError's `errors`) copied the same
 * way, and nothing else: no socket, no headers, no request options that could hold the key.
 */
export function redactError(error: unknown, secret: string, depth = 0): Error {
  if (!(error instanceof Error)) return new Error(redactSecret(String(error), secret));
  const hasCause = depth < 4 && error.cause !== undefined;
  const copy = new Error(
    redactSecret(error.message, secret),
    hasCause ? { cause: redactError(error.cause, secret, depth + 1) } : undefined,
  ) as Error & { code?: string; errors?: Error[] };
  copy.name = error.name;
  copy.stack = redactSecret(error.stack ?? '', secret);
  const { code, errors } = error as { code?: unknown; errors?: unknown };
  if (typeof code === 'string') copy.code = code;
  if (Array.isArray(errors) && depth < 4) {
    copy.errors = errors.slice(0, 8).map((item) => redactError(item, secret, depth + 1));
  }
  return copy;
}
