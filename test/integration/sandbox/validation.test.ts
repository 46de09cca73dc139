import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../src/sandbox/index.js';
import { http } from '../../support/sandboxHttp.js';

/**
 * Every validation rule of spec sections 2 and 8 (and the sandbox's own bounds), one request per
 * rule: the refused value gives 422 `validation_error` naming exactly that field, and the value at
 * the limit is accepted.
 */
let sb: Sandbox;
let api: ReturnType<typeof http>;
const ids = { order: 0, tag: 0, variable: 6, otherVariant: 0 };
beforeAll(async () => {
  sb = await startSandbox();
  api = http(sb);
  ids.order = (
    await api.post('/orders', { customer_id: 1, items: [{ product_id: 1, quantity: 1 }] })
  ).body.data.id;
  ids.tag = (await api.post('/tags', { name: 'Validation' })).body.data.id;
  ids.otherVariant = (await api.get('/products/12')).body.data.variants[0].id;
});
afterAll(() => sb.close());

const long = (n: number): string => 'x'.repeat(n);
const line = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  product_id: 1,
  quantity: 1,
  ...extra,
});
const order = (extra: Record<string, unknown>): Record<string, unknown> => ({
  customer_id: 1,
  items: [line()],
  ...extra,
});

type Case = [label: string, method: string, path: () => string, body: unknown, field: string];

const product = (extra: Record<string, unknown>): Record<string, unknown> => ({ name: 'Valid', ...extra });
const PRODUCT_CREATE: Case[] = [
  ['name missing', 'POST', () => '/products', { price: 1 }, 'name'],
  ['name empty', 'POST', () => '/products', { name: ' ' }, 'name'],
  ['name over 191', 'POST', () => '/products', { name: long(192) }, 'name'],
  ['name not a string', 'POST', () => '/products', { name: ['a'] }, 'name'],
  ['type not in enum', 'POST', () => '/products', product({ type: 'bundle' }), 'type'],
  ['status not in enum', 'POST', () => '/products', product({ status: 'deleted' }), 'status'],
  ['status null', 'POST', () => '/products', product({ status: null }), 'status'],
  ['sku empty', 'POST', () => '/products', product({ sku: '' }), 'sku'],
  ['sku taken', 'POST', () => '/products', product({ sku: 'DEMO-0001' }), 'sku'],
  ['sku taken by a variant', 'POST', () => '/products', product({ sku: 'DEMO-0006-S' }), 'sku'],
  ['slug empty', 'POST', () => '/products', product({ slug: '' }), 'slug'],
  ['ean not a string', 'POST', () => '/products', product({ ean: 5940000000001 }), 'ean'],
  ['mpn not a string', 'POST', () => '/products', product({ mpn: [] }), 'mpn'],
  ['brand_id not an integer', 'POST', () => '/products', product({ brand_id: 1.5 }), 'brand_id'],
  ['brand_id unknown', 'POST', () => '/products', product({ brand_id: 999999 }), 'brand_id'],
  ['category_id unknown', 'POST', () => '/products', product({ category_id: 999999 }), 'category_id'],
  ['category_id a string', 'POST', () => '/products', product({ category_id: '3' }), 'category_id'],
  ['price a string', 'POST', () => '/products', product({ price: '10' }), 'price'],
  ['price negative', 'POST', () => '/products', product({ price: -0.01 }), 'price'],
  ['price huge', 'POST', () => '/products', product({ price: 1e308 }), 'price'],
  ['sale_price negative', 'POST', () => '/products', product({ sale_price: -1 }), 'sale_price'],
  ['cost_price a string', 'POST', () => '/products', product({ cost_price: 'a' }), 'cost_price'],
  ['vat_rate below 0', 'POST', () => '/products', product({ vat_rate: -1 }), 'vat_rate'],
  ['vat_rate over 100', 'POST', () => '/products', product({ vat_rate: 101 }), 'vat_rate'],
  ['vat_rate not an integer', 'POST', () => '/products', product({ vat_rate: 19.5 }), 'vat_rate'],
  ['stock_quantity negative', 'POST', () => '/products', product({ stock_quantity: -1 }), 'stock_quantity'],
  ['stock_quantity fraction', 'POST', () => '/products', product({ stock_quantity: 1.5 }), 'stock_quantity'],
  ['stock_quantity huge', 'POST', () => '/products', product({ stock_quantity: 1e20 }), 'stock_quantity'],
  [
    'stock_quantity on a variable product',
    'POST',
    () => '/products',
    product({ type: 'variable', stock_quantity: 1 }),
    'stock_quantity',
  ],
  ['variants on a simple product', 'POST', () => '/products', product({ variants: [] }), 'variants'],
  ['track_stock a string', 'POST', () => '/products', product({ track_stock: 'yes' }), 'track_stock'],
  ['highlights a string', 'POST', () => '/products', product({ highlights: 'a' }), 'highlights'],
  ['highlights of numbers', 'POST', () => '/products', product({ highlights: ['a', 1] }), 'highlights.1'],
  [
    'short_description a number',
    'POST',
    () => '/products',
    product({ short_description: 5 }),
    'short_description',
  ],
  [
    'long_description an object',
    'POST',
    () => '/products',
    product({ long_description: {} }),
    'long_description',
  ],
  ['weight_grams negative', 'POST', () => '/products', product({ weight_grams: -1 }), 'weight_grams'],
  ['length_mm fraction', 'POST', () => '/products', product({ length_mm: 1.5 }), 'length_mm'],
  ['width_mm a string', 'POST', () => '/products', product({ width_mm: '1' }), 'width_mm'],
  ['height_mm negative', 'POST', () => '/products', product({ height_mm: -1 }), 'height_mm'],
  ['meta_title over 191', 'POST', () => '/products', product({ meta_title: long(192) }), 'meta_title'],
  [
    'meta_description a number',
    'POST',
    () => '/products',
    product({ meta_description: 5 }),
    'meta_description',
  ],
];

const PRODUCT_UPDATE: Case[] = [
  ['no field', 'PATCH', () => '/products/1', {}, 'body'],
  ['only unknown fields', 'PATCH', () => '/products/1', { colour: 'red' }, 'body'],
  ['type', 'PATCH', () => '/products/1', { type: 'simple' }, 'type'],
  ['variants', 'PATCH', () => '/products/1', { variants: [] }, 'variants'],
  ['name null', 'PATCH', () => '/products/1', { name: null }, 'name'],
  ['name over 191', 'PATCH', () => '/products/1', { name: long(192) }, 'name'],
  ['sku of another product', 'PATCH', () => '/products/1', { sku: 'DEMO-0002' }, 'sku'],
  ['vat_rate over 100', 'PATCH', () => '/products/1', { vat_rate: 101 }, 'vat_rate'],
  ['own stock of a variable product', 'PATCH', () => '/products/6', { stock_quantity: 1 }, 'stock_quantity'],
  ['no price field', 'PATCH', () => '/products/1/price', { name: 'x' }, 'body'],
  ['price negative', 'PATCH', () => '/products/1/price', { price: -1 }, 'price'],
  ['price a string', 'PATCH', () => '/products/1/price', { price: '1' }, 'price'],
  ['sale_price a string', 'PATCH', () => '/products/1/price', { sale_price: 'x' }, 'sale_price'],
  ['cost_price negative', 'PATCH', () => '/products/1/price', { cost_price: -1 }, 'cost_price'],
  ['price vat_rate below 0', 'PATCH', () => '/products/1/price', { vat_rate: -1 }, 'vat_rate'],
  ['price vat_rate over 100', 'PATCH', () => '/products/1/price', { vat_rate: 101 }, 'vat_rate'],
  [
    'price of another product’s variant',
    'PATCH',
    () => '/products/6/price',
    { variant_id: ids.otherVariant, price: 1 },
    'variant_id',
  ],
  ['stock neither quantity nor delta', 'PATCH', () => '/products/1/stock', {}, 'quantity'],
  ['stock both', 'PATCH', () => '/products/1/stock', { quantity: 1, delta: 1 }, 'delta'],
  ['stock quantity negative', 'PATCH', () => '/products/1/stock', { quantity: -1 }, 'quantity'],
  ['stock quantity fraction', 'PATCH', () => '/products/1/stock', { quantity: 1.5 }, 'quantity'],
  ['stock delta a string', 'PATCH', () => '/products/1/stock', { delta: '1' }, 'delta'],
  ['stock delta below 0', 'PATCH', () => '/products/1/stock', { delta: -1_000_000 }, 'delta'],
  ['stock variable without variant', 'PATCH', () => '/products/6/stock', { quantity: 1 }, 'variant_id'],
  [
    'stock of another product’s variant',
    'PATCH',
    () => '/products/6/stock',
    { variant_id: ids.otherVariant, quantity: 1 },
    'variant_id',
  ],
];

const ORDER_CREATE: Case[] = [
  ['no customer', 'POST', () => '/orders', { items: [line()] }, 'customer_id'],
  ['customer_id and customer', 'POST', () => '/orders', order({ customer: { name: 'A' } }), 'customer'],
  ['customer_id unknown', 'POST', () => '/orders', order({ customer_id: 999999 }), 'customer_id'],
  ['customer_id a string', 'POST', () => '/orders', order({ customer_id: '1' }), 'customer_id'],
  ['customer not an object', 'POST', () => '/orders', { customer: 'A', items: [line()] }, 'customer'],
  [
    'customer without name',
    'POST',
    () => '/orders',
    { customer: { email: 'a@b.c' }, items: [line()] },
    'customer.name',
  ],
  [
    'customer email a number',
    'POST',
    () => '/orders',
    { customer: { name: 'A', email: 5 }, items: [line()] },
    'customer.email',
  ],
  ['items missing', 'POST', () => '/orders', { customer_id: 1 }, 'items'],
  ['items empty', 'POST', () => '/orders', order({ items: [] }), 'items'],
  ['items an object', 'POST', () => '/orders', order({ items: {} }), 'items'],
  ['item not an object', 'POST', () => '/orders', order({ items: ['x'] }), 'items.0'],
  [
    'item without product',
    'POST',
    () => '/orders',
    order({ items: [{ quantity: 1 }] }),
    'items.0.product_id',
  ],
  [
    'item unknown product',
    'POST',
    () => '/orders',
    order({ items: [line({ product_id: 999999 })] }),
    'items.0.product_id',
  ],
  [
    'item unknown sku',
    'POST',
    () => '/orders',
    order({ items: [{ sku: 'NOPE', quantity: 1 }] }),
    'items.0.sku',
  ],
  [
    'item without quantity',
    'POST',
    () => '/orders',
    order({ items: [{ product_id: 1 }] }),
    'items.0.quantity',
  ],
  ['item quantity 0', 'POST', () => '/orders', order({ items: [line({ quantity: 0 })] }), 'items.0.quantity'],
  [
    'item quantity fraction',
    'POST',
    () => '/orders',
    order({ items: [line({ quantity: 1.5 })] }),
    'items.0.quantity',
  ],
  [
    'item quantity huge',
    'POST',
    () => '/orders',
    order({ items: [line({ quantity: 2 ** 53 })] }),
    'items.0.quantity',
  ],
  [
    'item line total too big',
    'POST',
    () => '/orders',
    order({ items: [line({ quantity: 1_000_000, unit_price: 1000 })] }),
    'items.0.quantity',
  ],
  [
    'item unit_price negative',
    'POST',
    () => '/orders',
    order({ items: [line({ unit_price: -1 })] }),
    'items.0.unit_price',
  ],
  [
    'item unit_price huge',
    'POST',
    () => '/orders',
    order({ items: [line({ unit_price: 1e308 })] }),
    'items.0.unit_price',
  ],
  [
    'item tax_rate below 0',
    'POST',
    () => '/orders',
    order({ items: [line({ tax_rate: -1 })] }),
    'items.0.tax_rate',
  ],
  [
    'item tax_rate over 100',
    'POST',
    () => '/orders',
    order({ items: [line({ tax_rate: 100.5 })] }),
    'items.0.tax_rate',
  ],
  [
    'item variable without variant',
    'POST',
    () => '/orders',
    order({ items: [line({ product_id: 6 })] }),
    'items.0.variant_id',
  ],
  [
    'item variant of another product',
    'POST',
    () => '/orders',
    order({ items: [line({ product_id: 6, variant_id: ids.otherVariant })] }),
    'items.0.variant_id',
  ],
  ['status not in enum', 'POST', () => '/orders', order({ status: 'lost' }), 'status'],
  [
    'payment_status not in enum',
    'POST',
    () => '/orders',
    order({ payment_status: 'maybe' }),
    'payment_status',
  ],
  ['currency unknown', 'POST', () => '/orders', order({ currency: 'XXX' }), 'currency'],
  ['currency a number', 'POST', () => '/orders', order({ currency: 978 }), 'currency'],
  ['shipping_total negative', 'POST', () => '/orders', order({ shipping_total: -1 }), 'shipping_total'],
  ['discount_total negative', 'POST', () => '/orders', order({ discount_total: -1 }), 'discount_total'],
  [
    'discount over the order value',
    'POST',
    () => '/orders',
    order({ discount_total: 999_999 }),
    'discount_total',
  ],
  ['source_order_id a number', 'POST', () => '/orders', order({ source_order_id: 5 }), 'source_order_id'],
  ['label over 60', 'POST', () => '/orders', order({ labels: [long(61)] }), 'labels.0'],
];

const ORDER_UPDATE: Case[] = [
  ['no field', 'PATCH', () => `/orders/${ids.order}`, {}, 'body'],
  ['status not in enum', 'PATCH', () => `/orders/${ids.order}`, { status: 'lost' }, 'status'],
  ['refused move', 'PATCH', () => `/orders/${ids.order}`, { status: 'returned' }, 'status'],
  ['note over 500', 'PATCH', () => `/orders/${ids.order}`, { status: 'new', note: long(501) }, 'note'],
  ['note without status', 'PATCH', () => `/orders/${ids.order}`, { note: 'x' }, 'note'],
  [
    'payment_status not in enum',
    'PATCH',
    () => `/orders/${ids.order}`,
    { payment_status: 'x' },
    'payment_status',
  ],
  ['payment_method a number', 'PATCH', () => `/orders/${ids.order}`, { payment_method: 5 }, 'payment_method'],
  [
    'shipping_method a number',
    'PATCH',
    () => `/orders/${ids.order}`,
    { shipping_method: 5 },
    'shipping_method',
  ],
  ['notes a number', 'PATCH', () => `/orders/${ids.order}`, { notes: 5 }, 'notes'],
  ['labels a string', 'PATCH', () => `/orders/${ids.order}`, { labels: 'vip' }, 'labels'],
  ['label over 60', 'PATCH', () => `/orders/${ids.order}`, { labels: ['ok', long(61)] }, 'labels.1'],
  ['awb courier not in enum', 'POST', () => `/orders/${ids.order}/awb`, { courier: 'pigeon' }, 'courier'],
  ['awb parcels 0', 'POST', () => `/orders/${ids.order}/awb`, { parcels: 0 }, 'parcels'],
  ['awb parcels fraction', 'POST', () => `/orders/${ids.order}/awb`, { parcels: 1.5 }, 'parcels'],
  ['awb weight negative', 'POST', () => `/orders/${ids.order}/awb`, { weight: -1 }, 'weight'],
  ['awb weight a string', 'POST', () => `/orders/${ids.order}/awb`, { weight: '1' }, 'weight'],
  ['awb cod_amount negative', 'POST', () => `/orders/${ids.order}/awb`, { cod_amount: -1 }, 'cod_amount'],
  ['awb body an array', 'POST', () => `/orders/${ids.order}/awb`, [1], 'body'],
];

const CUSTOMER_AND_TAG: Case[] = [
  ['customer no field', 'PATCH', () => '/customers/7', {}, 'body'],
  ['customer name empty', 'PATCH', () => '/customers/7', { name: '' }, 'name'],
  ['customer name null', 'PATCH', () => '/customers/7', { name: null }, 'name'],
  ['customer notes over 2000', 'PATCH', () => '/customers/7', { notes: long(2001) }, 'notes'],
  ['customer email a number', 'PATCH', () => '/customers/7', { email: 5 }, 'email'],
  ['customer cui a number', 'PATCH', () => '/customers/7', { cui: 5 }, 'cui'],
  ['tag name missing', 'POST', () => '/tags', { color: 'red' }, 'name'],
  ['tag name over 60', 'POST', () => '/tags', { name: long(61) }, 'name'],
  ['tag name taken in another case', 'POST', () => '/tags', { name: 'VALIDATION' }, 'name'],
  ['tag color over 32', 'POST', () => '/tags', { name: 'Colour', color: long(33) }, 'color'],
  ['tag color a number', 'POST', () => '/tags', { name: 'Colour', color: 255 }, 'color'],
  ['tag update no field', 'PUT', () => `/tags/${ids.tag}`, {}, 'body'],
  ['tag rename over 60', 'PUT', () => `/tags/${ids.tag}`, { name: long(61) }, 'name'],
  ['tag recolor over 32', 'PUT', () => `/tags/${ids.tag}`, { color: long(33) }, 'color'],
  ['attach without product_ids', 'POST', () => `/tags/${ids.tag}/attach`, {}, 'product_ids'],
  ['attach empty product_ids', 'POST', () => `/tags/${ids.tag}/attach`, { product_ids: [] }, 'product_ids'],
  [
    'attach a non-integer id',
    'POST',
    () => `/tags/${ids.tag}/attach`,
    { product_ids: [1, 1.5] },
    'product_ids.1',
  ],
  ['attach an unknown id', 'POST', () => `/tags/${ids.tag}/attach`, { product_ids: [999999] }, 'product_ids'],
  ['detach an unknown id', 'POST', () => `/tags/${ids.tag}/detach`, { product_ids: [999999] }, 'product_ids'],
  ['bulk stock items missing', 'PATCH', () => '/products/stock/bulk', {}, 'items'],
  ['bulk stock item null', 'PATCH', () => '/products/stock/bulk', { items: [null] }, 'items.0'],
  [
    'bulk stock above the bound',
    'PATCH',
    () => '/products/stock/bulk',
    { items: [{ id: 1, delta: 2 ** 40 }] },
    'items.0.delta',
  ],
  [
    'bulk prices id and sku',
    'PATCH',
    () => '/products/prices/bulk',
    { items: [{ id: 1, sku: 'DEMO-0001', price: 1 }] },
    'items.0.sku',
  ],
  [
    'bulk prices huge',
    'PATCH',
    () => '/products/prices/bulk',
    { items: [{ id: 1, price: 1e308 }] },
    'items.0.price',
  ],
  ['body null', 'POST', () => '/products', 'null', 'body'],
  ['body a string', 'POST', () => '/tags', '"tag"', 'body'],
  ['body an array', 'PATCH', () => '/customers/7', '[]', 'body'],
];

describe.each([
  ['product create', PRODUCT_CREATE],
  ['product update, price and stock', PRODUCT_UPDATE],
  ['order create', ORDER_CREATE],
  ['order update and AWB', ORDER_UPDATE],
  ['customer, tag, bulk and body', CUSTOMER_AND_TAG],
])('422 for every rule: %s', (_name, cases) => {
  it.each(cases)('%s', async (_label, method, path, body, field) => {
    const r = await api.call(method, path(), body);
    expect(r.status).toBe(422);
    expect(r.body.error).toBe('validation_error');
    expect(typeof r.body.message).toBe('string');
    expect(Object.keys(r.body.errors)).toEqual([field]);
    expect(r.body.errors[field].every((reason: unknown) => typeof reason === 'string')).toBe(true);
  });
});

describe('values at the limits are accepted', () => {
  it('product: name 191 (counted in characters), vat_rate 0 and 100, amounts up to 999999999.99', async () => {
    const r = await api.post('/products', {
      name: '😀'.repeat(191),
      vat_rate: 100,
      price: 999_999_999.99,
      stock_quantity: 1_000_000_000,
      meta_title: long(191),
    });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({
      vat_rate: 100,
      price: 999_999_999.99,
      stock_quantity: 1_000_000_000,
    });
    expect((await api.patch(`/products/${r.body.data.id}/price`, { vat_rate: 0 })).body.data.vat_rate).toBe(
      0,
    );
    const over = await api.patch(`/products/${r.body.data.id}/stock`, { delta: 1 });
    expect(over.status).toBe(422);
    expect(over.body.errors.delta[0]).toMatch(/exceed/);
  });

  it('order: tax_rate 0 and 100, quantity 1, note 500, labels of 60', async () => {
    const o = await api.post('/orders', {
      customer_id: 1,
      items: [line({ tax_rate: 0 }), line({ tax_rate: 100, unit_price: 200 })],
      labels: [long(60)],
    });
    expect(o.status).toBe(201);
    expect(o.body.data.tax_total).toBe(100);
    const r = await api.patch(`/orders/${o.body.data.id}`, { status: 'confirmed', note: long(500) });
    expect(r.status).toBe(200);
    expect(r.body.data.history.at(-1).note).toHaveLength(500);
  });

  it('customer notes 2000, tag name 60 and color 32, AWB parcels 1', async () => {
    expect((await api.patch('/customers/7', { notes: long(2000) })).status).toBe(200);
    const tag = await api.post('/tags', { name: long(60), color: long(32) });
    expect(tag.status).toBe(201);
    const awb = await api.post(`/orders/${ids.order}/awb`, { parcels: 1, courier: 'other', weight: 0 });
    expect(awb.status).toBe(201);
    expect(awb.body.data).toMatchObject({ parcels: 1, courier: 'other', weight: 0 });
  });

  it('keeps totals finite: no record or stat ever shows null for an amount', async () => {
    const stats = (await api.get('/stats')).body.data;
    expect(typeof stats.orders_total_value).toBe('number');
    const orders = (await api.get('/orders?per_page=10')).body.data;
    for (const o of orders)
      for (const k of ['subtotal', 'tax_total', 'total']) expect(typeof o[k], `${o.id}.${k}`).toBe('number');
  });
});
