import { getEventListeners } from 'node:events';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  ApiValidationError,
  AuthError,
  NetworkError,
  OutcomeUnknownError,
  RateLimitedError,
  ServerError,
  TimeoutError,
  createApiClient,
  type ApiClientOptions,
} from '../../../src/api/index.js';
import { startStubServer, type StubServer } from '../../support/stubServer.js';
import { captureLog } from '../../support/logCapture.js';
import { orderRecord, productRecord } from '../../support/records.js';

const KEY = 'cms_resilience_fedcba9876543210';
const log = captureLog();
let stub: StubServer;

/** Logs a failure the way the daemon does (pino `err`), so the key grep covers errors too. */
const caught = (error: unknown): unknown => {
  log.logger.error({ err: error }, 'call failed');
  return error;
};
const clients: { close(): Promise<void> }[] = [];
/** Which connections the clients use: undici's pool, or one node:http connection per request (check). */
let oneShot = false;

function clientFor(options: Partial<ApiClientOptions> = {}) {
  const client = createApiClient({
    oneShot,
    baseUrl: stub.url,
    apiKey: KEY,
    retries: 4,
    minBackoffMs: 5,
    maxBackoffMs: 20,
    timeoutMs: 1_000,
    logger: log.logger,
    ...options,
  });
  clients.push(client);
  return client;
}

/** Answers with `failures` in turn, then with `success` for ever. */
function script(
  failures: Parameters<StubServer['handle']>[0][],
  success: Parameters<StubServer['handle']>[0],
) {
  let call = 0;
  stub.handle((req) => (failures[call++] ?? success)(req));
}

const product = () => ({ json: { data: productRecord(1) } });

beforeAll(async () => {
  stub = await startStubServer();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  stub.requests.length = 0;
});
afterAll(() => stub.close());

// Every behaviour holds on both kinds of connections.
describe.each([
  { wire: 'the undici pool', perRequest: false },
  { wire: 'node:http per request', perRequest: true },
])('over $wire', ({ perRequest }) => {
  beforeAll(() => {
    oneShot = perRequest;
  });

  describe('retries of safe requests', () => {
    it('retries 500 and 503 to success', async () => {
      script([() => ({ status: 500, json: { error: 'server_error' } }), () => ({ status: 503 })], product);
      const result = await clientFor().products.get(1);
      expect(result.id).toBe(1);
      expect(stub.requests).toHaveLength(3);
    });

    it('retries a dropped connection to success', async () => {
      script([() => 'drop', () => 'drop'], product);
      expect((await clientFor().products.update(1, { name: 'New' })).id).toBe(1);
      expect(stub.requests).toHaveLength(3);
    });

    it('gives up with the last error after the retries are spent', async () => {
      stub.handle(() => ({ status: 502 }));
      await expect(clientFor({ retries: 2 }).products.get(1)).rejects.toBeInstanceOf(ServerError);
      expect(stub.requests).toHaveLength(3);
    });

    it('waits at least a Retry-After given as an HTTP date', async () => {
      const when = new Date(Math.ceil((Date.now() + 1_100) / 1000) * 1000);
      script(
        [
          () => ({
            status: 429,
            headers: { 'retry-after': when.toUTCString() },
            json: { error: 'rate_limited' },
          }),
        ],
        product,
      );
      const started = Date.now();
      await clientFor().products.get(1);
      expect(Date.now()).toBeGreaterThanOrEqual(when.getTime() - 5);
      expect(Date.now() - started).toBeGreaterThanOrEqual(100);
      expect(stub.requests).toHaveLength(2);
    });

    it('fails at once with RateLimitedError when Retry-After is past the deadline', async () => {
      stub.handle(() => ({ status: 429, headers: { 'retry-after': '30' }, json: { error: 'rate_limited' } }));
      const started = Date.now();
      const error = await clientFor({ deadlineMs: 10_000 }).products.get(1).catch(caught);
      expect(error).toBeInstanceOf(RateLimitedError);
      expect((error as RateLimitedError).retryAfterMs).toBe(30_000);
      expect(Date.now() - started).toBeLessThan(5_000); // not waiting out the deadline
      expect(stub.requests).toHaveLength(1);
    });

    it('times a stalled response out and retries it', async () => {
      script([() => 'stall'], product);
      const started = Date.now();
      expect((await clientFor({ timeoutMs: 200 }).products.get(1)).id).toBe(1);
      expect(Date.now() - started).toBeGreaterThanOrEqual(200);
      expect(stub.requests).toHaveLength(2);
    });

    it('ends with TimeoutError when every attempt stalls, within the deadline', async () => {
      stub.handle(() => 'stall');
      const started = Date.now();
      // Without the deadline, 41 attempts of 150 ms: over 6 s.
      const error = await clientFor({ timeoutMs: 150, deadlineMs: 600, retries: 40 })
        .account.get()
        .catch(caught);
      expect(error).toBeInstanceOf(TimeoutError);
      expect(Date.now() - started).toBeLessThan(2_500);
    });
  });

  describe('waits and shutdown', () => {
    it('honours Retry-After on a 503 as well', async () => {
      script([() => ({ status: 503, headers: { 'retry-after': '1' } })], product);
      const started = Date.now();
      await clientFor().products.get(503);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
      expect(stub.requests.filter((r) => r.path === '/products/503')).toHaveLength(2);
    });

    it('aborts a pending call and its retry waits when the client signal fires', async () => {
      const controller = new AbortController();
      const client = clientFor({ signal: controller.signal, timeoutMs: 5_000 });
      // One handler for both calls, by path: the stall must not depend on which request arrives first.
      stub.handle((req) =>
        req.path === '/account' ? { status: 429, headers: { 'retry-after': '20' } } : 'stall',
      );
      const stalled = client.products.get(1).catch(caught);
      const waiting = clientFor({ signal: controller.signal, deadlineMs: 60_000 })
        .account.get()
        .catch(caught);
      // Both requests at the stub before the abort: one sent but not yet arrived would be counted
      // by the next test (seen once on a loaded machine).
      await vi.waitFor(() => expect(stub.requests).toHaveLength(2), { timeout: 5_000 });
      const started = Date.now();
      controller.abort(new Error('shutting down'));
      expect(((await stalled) as Error).message).toBe('shutting down');
      expect(((await waiting) as Error).message).toBe('shutting down');
      expect(Date.now() - started).toBeLessThan(3_000); // not the 5 s timeout or the 20 s wait
      await expect(client.account.get()).rejects.toThrow('shutting down');
    });
  });

  describe('failures that are not retried', () => {
    it('fails at once on 401 and 403 with the server code', async () => {
      for (const [status, code] of [
        [401, 'invalid_token'],
        [403, 'no_user'],
      ] as const) {
        stub.requests.length = 0;
        stub.handle(() => ({ status, json: { error: code, message: `bad key ${KEY}` } }));
        const error = await clientFor().account.get().catch(caught);
        expect(error).toBeInstanceOf(AuthError);
        expect((error as AuthError).apiCode).toBe(code);
        expect((error as AuthError).fatal).toBe(true);
        expect(JSON.stringify(error)).not.toContain(KEY);
        expect((error as Error).message).not.toContain(KEY);
        expect(stub.requests).toHaveLength(1);
      }
    });

    it('fails at once on 422 with the field errors', async () => {
      stub.handle(() => ({
        status: 422,
        json: { error: 'validation_error', message: 'invalid', errors: { 'items.0.sku': ['unknown sku'] } },
      }));
      const error = await clientFor()
        .products.bulkStock([{ sku: 'NOPE', quantity: 1 }])
        .catch(caught);
      expect(error).toBeInstanceOf(ApiValidationError);
      expect((error as ApiValidationError).fieldErrors).toEqual({ 'items.0.sku': ['unknown sku'] });
      expect(stub.requests).toHaveLength(1);
    });
  });

  describe('creates are never repeated blindly', () => {
    const order = { customer_id: 3, items: [{ sku: 'SKU-1', quantity: 1 }], source_order_id: 'ERP-1' };

    it('reports outcome-unknown when POST /orders loses its connection, after one request', async () => {
      stub.handle(() => 'drop');
      const error = await clientFor().orders.create(order).catch(caught);
      expect(error).toBeInstanceOf(OutcomeUnknownError);
      expect((error as OutcomeUnknownError).reason).toBe('api_network');
      expect(stub.requests).toHaveLength(1);
    });

    it('reports outcome-unknown when POST /products stalls, after one request', async () => {
      stub.handle(() => 'stall');
      const error = await clientFor({ timeoutMs: 150 })
        .products.create({ name: 'Mug', sku: 'MUG' })
        .catch(caught);
      expect(error).toBeInstanceOf(OutcomeUnknownError);
      expect((error as OutcomeUnknownError).reason).toBe('api_timeout');
      expect(stub.requests).toHaveLength(1);
    });

    it('reports outcome-unknown on a 500 to POST /orders, but retries a 503 (not processed)', async () => {
      stub.handle(() => ({ status: 500 }));
      await expect(clientFor().orders.create(order)).rejects.toBeInstanceOf(OutcomeUnknownError);
      expect(stub.requests).toHaveLength(1);
      stub.requests.length = 0;
      script([() => ({ status: 503 })], () => ({ status: 201, json: { data: orderRecord(8) } }));
      expect((await clientFor().orders.create(order)).id).toBe(8);
      expect(stub.requests).toHaveLength(2);
    });

    it('retries a create whose connection was refused (nothing was sent)', async () => {
      const gone = await startStubServer();
      const url = gone.url;
      await gone.close();
      const error = await clientFor({ baseUrl: url, retries: 1 }).orders.create(order).catch(caught);
      expect(error).toBeInstanceOf(NetworkError);
      expect((error as NetworkError).networkCode).toBe('ECONNREFUSED');
    });

    it('retries the idempotent AWB and invoice POSTs after a drop', async () => {
      script([() => 'drop'], () => ({ status: 201, json: { data: { number: 'TEST1', courier: 'fan' } } }));
      expect((await clientFor().orders.createAwb(3)).number).toBe('TEST1');
      script([() => 'drop'], () => ({ json: { data: { series: 'INV', number: 4 } } }));
      expect((await clientFor().orders.createInvoice(3)).number).toBe(4);
      expect(stub.requests.map((r) => r.path)).toEqual([
        '/orders/3/awb',
        '/orders/3/awb',
        '/orders/3/invoice',
        '/orders/3/invoice',
      ]);
    });

    it('repeats PUT, DELETE and tag attach/detach after a drop, but not POST /tags', async () => {
      const client = clientFor();
      const once = (reply: Parameters<StubServer['handle']>[0]) => script([() => 'drop'], reply);
      once(() => ({ json: { data: { id: 4, name: 'sale', color: null } } }));
      expect((await client.tags.update(4, { name: 'sale' })).name).toBe('sale');
      once(() => ({ status: 204 }));
      expect(await client.tags.delete(4)).toEqual({ deleted: true });
      once(() => ({ json: { data: { attached: 1 } } }));
      expect(await client.tags.attach(4, [1])).toEqual({ attached: 1 });
      once(() => ({ json: { data: { detached: 1 } } }));
      expect(await client.tags.detach(4, [1])).toEqual({ detached: 1 });
      expect(stub.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
        'PUT /tags/4',
        'PUT /tags/4',
        'DELETE /tags/4',
        'DELETE /tags/4',
        'POST /tags/4/attach',
        'POST /tags/4/attach',
        'POST /tags/4/detach',
        'POST /tags/4/detach',
      ]);
      stub.requests.length = 0;
      once(() => ({ status: 201, json: { data: { id: 5, name: 'new' } } }));
      await expect(client.tags.create({ name: 'new' })).rejects.toBeInstanceOf(OutcomeUnknownError);
      expect(stub.requests).toHaveLength(1);
    });

    it('treats a stock delta as a create: not repeated after a drop', async () => {
      stub.handle(() => 'drop');
      await expect(clientFor().products.updateStock(1, { delta: -1 })).rejects.toBeInstanceOf(
        OutcomeUnknownError,
      );
      expect(stub.requests).toHaveLength(1);
    });
  });

  describe('observability', () => {
    it('logs each attempt at debug under one request id per call, sent as X-Request-Id', async () => {
      const log = captureLog();
      script([() => ({ status: 500 })], product);
      await clientFor({ logger: log.logger }).products.get(1);
      const attempts = log.lines().filter((l) => l.msg === 'API call');
      expect(attempts.map((l) => [l.level, l.status, l.attempt, l.path])).toEqual([
        [20, 500, 1, '/products/1'],
        [20, 200, 2, '/products/1'],
      ]);
      expect(attempts[0]!.requestId).toBe(attempts[1]!.requestId);
      expect(stub.requests.map((r) => r.headers['x-request-id'])).toEqual([
        attempts[0]!.requestId,
        attempts[0]!.requestId,
      ]);
      expect(log.lines().filter((l) => l.msg === 'API call failed, retrying')).toHaveLength(1);
      expect(log.text()).not.toContain(KEY);
    });

    it('reports every attempt to onResponse with status, duration and attempt number', async () => {
      script([() => ({ status: 503 })], product);
      const seen: { status: number | null; attempt: number; route: string; errorCode?: string }[] = [];
      await clientFor({ onResponse: (info) => seen.push(info) }).products.get(1);
      expect(
        seen.map(({ status, attempt, route, errorCode }) => ({ status, attempt, route, errorCode })),
      ).toEqual([
        { status: 503, attempt: 1, route: '/products/{id}', errorCode: 'api_server' },
        { status: 200, attempt: 2, route: '/products/{id}', errorCode: undefined },
      ]);
    });
  });

  describe('deadline and close', () => {
    it('sends no attempt that the deadline would cut short: a create refused with 429 ends at once', async () => {
      script([() => ({ status: 429, headers: { 'retry-after': '5' } })], () => ({
        status: 201,
        json: { data: orderRecord(9) },
      }));
      const started = Date.now();
      const error = await clientFor({ deadlineMs: 5_050 })
        .orders.create({ customer_id: 3, items: [{ sku: 'SKU-1', quantity: 1 }] })
        .catch(caught);
      expect(error).toBeInstanceOf(RateLimitedError);
      expect(stub.requests).toHaveLength(1);
      expect(Date.now() - started).toBeLessThan(2_500); // not the 5 s wait
    });

    it('close() ends retry waits at once, clears their timers, and refuses later calls', async () => {
      const created: unknown[] = [];
      const cleared = new Set<unknown>();
      const realSet = globalThis.setTimeout;
      const realClear = globalThis.clearTimeout;
      const setSpy = vi.spyOn(globalThis, 'setTimeout').mockImplementation(((fn: () => void, ms?: number) => {
        const handle = realSet(fn, ms);
        if ((ms ?? 0) >= 10_000) created.push(handle);
        return handle;
      }) as typeof setTimeout);
      const clearSpy = vi.spyOn(globalThis, 'clearTimeout').mockImplementation((handle) => {
        cleared.add(handle);
        realClear(handle);
      });
      try {
        stub.handle(() => ({
          status: 429,
          headers: { 'retry-after': '20' },
          json: { error: 'rate_limited' },
        }));
        const client = clientFor({ deadlineMs: 60_000 });
        const waiting = client.stats.get().catch(caught);
        while (created.length === 0) await new Promise((resolve) => realSet(resolve, 5));
        const started = Date.now();
        await client.close();
        expect(await waiting).toBeInstanceOf(RateLimitedError);
        expect(Date.now() - started).toBeLessThan(5_000); // not the 20 s wait
        expect(created.every((handle) => cleared.has(handle))).toBe(true);
        const late = await client.account.get().catch(caught);
        expect(late).toMatchObject({ code: 'internal', retryable: false });
        expect(stub.requests).toHaveLength(1);
        await client.close();
      } finally {
        setSpy.mockRestore();
        clearSpy.mockRestore();
      }
    });

    it('leaves no listener on the caller signal after calls, retries and failures', async () => {
      const controller = new AbortController();
      const client = clientFor({ signal: controller.signal });
      script([() => ({ status: 500 }), () => 'drop'], product);
      expect((await client.products.get(1)).id).toBe(1);
      stub.handle(() => ({ status: 404, json: { error: 'not_found' } }));
      await client.products.get(2).catch(caught);
      expect(stub.requests).toHaveLength(4);
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    });

    it('refuses a key that cannot be sent in a header, without echoing it', () => {
      const bad = `${KEY}\n`;
      let error: unknown;
      try {
        createApiClient({ baseUrl: stub.url, apiKey: bad });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).not.toContain(KEY);
    });
  });
});

describe('secrets', () => {
  it('never logged the key, in call lines or in the errors logged by the caller', () => {
    expect(log.lines().filter((l) => l.msg === 'API call').length).toBeGreaterThan(20);
    expect(log.lines().filter((l) => l.msg === 'call failed').length).toBeGreaterThan(10);
    expect(log.text()).not.toContain(KEY);
  });
});
