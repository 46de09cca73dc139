import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import {
  ApiValidationError,
  AuthError,
  HttpError,
  NetworkError,
  NotFoundError,
  OutcomeUnknownError,
  PayloadTooLargeError,
  RateLimitedError,
  ServerError,
  TimeoutError,
  type RequestContext,
} from '../../../src/api/errors.js';
import { errorFromFailure, errorFromResponse } from '../../../src/api/httpErrors.js';

const KEY = 'cms_live_SECRET123';
const get: RequestContext = {
  method: 'GET',
  path: '/products/7',
  route: '/products/{id}',
  requestId: 'req-1',
};
const post: RequestContext = { method: 'POST', path: '/orders', route: '/orders', requestId: 'req-2' };
const map = (status: number, body: unknown = {}, headers = {}, idempotent = true) =>
  errorFromResponse(status, body, headers, idempotent ? get : post, idempotent, KEY);

describe('errorFromResponse', () => {
  it('maps 401 and 403 to a fatal AuthError with the server code', () => {
    for (const [status, code] of [
      [401, 'invalid_token'],
      [401, 'missing_token'],
      [403, 'no_user'],
    ] as const) {
      const error = map(status, { error: code, message: 'nope' });
      expect(error).toBeInstanceOf(AuthError);
      expect(error.fatal).toBe(true);
      expect(error.retryable).toBe(false);
      expect(error.apiCode).toBe(code);
      expect(error.status).toBe(status);
    }
  });

  it('maps 422 with its per-field errors', () => {
    const error = map(422, {
      error: 'validation_error',
      message: 'bad',
      errors: { 'items.3.quantity': ['must be >= 1'] },
    });
    expect(error).toBeInstanceOf(ApiValidationError);
    expect((error as ApiValidationError).fieldErrors).toEqual({ 'items.3.quantity': ['must be >= 1'] });
    expect(error.retryable).toBe(false);
  });

  it('maps 404, 413 and other 4xx', () => {
    expect(map(404)).toBeInstanceOf(NotFoundError);
    expect(map(413)).toBeInstanceOf(PayloadTooLargeError);
    expect(map(405, { error: 'method_not_allowed' })).toBeInstanceOf(HttpError);
  });

  it('reads Retry-After of a 429 into retryAfterMs', () => {
    const error = map(429, { error: 'rate_limited' }, { 'retry-after': '2' });
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBe(2000);
    expect(error.retryable).toBe(true);
  });

  it('maps 5xx to a retryable ServerError for idempotent requests', () => {
    expect(map(500)).toBeInstanceOf(ServerError);
    expect(map(500).retryable).toBe(true);
  });

  it('maps a 500 on a create to outcome-unknown, but a 503 (not processed) to ServerError', () => {
    expect(map(500, {}, {}, false)).toBeInstanceOf(OutcomeUnknownError);
    expect(map(502, {}, {}, false)).toBeInstanceOf(OutcomeUnknownError);
    expect(map(503, {}, {}, false)).toBeInstanceOf(ServerError);
  });

  it('keeps the API key out of message, fields and JSON even when the server echoes it', () => {
    const error = map(401, {
      error: 'invalid_token',
      message: `key ${KEY} is revoked`,
      errors: { [KEY]: [KEY] },
    });
    const validation = map(422, {
      error: 'validation_error',
      message: KEY,
      errors: { [KEY]: [`bad ${KEY}`] },
    });
    for (const candidate of [error, validation]) {
      expect(candidate.message).not.toContain(KEY);
      expect(JSON.stringify(candidate)).not.toContain(KEY);
      expect(String(candidate.stack)).not.toContain(KEY);
    }
  });

  it('names the endpoint and request id', () => {
    const error = map(404);
    expect(error.endpoint).toBe('GET /products/{id}');
    expect(error.path).toBe('/products/7');
    expect(error.requestId).toBe('req-1');
    expect(error.toJSON()).toMatchObject({
      code: 'api_not_found',
      endpoint: 'GET /products/{id}',
      requestId: 'req-1',
    });
  });
});

describe('errorFromFailure', () => {
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
  const reset = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });

  it('maps a refused connection to a NetworkError even for a create (nothing was sent)', () => {
    const error = errorFromFailure(refused, post, false, null, KEY);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.retryable).toBe(true);
  });

  it('maps a closed pool (nothing dispatched) on a create to a NetworkError, not outcome-unknown', () => {
    for (const code of ['UND_ERR_CLOSED', 'UND_ERR_DESTROYED']) {
      const closed = Object.assign(new Error('The client is closed'), { code });
      expect(errorFromFailure(closed, post, false, null, KEY)).toBeInstanceOf(NetworkError);
    }
  });

  it('maps a connection lost during a create to outcome-unknown, which is not retryable', () => {
    const error = errorFromFailure(reset, post, false, null, KEY);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(error.retryable).toBe(false);
    expect((error as OutcomeUnknownError).reason).toBe('api_network');
  });

  it('maps a lost connection on an idempotent request to a retryable NetworkError', () => {
    const error = errorFromFailure(reset, get, true, null, KEY);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).networkCode).toBe('UND_ERR_SOCKET');
  });

  it('maps a timeout to TimeoutError, or outcome-unknown for a create', () => {
    expect(errorFromFailure(new Error('aborted'), get, true, 50, KEY)).toBeInstanceOf(TimeoutError);
    const unknown = errorFromFailure(new Error('aborted'), post, false, 50, KEY);
    expect(unknown).toBeInstanceOf(OutcomeUnknownError);
    expect((unknown as OutcomeUnknownError).reason).toBe('api_timeout');
  });

  it('keeps a cause chain that embeds the key (headers, echoed text) out of every serialized form', () => {
    // Shaped like undici's errors: headers and a socket on the error, the detail in a nested cause.
    const root = Object.assign(new Error(`socket hang up after sending Bearer ${KEY}`), {
      code: 'ECONNRESET',
      headers: { authorization: `Bearer ${KEY}` },
    });
    const undiciLike = Object.assign(new Error(`other side closed (${KEY})`, { cause: root }), {
      code: 'UND_ERR_SOCKET',
      socket: { localPort: 1234, remotePort: 80 },
      headers: { 'x-api-key': KEY },
    });
    const lines: string[] = [];
    const logger = pino(
      { level: 'trace' },
      new Writable({ write: (chunk: Buffer, _enc, done) => void (lines.push(chunk.toString()), done()) }),
    );
    for (const [context, idempotent] of [
      [get, true],
      [post, false],
    ] as const) {
      const error = errorFromFailure(undiciLike, context, idempotent, null, KEY);
      expect(error).toBeInstanceOf(idempotent ? NetworkError : OutcomeUnknownError);
      const chain: unknown[] = [];
      for (let at: unknown = error; at instanceof Error; at = at.cause) chain.push(at);
      expect(chain).toHaveLength(3);
      expect((chain[1] as { code?: string }).code).toBe('UND_ERR_SOCKET');
      expect((chain[2] as { code?: string }).code).toBe('ECONNRESET');
      for (const link of chain) {
        expect(JSON.stringify(link)).not.toContain(KEY);
        expect(String((link as Error).message)).not.toContain(KEY);
        expect(String((link as Error).stack)).not.toContain(KEY);
        expect(Object.keys(link as object)).not.toContain('headers');
      }
      logger.error({ err: error }, 'call failed');
    }
    expect(lines.join('')).toContain('UND_ERR_SOCKET');
    expect(lines.join('')).not.toContain(KEY);
  });

  it('keeps the key out of the errors of an AggregateError cause', () => {
    const aggregate = Object.assign(
      new AggregateError([new Error(`to ::1 with ${KEY}`), new Error('to 127.0.0.1')], `failed ${KEY}`),
      { code: 'ECONNREFUSED' },
    );
    const error = errorFromFailure(aggregate, post, false, null, KEY);
    expect(error).toBeInstanceOf(NetworkError);
    const cause = error.cause as Error & { errors: Error[] };
    expect(cause.errors.map((e) => e.message)).toEqual(['to ::1 with [redacted]', 'to 127.0.0.1']);
    expect(JSON.stringify([error, cause, cause.errors])).not.toContain(KEY);
  });
});
