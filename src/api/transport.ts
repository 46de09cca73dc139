import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import { VERSION } from '../version.js';
import { ErpSyncError } from '../domain/errors.js';
import { ApiError, OutcomeUnknownError, SchemaError, redactError, type RequestContext } from './errors.js';
import { errorFromFailure, errorFromResponse } from './httpErrors.js';
import { newRequestId } from './newRequestId.js';
import { withRetries, type RetrySettings } from './retryPolicy.js';
import type { Wire } from './wire.js';
import { monotonicMs } from '../domain/monotonicMs.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface ResponseInfo {
  method: string;
  /** Path relative to the base URL, without the query string (which may hold a searched e-mail). */
  path: string;
  /** Path template, e.g. `/products/{id}`: a label of bounded cardinality for metrics. */
  route: string;
  status: number | null;
  durationMs: number;
  attempt: number;
  errorCode?: string;
}

export interface TransportOptions {
  baseUrl: string;
  apiKey: string;
  authHeader?: 'bearer' | 'x-api-key';
  /** Per attempt, until the whole body is read. Default 30 s. */
  timeoutMs?: number;
  /** Sockets per origin. Default 10. */
  maxSockets?: number;
  keepAlive?: boolean;
  /**
   * A client for a request or two (`erp-sync check`): each request on its own node:http
   * connection, and undici is never loaded. Default false: undici's pool, loaded at the first request.
   */
  oneShot?: boolean;
  /** Retries after the first attempt, for retryable failures only. Default 5. */
  retries?: number;
  /** Bound on the whole call, retries and waits included. Default 120 s. */
  deadlineMs?: number;
  /** First backoff step; doubles per retry, with jitter. Default 500 ms. */
  minBackoffMs?: number;
  /** Largest backoff step. Default 15 s. */
  maxBackoffMs?: number;
  userAgent?: string;
  logger?: Logger;
  onResponse?: (info: ResponseInfo) => void;
  /**
   * Aborts every pending call and retry wait of this client (e.g. on shutdown): idempotent calls
   * reject with the signal's reason; a create already sent rejects with OutcomeUnknownError.
   */
  signal?: AbortSignal;
}

export type QueryValue = string | number | boolean | null | undefined;

export interface RequestSpec {
  method: HttpMethod;
  /** Concrete path relative to the base URL, e.g. `/products/7`. */
  path: string;
  /** Template of the path, e.g. `/products/{id}`; names the endpoint in errors. */
  route: string;
  query?: Record<string, QueryValue> | undefined;
  body?: unknown;
  /** True when repeating the request cannot apply it twice. */
  idempotent: boolean;
}

export interface ApiResponse {
  status: number;
  body: unknown;
  context: RequestContext;
}

/** Per-call hooks: a run's own observer, called besides the client-wide `onResponse`. */
export interface CallHooks {
  onResponse?: (info: ResponseInfo) => void;
}

/** What the resources need from a transport: one call at a time, with optional per-call hooks. */
/** Where requests go and the key they carry. */
export type Credentials = Pick<TransportOptions, 'baseUrl' | 'apiKey' | 'authHeader'>;

export interface Transport {
  send(spec: RequestSpec, hooks?: CallHooks): Promise<ApiResponse>;
}

function buildQuery(query: Record<string, QueryValue> | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    params.append(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/**
 * Auth, keep-alive pool, per-attempt timeout, retries, request ids and logging. The only code that
 * touches the network; everything above it speaks RequestSpec and parsed bodies.
 */
export class HttpTransport implements Transport {
  #origin = '';
  #basePath = '';
  #headers: Record<string, string> = {};
  #secret = '';
  readonly #userAgent: string;
  #wire: Promise<Wire> | undefined;
  readonly #openWire: () => Promise<Wire>;
  readonly #timeoutMs: number;
  readonly #retry: RetrySettings;
  readonly #logger: Logger;
  readonly #onResponse: ((info: ResponseInfo) => void) | undefined;
  readonly #signal: AbortSignal | undefined;
  /** Fired by close(): ends retry waits at once. */
  readonly #stop = new AbortController();
  #closed: Promise<void> = Promise.resolve();

  constructor(options: TransportOptions) {
    if (options.userAgent !== undefined && !/^[\x20-\x7e]+$/.test(options.userAgent)) {
      throw new TypeError('createApiClient: userAgent must be printable ASCII');
    }
    this.#userAgent = options.userAgent ?? `erp-sync/${VERSION}`;
    this.useCredentials(options);
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    const pool = {
      maxSockets: options.maxSockets ?? 10,
      keepAlive: options.keepAlive ?? true,
      connectTimeoutMs: Math.min(this.#timeoutMs, 10_000),
    };
    // Loaded at the first request, so a command that builds a client and never calls it (or
    // calls it once, oneShot) does not load undici.
    this.#openWire = options.oneShot
      ? async () => (await import('./nodeHttpWire.js')).createNodeHttpWire()
      : async () => (await import('./undiciWire.js')).createUndiciWire(pool);
    this.#retry = {
      retries: options.retries ?? 5,
      deadlineMs: options.deadlineMs ?? 120_000,
      minBackoffMs: options.minBackoffMs ?? 500,
      maxBackoffMs: options.maxBackoffMs ?? 15_000,
    };
    const logger = options.logger ?? silentLogger();
    this.#logger = 'module' in logger.bindings() ? logger : logger.child({ module: 'api' });
    this.#onResponse = options.onResponse;
    this.#signal = options.signal;
  }

  /**
   * Later requests go to this base URL with this key (the daemon's configuration reload); a
   * request already sent keeps its own. The connection pool is per origin, so it is kept.
   */
  useCredentials(credentials: Credentials): void {
    // Checked here, not by undici at the first request (where it would be retried as a network error).
    if (!/^[\x21-\x7e]+$/.test(credentials.apiKey)) {
      throw new TypeError(
        'createApiClient: apiKey must be printable ASCII without spaces (as sent in a header)',
      );
    }
    const base = new URL(credentials.baseUrl);
    this.#origin = base.origin;
    this.#basePath = base.pathname.replace(/\/+$/, '');
    this.#secret = credentials.apiKey;
    this.#headers = {
      accept: 'application/json',
      'user-agent': this.#userAgent,
      ...(credentials.authHeader === 'x-api-key'
        ? { 'x-api-key': credentials.apiKey }
        : { authorization: `Bearer ${credentials.apiKey}` }),
    };
  }

  /** Sends the request, retrying what is safe to retry; resolves with a 2xx response or throws an ApiError. */
  async send(spec: RequestSpec, hooks: CallHooks = {}): Promise<ApiResponse> {
    this.#signal?.throwIfAborted();
    if (this.#stop.signal.aborted) {
      throw new ErpSyncError('internal', `${spec.method} ${spec.route}: the API client is closed`);
    }
    const requestId = newRequestId();
    const startedAt = monotonicMs();
    return withRetries(
      (attempt) => {
        const remaining = this.#retry.deadlineMs - (monotonicMs() - startedAt);
        return this.#attempt(
          spec,
          requestId,
          attempt,
          Math.max(1, Math.min(this.#timeoutMs, remaining)),
          hooks,
        );
      },
      this.#retry,
      (error, attempt, delayMs) => {
        this.#logger.warn(
          {
            requestId,
            method: spec.method,
            path: spec.path,
            attempt,
            errorCode: error.code,
            status: error.status,
            delayMs,
          },
          'API call failed, retrying',
        );
      },
      { abort: this.#signal, stop: this.#stop.signal },
    );
  }

  async #attempt(
    spec: RequestSpec,
    requestId: string,
    attempt: number,
    timeoutMs: number,
    hooks: CallHooks,
  ): Promise<ApiResponse> {
    const context: RequestContext = { method: spec.method, path: spec.path, route: spec.route, requestId };
    const headers: Record<string, string> = { ...this.#headers, 'x-request-id': requestId };
    let payload: string | undefined;
    if (spec.body !== undefined) {
      payload = JSON.stringify(spec.body);
      headers['content-type'] = 'application/json';
    }
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = () => controller.abort();
    this.#signal?.addEventListener('abort', onAbort, { once: true });
    const started = monotonicMs();
    let status: number | null = null;
    try {
      let text: string;
      let responseHeaders: Record<string, string | string[] | undefined>;
      try {
        this.#wire ??= this.#openWire();
        const response = await (
          await this.#wire
        ).request({
          origin: this.#origin,
          path: `${this.#basePath}${spec.path}${buildQuery(spec.query)}`,
          method: spec.method,
          headers,
          body: payload ?? null,
          signal: controller.signal,
          timeoutMs: timeoutMs + 1_000,
        });
        status = response.statusCode;
        responseHeaders = response.headers;
        text = response.text;
      } catch (error) {
        if (this.#signal?.aborted && !timedOut) {
          if (spec.idempotent) throw this.#signal.reason;
          throw new OutcomeUnknownError(
            `${spec.method} ${spec.route}: aborted after sending; the request may have been applied`,
            { ...context, status: null },
            'aborted',
            redactError(error, this.#secret),
          );
        }
        throw errorFromFailure(error, context, spec.idempotent, timedOut ? timeoutMs : null, this.#secret);
      }
      const body = parseJson(text);
      if (status < 200 || status >= 300) {
        throw errorFromResponse(status, body, responseHeaders, context, spec.idempotent, this.#secret);
      }
      if (body === undefined && text !== '') {
        throw new SchemaError(
          `${spec.method} ${spec.route}: response body is not JSON`,
          { ...context, status },
          '',
        );
      }
      this.#report(spec, requestId, attempt, started, status, hooks);
      return { status, body: body ?? null, context: { ...context, status } };
    } catch (error) {
      this.#report(spec, requestId, attempt, started, status, hooks, error);
      throw error;
    } finally {
      clearTimeout(timer);
      this.#signal?.removeEventListener('abort', onAbort);
    }
  }

  #report(
    spec: RequestSpec,
    requestId: string,
    attempt: number,
    started: number,
    status: number | null,
    hooks: CallHooks,
    error?: unknown,
  ): void {
    const durationMs = Math.round((monotonicMs() - started) * 10) / 10;
    const errorCode = error instanceof ApiError ? error.code : error ? 'internal' : undefined;
    this.#logger.debug(
      {
        requestId,
        method: spec.method,
        path: spec.path,
        status,
        durationMs,
        attempt,
        ...(errorCode ? { errorCode } : {}),
      },
      'API call',
    );
    const info: ResponseInfo = {
      method: spec.method,
      path: spec.path,
      route: spec.route,
      status,
      durationMs,
      attempt,
      ...(errorCode ? { errorCode } : {}),
    };
    for (const hook of [this.#onResponse, hooks.onResponse]) {
      if (!hook) continue;
      try {
        hook(info);
      } catch (hookError) {
        this.#logger.warn({ err: hookError }, 'onResponse hook threw');
      }
    }
  }

  /**
   * Ends retry waits at once (their calls reject with their last error), lets requests in flight
   * finish, then closes the pool. Calls made after close() reject at once. Safe to call twice.
   */
  async close(): Promise<void> {
    if (this.#stop.signal.aborted) return this.#closed;
    this.#stop.abort();
    const wire = this.#wire;
    this.#closed = wire ? wire.then((opened) => opened.close()) : Promise.resolve();
    return this.#closed;
  }
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
