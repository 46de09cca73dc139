import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiValidationError,
  AuthError,
  NotFoundError,
  createApiClient,
  fullOrder,
  toPlatformOrder,
  type ApiClient,
  type ApiProduct,
} from '../../../src/api/index.js';
import { startSandbox } from '../../../src/sandbox/index.js';
import { captureLog } from '../../support/logCapture.js';

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

let sandbox: Sandbox;
let client: ApiClient;
const log = captureLog();
const runId = Date.now().toString(36);

/** Customer data read or written by the tests: must never reach the client's log. */
const customerSecrets: string[] = [];

/** Logs a failure the way the daemon does (pino `err`), so the key grep covers errors too. */
const caught = (error: unknown): unknown => {
  log.logger.error({ err: error }, 'call failed');
  return error;
};

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

function clientWith(apiKey: string, options: { authHeader?: 'bearer' | 'x-api-key' } = {}): ApiClient {
  return createApiClient({
    baseUrl: sandbox.url,
    apiKey,
    retries: 1,
    minBackoffMs: 5,
    logger: log.logger,
    ...options,
  });
}

/** Tag references on a product: numbers, or objects with an id. */
function tagIds(product: ApiProduct): number[] {
  const tags = (product.tags ?? []) as unknown[];
  return tags.map((tag) => (typeof tag === 'number' ? tag : Number((tag as { id: unknown }).id)));
}

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, seed: 'demo' });
  client = clientWith(sandbox.keys.primary);
});

afterAll(async () => {
  await client.close();
  await sandbox.close();
});

describe('account and reference data', () => {
  it('reads the account and the stats', async () => {
    const account = await client.account.get();
    expect(JSON.stringify(account)).toContain('Demo Retail SRL');
    const stats = await client.stats.get();
    expect(JSON.stringify(stats)).toMatch(/"products_count":\d+/);
    expect(Object.keys(stats).length).toBeGreaterThan(0);
  });

  it('works with the X-Api-Key header too', async () => {
    const other = clientWith(sandbox.keys.primary, { authHeader: 'x-api-key' });
    expect(JSON.stringify(await other.account.get())).toContain('Demo Retail SRL');
    await other.close();
  });

  it('lists currencies, languages and countries', async () => {
    const currencies = await client.currencies.list();
    for (const code of ['RON', 'EUR', 'USD']) expect(JSON.stringify(currencies.data)).toContain(code);
    expect((await client.languages.list()).data.length).toBeGreaterThan(0);
    expect((await client.countries.list()).data.length).toBeGreaterThan(0);
  });

  it('lists the connections', async () => {
    for (const list of [
      client.marketplaces,
      client.couriers,
      client.billingSoftware,
      client.websites,
      client.fulfillments,
    ]) {
      const page = await list.list();
      expect(page.data.length).toBeGreaterThan(0);
      expect(page.meta.current_page).toBe(1);
    }
  });

  it('reads the category tree and one category', async () => {
    const roots = await client.categories.list();
    const first = roots.data[0];
    expect(first).toBeDefined();
    expect(Array.isArray(first?.children)).toBe(true);
    const one = await client.categories.get(first!.id);
    expect(one).toMatchObject({ id: first!.id, name: first!.name });
  });

  it('lists, walks and reads returns and offers', async () => {
    const returns = await client.returns.list({ per_page: 2 });
    expect(returns.data.length).toBeGreaterThan(0);
    const walked = await collect(client.returns.iterate());
    expect(walked).toHaveLength(returns.meta.total);
    expect((await client.returns.get(returns.data[0]!.id)).id).toBe(returns.data[0]!.id);
    const offers = await client.offers.list();
    expect(offers.data.length).toBeGreaterThan(0);
    expect((await client.offers.get(offers.data[0]!.id)).id).toBe(offers.data[0]!.id);
  });
});

describe('products', () => {
  it('walks every product once, 100 per page', async () => {
    const first = await client.products.list({ per_page: 5 });
    expect(first.data).toHaveLength(5);
    expect(first.meta.per_page).toBe(5);
    const all = await collect(client.products.iterate());
    expect(all).toHaveLength(first.meta.total);
    expect(new Set(all.map((p) => p.id)).size).toBe(all.length);
    expect(all.length).toBeGreaterThanOrEqual(200);
    const active = await collect(client.products.iterate({ status: 'active' }));
    expect(active.length).toBeGreaterThan(0);
    expect(active.every((p) => p.status === 'active')).toBe(true);
  });

  it('creates, reads, updates a product, its price and its stock', async () => {
    const sku = `IT-${runId}`;
    const created = await client.products.create({
      name: 'Integration mug',
      sku,
      price: 30,
      vat_rate: 19,
      stock_quantity: 4,
    });
    expect(created).toMatchObject({ sku, name: 'Integration mug', status: 'draft', price: 30 });
    expect((await client.products.get(created.id)).sku).toBe(sku);
    expect((await client.products.update(created.id, { name: 'Renamed mug', status: 'active' })).name).toBe(
      'Renamed mug',
    );
    expect((await client.products.updatePrice(created.id, { price: 35, sale_price: 31 })).price).toBe(35);
    expect((await client.products.updateStock(created.id, { quantity: 7 })).stock_quantity).toBe(7);
    expect((await client.products.updateStock(created.id, { delta: -2 })).stock_quantity).toBe(5);
    const found = await client.products.list({ search: sku });
    expect(found.data.map((p) => p.id)).toEqual([created.id]);
  });

  it('counts name lengths in characters like the server: 191 emoji pass both', async () => {
    const name = '🍵'.repeat(191);
    const created = await client.products.create({ name, sku: `EMOJI-${runId}` });
    expect(created.name).toBe(name);
    await expect(client.products.update(created.id, { name: `${name}!` })).rejects.toMatchObject({
      code: 'client_validation',
      fieldErrors: { name: ['must be at most 191 characters'] },
    });
  });

  it('sets the stock of a variant', async () => {
    const all = await collect(client.products.iterate());
    const variable = all.find((p) => p.type === 'variable' && (p.variants?.length ?? 0) > 0)!;
    const variant = variable.variants![0]!;
    const updated = await client.products.updateStock(variable.id, { quantity: 11 }, variant.id);
    expect(updated.variants?.find((v) => v.id === variant.id)?.stock_quantity).toBe(11);
  });

  it('finds products changed after a time', async () => {
    const product = (await client.products.list({ per_page: 1 })).data[0]!;
    const before = new Date(Date.now() - 2_000).toISOString();
    await client.products.updatePrice(product.id, { cost_price: 1.5 });
    const changed = await collect(client.products.iterate({ updated_after: before }));
    expect(changed.map((p) => p.id)).toContain(product.id);
  });

  it('pushes bulk stock and prices and reports unknown identifiers', async () => {
    const [a, b] = (await client.products.list({ status: 'active', per_page: 50 })).data.filter(
      (p) => p.type !== 'variable',
    );
    const stock = await client.products.bulkStock([
      { sku: a!.sku, quantity: 12 },
      { id: b!.id, quantity: 13 },
      { sku: `MISSING-${runId}`, quantity: 1 },
    ]);
    expect(stock.updated).toBe(2);
    expect(stock.notFound).toEqual([{ sku: `MISSING-${runId}` }]);
    expect((await client.products.get(a!.id)).stock_quantity).toBe(12);
    const prices = await client.products.bulkPrices([
      { sku: a!.sku, price: 99.5 },
      { id: 987654321, price: 1 },
    ]);
    expect(prices).toEqual({ updated: 1, notFound: [{ id: 987654321 }] });
    expect((await client.products.get(a!.id)).price).toBe(99.5);
  });

  it('lists and walks the stock list', async () => {
    const page = await client.products.stockList({ per_page: 10 });
    expect(page.data.length).toBe(10);
    const all = await collect(client.products.iterateStock());
    expect(all).toHaveLength(page.meta.total);
  });

  it('turns a duplicate SKU into an ApiValidationError with field errors', async () => {
    const existing = (await client.products.list({ per_page: 1 })).data[0]!;
    const error = await client.products.create({ name: 'Dup', sku: existing.sku }).catch(caught);
    expect(error).toBeInstanceOf(ApiValidationError);
    expect(Object.keys((error as ApiValidationError).fieldErrors)).toContain('sku');
  });

  it("turns a missing product and another company's product into NotFoundError", async () => {
    await expect(client.products.get(987654321)).rejects.toBeInstanceOf(NotFoundError);
    const secondary = clientWith(sandbox.keys.secondary);
    const theirs = (await secondary.products.list({ per_page: 1 })).data[0]!;
    await expect(client.products.get(theirs.id)).rejects.toBeInstanceOf(NotFoundError);
    await secondary.close();
  });
});

describe('orders', () => {
  it('walks every order once', async () => {
    const first = await client.orders.list({ per_page: 10 });
    const all = await collect(client.orders.iterate());
    expect(all).toHaveLength(first.meta.total);
    expect(new Set(all.map((o) => o.id)).size).toBe(all.length);
    expect((await client.orders.list({ status: 'shipped' })).data.every((o) => o.status === 'shipped')).toBe(
      true,
    );
  });

  it('walks every order exactly once while new orders arrive at the front', async () => {
    const before = (await collect(client.orders.iterate())).map((o) => o.id);
    const customer = (await client.customers.list({ per_page: 1 })).data[0]!;
    const product = (await client.products.list({ status: 'active', per_page: 50 })).data.find(
      (p) => p.type !== 'variable' && (p.stock_quantity ?? 0) >= 5,
    )!;
    const seen: number[] = [];
    for await (const order of client.orders.iterate()) {
      seen.push(order.id);
      if (seen.length % 50 === 0) {
        await client.orders.create({ customer_id: customer.id, items: [{ sku: product.sku, quantity: 1 }] });
      }
    }
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of before) expect(seen).toContain(id);
  });

  it('walks orders the same when the server lists them oldest first', async () => {
    const asc = await startSandbox({ port: 0, seed: 'demo', ordersOrder: 'asc' });
    const ascClient = createApiClient({ baseUrl: asc.url, apiKey: asc.keys.primary, logger: log.logger });
    try {
      const first = await ascClient.orders.list({ per_page: 3 });
      expect(first.data[0]!.id).toBeLessThan(first.data[1]!.id);
      const ids = (await collect(ascClient.orders.iterate())).map((o) => o.id);
      expect(ids).toHaveLength(first.meta.total);
      expect(new Set(ids).size).toBe(ids.length);

      // Orders created while the walk is on page 1 land at the end of an oldest-first list: all are met.
      const customer = (await ascClient.customers.list({ per_page: 1 })).data[0]!;
      const product = (await ascClient.products.list({ status: 'active', per_page: 50 })).data.find(
        (p) => p.type !== 'variable' && (p.stock_quantity ?? 0) >= 5,
      )!;
      const seen: number[] = [];
      const added: number[] = [];
      for await (const order of ascClient.orders.iterate()) {
        seen.push(order.id);
        if (seen.length % 30 === 0 && added.length < 3) {
          const line = { sku: product.sku, quantity: 1 };
          added.push((await ascClient.orders.create({ customer_id: customer.id, items: [line] })).id);
        }
      }
      expect(added).toHaveLength(3);
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen).toEqual([...ids, ...added]);
    } finally {
      await ascClient.close();
      await asc.close();
    }
  });

  it('creates an order, moves its status, issues AWB and invoice idempotently', async () => {
    const customer = (await client.customers.list({ per_page: 1 })).data[0]!;
    const product = (await client.products.list({ status: 'active', per_page: 50 })).data.find(
      (p) => p.type !== 'variable' && (p.stock_quantity ?? 0) >= 2,
    )!;
    const sourceId = `ERP-${runId}`;
    // The sandbox answers a create with the whole order (lines and totals).
    const order = fullOrder(
      await client.orders.create({
        customer_id: customer.id,
        items: [{ sku: product.sku, quantity: 2 }],
        shipping_total: 10,
        source_order_id: sourceId,
      }),
    )!;
    expect(order).not.toBeNull();
    expect(order).toMatchObject({
      status: 'new',
      payment_status: 'unpaid',
      currency: 'RON',
      source_order_id: sourceId,
    });
    expect(order.items[0]).toMatchObject({ sku: product.sku, quantity: 2 });
    expect(order.total).toBeCloseTo(order.subtotal + order.shipping_total - order.discount_total, 2);

    const mapped = toPlatformOrder(await client.orders.get(order.id));
    expect(mapped).toMatchObject({ id: order.id, sourceOrderId: sourceId, status: 'new' });
    expect(mapped.customer.id).toBe(customer.id);
    expect((await client.orders.list({ search: sourceId })).data.map((o) => o.id)).toEqual([order.id]);

    const confirmed = await client.orders.update(order.id, { status: 'confirmed', note: 'checked' });
    expect(confirmed.status).toBe('confirmed');
    expect((confirmed.history as unknown[]).length).toBeGreaterThan(0);

    const awb = await client.orders.createAwb(order.id, { parcels: 1, weight: 1.2 });
    expect(String(awb.number)).not.toBe('');
    expect((await client.orders.createAwb(order.id)).number).toBe(awb.number);
    const invoice = await client.orders.createInvoice(order.id);
    expect((await client.orders.createInvoice(order.id)).number).toBe(invoice.number);
    const after = toPlatformOrder(await client.orders.get(order.id));
    expect(after.awbNumber).toBe(String(awb.number));
    expect(after.invoiceNumber).toBe(String(invoice.number));
  });

  it('reports an unknown SKU in an order as field errors', async () => {
    const customer = (await client.customers.list({ per_page: 1 })).data[0]!;
    const error = await client.orders
      .create({ customer_id: customer.id, items: [{ sku: `NOPE-${runId}`, quantity: 1 }] })
      .catch(caught);
    expect(error).toBeInstanceOf(ApiValidationError);
    expect(Object.keys((error as ApiValidationError).fieldErrors).join(' ')).toContain('items.0');
  });
});

describe('customers', () => {
  it('lists, walks, reads and updates customers', async () => {
    const page = await client.customers.list({ per_page: 10 });
    const all = await collect(client.customers.iterate());
    expect(all).toHaveLength(page.meta.total);
    expect(all.length).toBeGreaterThanOrEqual(50);
    const one = await client.customers.get(page.data[0]!.id);
    expect(one.id).toBe(page.data[0]!.id);
    const updated = await client.customers.update(one.id, { notes: `note ${runId}` });
    expect(updated.notes).toBe(`note ${runId}`);
    customerSecrets.push(`note ${runId}`, String(one.email), String(one.name));
    expect((await client.customers.list({ search: String(one.email) })).data.map((c) => c.id)).toContain(
      one.id,
    );
  });
});

describe('tags', () => {
  it('creates, renames, attaches, detaches and deletes a tag', async () => {
    const name = `it-${runId}`;
    const tag = await client.tags.create({ name, color: 'red' });
    expect(tag).toMatchObject({ name, color: 'red' });
    expect((await client.tags.list({ search: name })).data.map((t) => t.id)).toEqual([tag.id]);
    const renamed = await client.tags.update(tag.id, { name: `${name}-x`, color: '#00ff00' });
    expect(renamed).toMatchObject({ id: tag.id, name: `${name}-x`, color: '#00ff00' });

    const product = (await client.products.list({ per_page: 1 })).data[0]!;
    expect(await client.tags.attach(tag.id, [product.id])).toMatchObject({ attached: 1 });
    expect(tagIds(await client.products.get(product.id))).toContain(tag.id);
    expect(await client.tags.detach(tag.id, [product.id])).toMatchObject({ detached: 1 });
    expect(tagIds(await client.products.get(product.id))).not.toContain(tag.id);

    await client.tags.attach(tag.id, [product.id]);
    expect(await client.tags.delete(tag.id)).toMatchObject({ deleted: true });
    expect((await client.tags.list({ search: name })).data).toEqual([]);
    expect(tagIds(await client.products.get(product.id))).not.toContain(tag.id);
  });
});

describe('authentication', () => {
  it('fails with AuthError for a revoked key and for a company without a user', async () => {
    const revoked = clientWith(sandbox.keys.revoked);
    const revokedError = await revoked.account.get().catch(caught);
    expect(revokedError).toBeInstanceOf(AuthError);
    expect(revokedError).toMatchObject({ status: 401, apiCode: 'invalid_token', fatal: true });
    const noUser = clientWith(sandbox.keys.no_user);
    const noUserError = await noUser.account.get().catch(caught);
    expect(noUserError).toMatchObject({ status: 403, apiCode: 'no_user' });
    await Promise.all([revoked.close(), noUser.close()]);
  });
});

describe('logging', () => {
  it('logged every call with method, path, status, duration and attempt, and never a key', () => {
    const calls = log.lines().filter((line) => line.msg === 'API call');
    expect(calls.length).toBeGreaterThan(50);
    expect(calls.filter((line) => line.status === 200).length).toBeGreaterThan(40);
    expect(calls.every((line) => line.level === 20)).toBe(true);
    for (const line of calls) {
      expect(line).toMatchObject({
        method: expect.any(String),
        path: expect.any(String),
        attempt: expect.any(Number),
      });
      expect(typeof line.durationMs).toBe('number');
      expect(line.status === null || typeof line.status === 'number').toBe(true);
      expect(typeof line.requestId).toBe('string');
    }
    expect(log.lines().filter((line) => line.msg === 'call failed').length).toBeGreaterThanOrEqual(4);
    const text = log.text();
    for (const key of Object.values(sandbox.keys)) expect(text).not.toContain(key);
    expect(text).not.toContain('cms_');
    // No customer body either (request or response), nor a searched e-mail from a query string.
    const clientLines = log
      .lines()
      .filter((line) => line.msg !== 'call failed')
      .map((line) => JSON.stringify(line))
      .join('\n');
    expect(customerSecrets.length).toBe(3);
    for (const value of customerSecrets) expect(clientLines).not.toContain(value);
  });
});
