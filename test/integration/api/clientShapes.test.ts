import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ClientValidationError,
  SchemaError,
  createApiClient,
  type ApiClient,
} from '../../../src/api/index.js';
import { VERSION } from '../../../src/version.js';
import { pageOf, startStubServer, type StubServer } from '../../support/stubServer.js';
import { captureLog } from '../../support/logCapture.js';
import { orderRecord, productRecord } from '../../support/records.js';

const KEY = 'cms_stub_0123456789abcdef';
const log = captureLog();
let stub: StubServer;
let client: ApiClient;

beforeAll(async () => {
  stub = await startStubServer();
  client = createApiClient({ baseUrl: stub.url, apiKey: KEY, retries: 0, logger: log.logger });
});
afterEach(() => {
  stub.requests.length = 0;
});
afterAll(async () => {
  await client.close();
  await stub.close();
});

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

describe('bulk results in every plausible shape', () => {
  it('counts updated given as a number', async () => {
    stub.handle(() => ({ json: { data: { updated: 2, not_found: [] } } }));
    expect(
      await client.products.bulkStock([
        { sku: 'A', quantity: 1 },
        { sku: 'B', quantity: 2 },
      ]),
    ).toEqual({
      updated: 2,
      notFound: [],
    });
    expect(stub.requests[0]).toMatchObject({ method: 'PATCH', path: '/products/stock/bulk' });
    expect(stub.requests[0]?.body).toEqual({
      items: [
        { sku: 'A', quantity: 1 },
        { sku: 'B', quantity: 2 },
      ],
    });
  });

  it('counts updated given as a list of records', async () => {
    stub.handle(() => ({ json: { data: { updated: [{ id: 1 }, { id: 2 }, { id: 3 }], not_found: [] } } }));
    expect((await client.products.bulkPrices([{ id: 1, price: 3 }])).updated).toBe(3);
  });

  it('reads updated as a decimal string or an odd value (not counted), and not_found as a map keyed by SKU', async () => {
    stub.handle(() => ({ json: { data: { updated: '2', not_found: { GONE: 'product not found' } } } }));
    expect(
      await client.products.bulkStock([
        { sku: 'GONE', quantity: 1 },
        { sku: 'A', quantity: 2 },
      ]),
    ).toEqual({
      updated: 2,
      notFound: [{ sku: 'GONE' }],
    });
    stub.handle(() => ({ json: { updated: { count: 1 }, not_found: null } }));
    expect(await client.products.bulkStock([{ sku: 'A', quantity: 2 }])).toEqual({
      updated: 0,
      notFound: [],
    });
  });

  it('reads not_found as strings, numbers and objects', async () => {
    stub.handle(() => ({
      json: { data: { updated: 0, not_found: ['GONE', 99, { sku: 'X', variant_sku: 'X-L' }] } },
    }));
    const result = await client.products.bulkStock([{ sku: 'GONE', quantity: 1 }]);
    expect(result.notFound).toEqual([{ sku: 'GONE' }, { id: 99 }, { sku: 'X', variant_sku: 'X-L' }]);
  });

  it('reports a not_found entry with the identifiers of the one sent item it names', async () => {
    stub.handle(() => ({
      json: { data: { updated: 2, not_found: ['X-L', 7, { sku: 'Z' }, 'Q', { sku: 'W' }] } },
    }));
    const result = await client.products.bulkStock([
      { sku: 'X', variant_sku: 'X-L', quantity: 1 }, // named by its variant SKU alone
      { sku: 'X', variant_sku: 'X-M', quantity: 1 },
      { id: 7, quantity: 2 },
      { sku: 'Z', variant_id: 31, quantity: 3 }, // named by its product SKU, the only Z sent
      { sku: 'W', variant_sku: 'W-1', quantity: 1 }, // W names two items: reported as read
      { sku: 'W', variant_sku: 'W-2', quantity: 1 },
    ]);
    expect(result.notFound).toEqual([
      { sku: 'X', variant_sku: 'X-L' },
      { id: 7 },
      { sku: 'Z', variant_id: 31 },
      { sku: 'Q' },
      { sku: 'W' },
    ]);
  });

  it('reads a result without the data envelope, with product_id objects in not_found', async () => {
    stub.handle(() => ({
      json: { updated: [{ id: 1, price: 3 }], not_found: [{ product_id: 7 }, { sku: 'Y', variant_id: 4 }] },
    }));
    expect(
      await client.products.bulkPrices([
        { id: 1, price: 3 },
        { id: 7, price: 4 },
        { sku: 'Y', variant_id: 4, price: 5 },
      ]),
    ).toEqual({ updated: 1, notFound: [{ id: 7 }, { sku: 'Y', variant_id: 4 }] });
  });
});

describe('lists', () => {
  it('iterates a newest-first list and an oldest-first list to the same set', async () => {
    const ascending = Array.from({ length: 250 }, (_, i) => orderRecord(i + 1));
    for (const records of [ascending, [...ascending].reverse()]) {
      stub.handle((req) => ({
        json: pageOf(records, Number(req.query.get('page')), Number(req.query.get('per_page'))),
      }));
      const ids = (await collect(client.orders.iterate())).map((o) => o.id);
      expect(ids).toHaveLength(250);
      expect(new Set(ids).size).toBe(250);
    }
    expect(stub.requests.every((r) => r.query.get('per_page') === '100')).toBe(true);
  });

  it('misses nothing and repeats nothing when orders arrive at the front while walking', async () => {
    const records = Array.from({ length: 120 }, (_, i) => orderRecord(120 - i)); // newest first
    let next = 121;
    stub.handle((req) => {
      const page = Number(req.query.get('page'));
      const reply = pageOf(records, page, Number(req.query.get('per_page')));
      for (let i = 0; i < 30; i++) records.unshift(orderRecord(next++));
      return { json: reply };
    });
    const ids = (await collect(client.orders.iterate())).map((o) => o.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (let id = 1; id <= 120; id++) expect(ids).toContain(id);
  });

  it('follows products appended at the end while walking', async () => {
    const records = Array.from({ length: 150 }, (_, i) => productRecord(i + 1));
    stub.handle((req) => {
      const reply = pageOf(records, Number(req.query.get('page')), Number(req.query.get('per_page')));
      if (records.length === 150)
        records.push(...Array.from({ length: 100 }, (_, i) => productRecord(records.length + i + 1)));
      return { json: reply };
    });
    const ids = (await collect(client.products.iterate({ status: 'active' }))).map((p) => p.id);
    expect(ids).toEqual(Array.from({ length: 250 }, (_, i) => i + 1));
    expect(stub.requests[0]?.query.get('status')).toBe('active');
  });

  it('walks a list sent as a bare array (no meta) until a short page', async () => {
    const records = Array.from({ length: 230 }, (_, i) => orderRecord(i + 1));
    stub.handle((req) => {
      const page = Number(req.query.get('page'));
      return { json: records.slice((page - 1) * 100, page * 100) };
    });
    const ids = (await collect(client.orders.iterate({ status: 'new' }))).map((o) => o.id);
    expect(ids).toEqual(records.map((r) => r.id));
    expect(stub.requests.map((r) => r.query.get('page'))).toEqual(['1', '2', '3']);
  });

  it('ends the walk of a server that ignores page and repeats the whole list', async () => {
    const records = Array.from({ length: 150 }, (_, i) => productRecord(i + 1));
    stub.handle(() => ({ json: records }));
    const ids = (await collect(client.products.iterate())).map((p) => p.id);
    expect(ids).toEqual(records.map((r) => r.id));
    expect(stub.requests).toHaveLength(3);
  });

  it('reads decimals sent as strings as numbers, and names a non-numeric one as drift', async () => {
    const item = {
      ...(orderRecord(1).items as object[])[0],
      unit_price: '11.00',
      total: '22.00',
      quantity: '2',
    };
    stub.handle(() => ({
      json: { data: orderRecord(4, { items: [item], subtotal: '22.00', total: '27.00', tax_total: '3.51' }) },
    }));
    const order = await client.orders.get(4);
    expect(order).toMatchObject({ subtotal: 22, total: 27, tax_total: 3.51 });
    expect(order.items[0]).toMatchObject({ unit_price: 11, total: 22, quantity: 2 });
    stub.handle(() => ({ json: { data: productRecord(5, { price: '12,50' }) } }));
    const error = await client.products.get(5).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaError);
    expect((error as SchemaError).field).toBe('data.price');
  });

  it('keeps unknown extra fields on records', async () => {
    stub.handle(() => ({ json: { data: productRecord(5, { warehouse: { code: 'W1' } }), extra: true } }));
    const product = await client.products.get(5);
    expect(product.warehouse).toEqual({ code: 'W1' });
    expect(stub.requests[0]?.path).toBe('/products/5');
  });
});

describe('schema drift', () => {
  it('names the endpoint and the field that drifted', async () => {
    stub.handle(() => ({ json: pageOf([productRecord(1), productRecord(2, { sku: 17 })], 1, 50) }));
    const error = await client.products.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaError);
    expect((error as SchemaError).endpoint).toBe('GET /products');
    expect((error as SchemaError).field).toBe('data.1.sku');
  });

  it('names the field of a drifted single record', async () => {
    stub.handle(() => ({ json: { data: orderRecord(4, { status: 'lost', currency: 978 }) } }));
    const error = await client.orders.get(4).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaError);
    expect((error as SchemaError).endpoint).toBe('GET /orders/{id}');
    expect((error as SchemaError).field).toMatch(/^data\.(status|currency)$/);
    expect((error as SchemaError).message).toContain('GET /orders/{id}');
  });

  it('reports a non-JSON success body as drift', async () => {
    stub.handle(() => ({ text: '<html>proxy</html>' }));
    await expect(client.account.get()).rejects.toBeInstanceOf(SchemaError);
  });
});

describe('requests', () => {
  it('sends the key as a Bearer token with the erp-sync User-Agent and a request id', async () => {
    stub.handle(() => ({ json: { data: { name: 'Demo SRL' } } }));
    expect(await client.account.get()).toEqual({ name: 'Demo SRL' });
    const headers = stub.requests[0]?.headers ?? {};
    expect(headers.authorization).toBe(`Bearer ${KEY}`);
    expect(headers['x-api-key']).toBeUndefined();
    expect(headers['user-agent']).toBe(`erp-sync/${VERSION}`);
    expect(headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('sends the key as X-Api-Key when asked', async () => {
    const other = createApiClient({
      baseUrl: stub.url,
      apiKey: KEY,
      authHeader: 'x-api-key',
      userAgent: 'custom/1',
      logger: log.logger,
    });
    stub.handle(() => ({ json: { data: {} } }));
    await other.stats.get();
    await other.close();
    expect(stub.requests[0]?.headers['x-api-key']).toBe(KEY);
    expect(stub.requests[0]?.headers.authorization).toBeUndefined();
    expect(stub.requests[0]?.headers['user-agent']).toBe('custom/1');
  });

  it('makes no request for invalid input', async () => {
    stub.handle(() => ({ json: { data: { updated: 1, not_found: [] } } }));
    const error = await client.products
      .bulkStock([
        { sku: 'A', quantity: 1 },
        { sku: 'B', quantity: 1 },
        { sku: 'C' },
        { sku: 'D', quantity: -4 },
      ])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClientValidationError);
    expect(Object.keys((error as ClientValidationError).fieldErrors).sort()).toEqual([
      'items.2.quantity',
      'items.3.quantity',
    ]);
    await expect(client.orders.update(1, {})).rejects.toBeInstanceOf(ClientValidationError);
    expect(stub.requests).toHaveLength(0);
  });

  it('refuses every rule of spec sections 2 and 8 before sending, naming the field', async () => {
    const long = (n: number) => 'x'.repeat(n);
    const line = { sku: 'A', quantity: 1 };
    const cases: [string, () => Promise<unknown>, string][] = [
      ['product name required', () => client.products.create({} as never), 'name'],
      ['product name <= 191', () => client.products.create({ name: long(192) }), 'name'],
      ['product type enum', () => client.products.create({ name: 'a', type: 'bundle' as never }), 'type'],
      ['product status enum', () => client.products.create({ name: 'a', status: 'gone' as never }), 'status'],
      ['vat_rate <= 100', () => client.products.create({ name: 'a', vat_rate: 101 }), 'vat_rate'],
      ['vat_rate integer', () => client.products.create({ name: 'a', vat_rate: 9.5 }), 'vat_rate'],
      [
        'stock_quantity >= 0',
        () => client.products.create({ name: 'a', stock_quantity: -1 }),
        'stock_quantity',
      ],
      ['brand_id an id', () => client.products.create({ name: 'a', brand_id: 0 }), 'brand_id'],
      [
        'track_stock boolean',
        () => client.products.create({ name: 'a', track_stock: 'y' as never }),
        'track_stock',
      ],
      [
        'highlights strings',
        () => client.products.create({ name: 'a', highlights: [1 as never] }),
        'highlights.0',
      ],
      [
        'weight_grams integer',
        () => client.products.create({ name: 'a', weight_grams: 1.5 }),
        'weight_grams',
      ],
      ['product update needs a field', () => client.products.update(1, {}), '(body)'],
      ['type not updatable', () => client.products.update(1, { type: 'simple' } as never), 'type'],
      ['price update needs a field', () => client.products.updatePrice(1, {}), '(body)'],
      ['price vat_rate >= 0', () => client.products.updatePrice(1, { vat_rate: -1 }), 'vat_rate'],
      ['stock quantity >= 0', () => client.products.updateStock(1, { quantity: -1 }), 'quantity'],
      ['stock quantity integer', () => client.products.updateStock(1, { quantity: 1.5 }), 'quantity'],
      ['bulk needs items', () => client.products.bulkStock([]), 'items'],
      [
        'bulk <= 1000 items',
        () => client.products.bulkStock(Array.from({ length: 1001 }, (_, i) => ({ id: i + 1, quantity: 1 }))),
        'items',
      ],
      ['bulk item id or sku', () => client.products.bulkStock([{ quantity: 1 }]), 'items.0.id'],
      ['bulk price field', () => client.products.bulkPrices([{ sku: 'A' }]), 'items.0.price'],
      ['per_page >= 1', () => client.products.list({ per_page: 0 }), 'per_page'],
      ['per_page <= 100', () => client.customers.list({ per_page: 101 }), 'per_page'],
      ['list status enum', () => client.orders.list({ status: 'lost' as never }), 'status'],
      ['order customer', () => client.orders.create({ items: [line] }), 'customer_id'],
      [
        'order customer name',
        () => client.orders.create({ customer: {} as never, items: [line] }),
        'customer.name',
      ],
      ['order items >= 1', () => client.orders.create({ customer_id: 1, items: [] }), 'items'],
      [
        'order line product_id or sku',
        () => client.orders.create({ customer_id: 1, items: [{ quantity: 1 }] }),
        'items.0.product_id',
      ],
      [
        'order line quantity >= 1',
        () => client.orders.create({ customer_id: 1, items: [{ sku: 'A', quantity: 0 }] }),
        'items.0.quantity',
      ],
      [
        'order line tax_rate <= 100',
        () => client.orders.create({ customer_id: 1, items: [{ ...line, tax_rate: 101 }] }),
        'items.0.tax_rate',
      ],
      [
        'order status enum',
        () => client.orders.create({ customer_id: 1, items: [line], status: 'lost' as never }),
        'status',
      ],
      [
        'payment_status enum',
        () => client.orders.create({ customer_id: 1, items: [line], payment_status: 'owed' as never }),
        'payment_status',
      ],
      [
        'currency 3 letters',
        () => client.orders.create({ customer_id: 1, items: [line], currency: 'LEI1' }),
        'currency',
      ],
      ['order update needs a field', () => client.orders.update(1, {}), '(body)'],
      ['note <= 500', () => client.orders.update(1, { note: long(501) }), 'note'],
      ['labels <= 60 each', () => client.orders.update(1, { labels: ['ok', long(61)] }), 'labels.1'],
      ['AWB courier enum', () => client.orders.createAwb(1, { courier: 'ups' as never }), 'courier'],
      ['AWB parcels >= 1', () => client.orders.createAwb(1, { parcels: 0 }), 'parcels'],
      ['customer name not empty', () => client.customers.update(1, { name: ' ' }), 'name'],
      ['customer notes <= 2000', () => client.customers.update(1, { notes: long(2001) }), 'notes'],
      ['tag name <= 60', () => client.tags.create({ name: long(61) }), 'name'],
      ['tag color <= 32', () => client.tags.create({ name: 'a', color: long(33) }), 'color'],
      ['tag update needs a field', () => client.tags.update(1, {}), '(body)'],
      ['attach needs products', () => client.tags.attach(1, []), 'product_ids'],
      ['ids are positive integers', () => client.products.get(0), 'id'],
    ];
    stub.handle(() => ({ json: { data: {} } }));
    const missed: string[] = [];
    for (const [rule, call, field] of cases) {
      const error = await call().catch((e: unknown) => e);
      if (!(error instanceof ClientValidationError) || !(field in error.fieldErrors)) missed.push(rule);
      else expect(error.message).toContain(field);
    }
    expect(missed).toEqual([]);
    expect(stub.requests).toHaveLength(0);
  });

  it('reuses at most maxSockets connections with keep-alive and opens one per request without it', async () => {
    stub.handle(() => ({ json: { data: {} } }));
    for (const keepAlive of [true, false]) {
      const c = createApiClient({ baseUrl: stub.url, apiKey: KEY, keepAlive, maxSockets: 2 });
      const before = stub.connections();
      for (let i = 0; i < 10; i++) await c.account.get();
      await Promise.all(Array.from({ length: 10 }, () => c.account.get()));
      await c.close();
      const opened = stub.connections() - before;
      if (keepAlive) expect(opened).toBeLessThanOrEqual(2);
      else expect(opened).toBe(20);
    }
  });

  it('takes the AWB from an answer holding the whole order', async () => {
    stub.handle(() => ({
      status: 201,
      json: { data: orderRecord(4, { awb: { number: 'TEST9', courier: 'fan' } }) },
    }));
    expect(await client.orders.createAwb(4, { parcels: 2 })).toMatchObject({
      number: 'TEST9',
      courier: 'fan',
    });
    expect(stub.requests[0]).toMatchObject({ method: 'POST', path: '/orders/4/awb', body: { parcels: 2 } });
  });
});

describe('documents and deletions', () => {
  it('takes the invoice from an answer holding the whole order', async () => {
    stub.handle(() => ({ json: { data: orderRecord(4, { invoice: { series: 'INV', number: 12 } }) } }));
    expect(await client.orders.createInvoice(4)).toMatchObject({ series: 'INV', number: 12 });
    expect(stub.requests[0]).toMatchObject({ method: 'POST', path: '/orders/4/invoice', body: undefined });
  });

  it('reads the AWB number under number, awb_number or tracking_number, as text or a number, wrapped or bare', async () => {
    const answers: unknown[] = [
      { data: { number: 'FAN1', courier: 'fan' } },
      { data: { awb_number: 'FAN2', courier: 'fan' } },
      { data: { tracking_number: 778899, courier: { code: 'dpd', name: 'DPD' } } },
      { awb_number: 'FAN4' },
      { data: { awb: { awb_number: 'FAN5' } } },
      { data: orderRecord(4, { awb: 'FAN6' }) },
    ];
    const read = [];
    for (const json of answers) {
      stub.handle(() => ({ status: 201, json }));
      const awb = await client.orders.createAwb(4);
      read.push([awb.number, awb.courier]);
    }
    expect(read).toEqual([
      ['FAN1', 'fan'],
      ['FAN2', 'fan'],
      ['778899', 'dpd'],
      ['FAN4', null],
      ['FAN5', null],
      ['FAN6', null],
    ]);
  });

  it('reads an invoice as series and number, or one invoice_number, wrapped or bare', async () => {
    const answers: unknown[] = [
      { data: { series: 'INV', number: 12 } },
      { data: { invoice_number: 'INV-0013', total: '27.50' } },
      { series: 'F', invoice_number: 14 },
      { data: { invoice: { invoice_number: 15 } } },
    ];
    const read = [];
    for (const json of answers) {
      stub.handle(() => ({ json }));
      const invoice = await client.orders.createInvoice(4);
      read.push([invoice.series, invoice.number, invoice.total ?? null]);
    }
    expect(read).toEqual([
      ['INV', 12, null],
      [null, 'INV-0013', 27.5],
      ['F', 14, null],
      [null, 15, null],
    ]);
  });

  it('names the field when an AWB answer carries no number under any known name', async () => {
    stub.handle(() => ({ status: 201, json: { data: { code: 'FAN1' } } }));
    await expect(client.orders.createAwb(4)).rejects.toMatchObject({
      code: 'api_schema',
      field: 'data.number',
    });
    // An order answered in place of the AWB, without one: its own number is not taken for it.
    stub.handle(() => ({ status: 201, json: { data: orderRecord(4, { awb: null }) } }));
    await expect(client.orders.createAwb(4)).rejects.toMatchObject({ code: 'api_schema' });
  });

  it('reads an empty 204 and a result envelope to DELETE as deleted', async () => {
    stub.handle(() => ({ status: 204 }));
    expect(await client.tags.delete(5)).toEqual({ deleted: true });
    stub.handle(() => ({ json: { data: { deleted: true, id: 5 } } }));
    expect(await client.tags.delete(5)).toEqual({ deleted: true, id: 5 });
    expect(stub.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['DELETE /tags/5', 'DELETE /tags/5']);
  });
});

describe('secrets', () => {
  it('logged every call at debug without the key', () => {
    expect(log.lines().filter((l) => l.msg === 'API call').length).toBeGreaterThan(15);
    expect(log.text()).not.toContain(KEY);
  });
});
