import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiValidationError,
  AuthError,
  OutcomeUnknownError,
  TimeoutError,
  createApiClient,
  type ApiClient,
  type ApiClientOptions,
} from '../../../src/api/index.js';
import { startSandbox } from '../../../src/sandbox/index.js';
import { captureLog } from '../../support/logCapture.js';

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

let sandbox: Sandbox;
const log = captureLog();
const clients: ApiClient[] = [];
const runId = Date.now().toString(36);

/** Logs a failure the way the daemon does (pino `err`), so the key grep covers errors too. */
const caught = (error: unknown): unknown => {
  log.logger.error({ err: error }, 'call failed');
  return error;
};

function clientFor(options: Partial<ApiClientOptions> = {}): ApiClient {
  const client = createApiClient({
    baseUrl: sandbox.url,
    apiKey: sandbox.keys.primary,
    retries: 6,
    minBackoffMs: 5,
    maxBackoffMs: 50,
    timeoutMs: 2_000,
    logger: log.logger,
    ...options,
  });
  clients.push(client);
  return client;
}

/** Request-log entries for a method and a path relative to the base URL. */
function logged(method: string, path: string) {
  return sandbox.requestLog.entries().filter((e) => e.method === method && e.path.endsWith(`/api/v2${path}`));
}

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 'demo', faultSeed: 7 });
});
afterEach(async () => {
  sandbox.setFaults(null);
  sandbox.requestLog.clear();
  await Promise.all(clients.splice(0).map((c) => c.close()));
});
afterAll(() => sandbox.close());

describe('faults healed by retries', () => {
  it('retries 5xx responses to success', async () => {
    sandbox.setFaults('error_rate=0.5,only=GET /account');
    const client = clientFor();
    for (let i = 0; i < 8; i++)
      expect(JSON.stringify(await client.account.get())).toContain('Demo Retail SRL');
    const statuses = logged('GET', '/account').map((e) => e.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(8);
    expect(statuses.some((s) => s !== null && s >= 500)).toBe(true);
  });

  it('retries dropped connections of an idempotent bulk push to success', async () => {
    const product = (await clientFor().products.list({ per_page: 1, status: 'active' })).data.find(
      (p) => p.type !== 'variable',
    );
    sandbox.requestLog.clear();
    sandbox.setFaults('drop_rate=0.5,only=PATCH /products/stock/bulk');
    const client = clientFor();
    for (let i = 0; i < 6; i++) {
      const result = await client.products.bulkStock([{ sku: product!.sku, quantity: 20 + i }]);
      expect(result.updated).toBe(1);
    }
    const entries = logged('PATCH', '/products/stock/bulk');
    expect(entries.some((e) => e.fault === 'drop')).toBe(true);
    expect(entries.filter((e) => e.status === 200)).toHaveLength(6);
    sandbox.setFaults(null);
    expect((await client.products.get(product!.id)).stock_quantity).toBe(25);
  });

  it('waits at least Retry-After on a 429', async () => {
    sandbox.setFaults('rate_limit=2/s,only=GET /stats');
    const client = clientFor();
    for (let i = 0; i < 4; i++) await client.stats.get();
    const entries = logged('GET', '/stats');
    const limitedIndex = entries.findIndex((e) => e.status === 429);
    expect(limitedIndex).toBeGreaterThanOrEqual(0);
    const limited = entries[limitedIndex]!;
    const retry = entries[limitedIndex + 1]!;
    expect(retry.status).toBe(200);
    // Retry-After is whole seconds, at least 1.
    expect(Date.parse(retry.at) - Date.parse(limited.at)).toBeGreaterThanOrEqual(1_000 - 50);
  });
});

describe('faults that end the call', () => {
  it('times out a stalled response', async () => {
    sandbox.setFaults('stall_rate=1,only=GET /stats');
    const started = Date.now();
    const error = await clientFor({ timeoutMs: 200, retries: 1 }).stats.get().catch(caught);
    expect(error).toBeInstanceOf(TimeoutError);
    // Two attempts of 200 ms; without the timeout a stalled call would never end.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(logged('GET', '/stats')).toHaveLength(2);
  });

  it('fails at once on 401 and 403, without retry', async () => {
    for (const [key, status] of [
      [sandbox.keys.revoked, 401],
      [sandbox.keys.no_user, 403],
    ] as const) {
      sandbox.requestLog.clear();
      const error = await clientFor({ apiKey: key }).products.list().catch(caught);
      expect(error).toBeInstanceOf(AuthError);
      expect((error as AuthError).status).toBe(status);
      expect(logged('GET', '/products')).toHaveLength(1);
    }
  });

  it('fails at once on 422 with the field errors', async () => {
    const [variable] = (await clientFor().products.list({ per_page: 100 })).data.filter(
      (p) => p.type === 'variable',
    );
    sandbox.requestLog.clear();
    const error = await clientFor()
      .products.bulkStock([{ id: variable!.id, quantity: 3 }])
      .catch(caught);
    expect(error).toBeInstanceOf(ApiValidationError);
    expect(Object.keys((error as ApiValidationError).fieldErrors).join(' ')).toMatch(/^items\.0\./);
    expect(logged('PATCH', '/products/stock/bulk')).toHaveLength(1);
  });

  it('reports outcome-unknown when POST /orders loses its response, sends it once, and the order exists', async () => {
    const client = clientFor();
    const customer = (await client.customers.list({ per_page: 1 })).data[0]!;
    const product = (await client.products.list({ status: 'active', per_page: 50 })).data.find(
      (p) => p.type !== 'variable' && (p.stock_quantity ?? 0) >= 1,
    )!;
    sandbox.requestLog.clear();
    sandbox.setFaults('drop_rate=1,only=POST /orders');
    const sourceId = `LOST-${runId}`;
    const error = await client.orders
      .create({
        customer_id: customer.id,
        items: [{ sku: product.sku, quantity: 1 }],
        source_order_id: sourceId,
      })
      .catch(caught);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect((error as OutcomeUnknownError).retryable).toBe(false);
    expect(logged('POST', '/orders')).toHaveLength(1);
    sandbox.setFaults(null);
    // The caller reconciles by source_order_id: the drop came after processing.
    expect((await client.orders.list({ search: sourceId })).data).toHaveLength(1);
  });

  it('reports outcome-unknown when POST /products stalls, sent once', async () => {
    sandbox.setFaults('stall_rate=1,only=POST /products');
    const error = await clientFor({ timeoutMs: 200 })
      .products.create({ name: 'Stalled', sku: `STALL-${runId}` })
      .catch(caught);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect((error as OutcomeUnknownError).reason).toBe('api_timeout');
    expect(logged('POST', '/products')).toHaveLength(1);
  });
});

describe('secrets', () => {
  it('never logged an API key during the fault runs', () => {
    const text = log.text();
    expect(log.lines().filter((l) => l.msg === 'API call').length).toBeGreaterThan(20);
    expect(log.lines().some((l) => l.msg === 'API call failed, retrying')).toBe(true);
    expect(log.lines().filter((l) => l.msg === 'call failed').length).toBeGreaterThanOrEqual(5);
    for (const key of Object.values(sandbox.keys)) expect(text).not.toContain(key);
  });
});
