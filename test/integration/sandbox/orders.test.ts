import { describe, expect, it } from 'vitest';
import { http } from '../../support/sandboxHttp.js';
import { useSandbox } from '../../support/useSandbox.js';

const suite = useSandbox();
const api = suite.api;

const ORDER_KEYS = [
  'id',
  'number',
  'status',
  'payment_status',
  'currency',
  'source_order_id',
  'customer_id',
  'customer',
  'items',
  'subtotal',
  'shipping_total',
  'discount_total',
  'tax_total',
  'total',
  'payment_method',
  'shipping_method',
  'notes',
  'labels',
  'history',
  'awb',
  'invoice',
  'created_at',
  'updated_at',
];

async function freshProduct(
  stock: number,
  price = 100,
  extra: Record<string, unknown> = {},
): Promise<{ id: number; sku: string }> {
  const r = await api.post('/products', {
    name: 'Order stock probe',
    status: 'active',
    price,
    vat_rate: 19,
    stock_quantity: stock,
    ...extra,
  });
  return r.body.data;
}

describe('POST /orders', () => {
  it('creates with 201, default prices, computed totals, defaults and a history entry', async () => {
    const p = await freshProduct(10, 119);
    const r = await api.post('/orders', {
      customer_id: 1,
      items: [
        { product_id: p.id, quantity: 2 },
        { sku: p.sku, quantity: 1, unit_price: 50, tax_rate: 9 },
      ],
      shipping_total: 20,
      discount_total: 5,
      source_order_id: 'ERP-1',
    });
    expect(r.status).toBe(201);
    const o = r.body.data;
    expect(Object.keys(o).sort()).toEqual([...ORDER_KEYS].sort());
    expect(o).toMatchObject({
      status: 'new',
      payment_status: 'unpaid',
      currency: 'RON',
      source_order_id: 'ERP-1',
      customer_id: 1,
      awb: null,
      invoice: null,
    });
    expect(o.items[0]).toMatchObject({
      product_id: p.id,
      variant_id: null,
      sku: p.sku,
      quantity: 2,
      unit_price: 119,
      tax_rate: 19,
      total: 238,
    });
    expect(o.items[1]).toMatchObject({ unit_price: 50, tax_rate: 9, total: 50 });
    expect(o.subtotal).toBe(288);
    expect(o.total).toBe(303);
    expect(o.tax_total).toBeCloseTo(38 + 4.13, 2);
    expect(o.history).toEqual([{ from: null, to: 'new', note: null, at: o.created_at }]);
    expect(o.number).toMatch(/^DR-\d+$/);
    expect((await api.get(`/products/${p.id}`)).body.data.stock_quantity).toBe(7);
  });

  it('stores source_order_id as given without de-duplication', async () => {
    const p = await freshProduct(5);
    const a = await api.post('/orders', {
      customer_id: 1,
      source_order_id: 'DUP-1',
      items: [{ product_id: p.id, quantity: 1 }],
    });
    const b = await api.post('/orders', {
      customer_id: 1,
      source_order_id: 'DUP-1',
      items: [{ product_id: p.id, quantity: 1 }],
    });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(a.body.data.id).not.toBe(b.body.data.id);
  });

  it('creates a customer by email, then reuses it case-insensitively', async () => {
    const p = await freshProduct(5);
    const a = await api.post('/orders', {
      customer: { name: 'Nou Client', email: 'nou.client@example.ro', phone: '0700' },
      items: [{ product_id: p.id, quantity: 1 }],
    });
    const b = await api.post('/orders', {
      customer: { name: 'Other Name', email: 'NOU.CLIENT@example.ro' },
      items: [{ product_id: p.id, quantity: 1 }],
    });
    expect(a.body.data.customer).toMatchObject({
      name: 'Nou Client',
      email: 'nou.client@example.ro',
      phone: '0700',
    });
    expect(b.body.data.customer_id).toBe(a.body.data.customer_id);
  });

  it('prices a variant line from the variant and takes its stock', async () => {
    const product = (await api.get('/products/42')).body.data;
    const v = product.variants[0];
    await api.patch('/products/42/stock', { variant_id: v.id, quantity: 10 });
    const r = await api.post('/orders', {
      customer_id: 2,
      items: [{ product_id: 42, variant_id: v.id, quantity: 3 }],
    });
    expect(r.body.data.items[0]).toMatchObject({ variant_id: v.id, sku: v.sku, unit_price: v.price });
    const after = (await api.get('/products/42')).body.data;
    expect(after.variants[0].stock_quantity).toBe(7);
  });

  it('refuses unknown customer, product, sku and variant, a variable product without variant, and bad lines with 422', async () => {
    const r = await api.post('/orders', {
      customer_id: 999999,
      items: [
        { product_id: 999999, quantity: 1 },
        { sku: 'NOPE', quantity: 1 },
        { product_id: 42, quantity: 1 },
        { product_id: 1, variant_id: 999999, quantity: 1 },
        { product_id: 1, quantity: 0 },
        { quantity: 1 },
      ],
    });
    expect(r.status).toBe(422);
    expect(Object.keys(r.body.errors).sort()).toEqual(
      [
        'customer_id',
        'items.0.product_id',
        'items.1.sku',
        'items.2.variant_id',
        'items.3.variant_id',
        'items.4.quantity',
        'items.5.product_id',
      ].sort(),
    );
    expect((await api.post('/orders', { customer_id: 1 })).body.errors.items).toBeDefined();
    expect(
      (await api.post('/orders', { items: [{ product_id: 1, quantity: 1 }] })).body.errors.customer_id,
    ).toBeDefined();
    const enums = await api.post('/orders', {
      customer_id: 1,
      status: 'lost',
      payment_status: 'maybe',
      currency: 'XXX',
      items: [{ product_id: 1, quantity: 1, tax_rate: 101 }],
    });
    expect(Object.keys(enums.body.errors).sort()).toEqual([
      'currency',
      'items.0.tax_rate',
      'payment_status',
      'status',
    ]);
  });

  it('never loses a stock decrement under concurrent creates', async () => {
    const p = await freshProduct(100);
    const results = await Promise.all(
      Array.from({ length: 40 }, () =>
        api.post('/orders', { customer_id: 3, items: [{ product_id: p.id, quantity: 2 }] }),
      ),
    );
    expect(results.every((r) => r.status === 201)).toBe(true);
    expect(new Set(results.map((r) => r.body.data.number)).size).toBe(40);
    expect((await api.get(`/products/${p.id}`)).body.data.stock_quantity).toBe(20);
  });

  it('floors tracked stock at 0 and leaves untracked stock alone', async () => {
    const tracked = await freshProduct(1);
    const untracked = await freshProduct(4, 10, { track_stock: false });
    await api.post('/orders', {
      customer_id: 3,
      items: [
        { product_id: tracked.id, quantity: 3 },
        { product_id: untracked.id, quantity: 2 },
      ],
    });
    expect((await api.get(`/products/${tracked.id}`)).body.data.stock_quantity).toBe(0);
    expect((await api.get(`/products/${untracked.id}`)).body.data.stock_quantity).toBe(4);
  });
});

describe('GET /orders', () => {
  it('lists newest first with meta, filters by status and searches number, customer, email and source id', async () => {
    const r = await api.get('/orders?per_page=5');
    const ids = r.body.data.map((o: { id: number }) => o.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(r.body.meta.total).toBeGreaterThanOrEqual(120);
    const shipped = await api.get('/orders?status=shipped&per_page=100');
    expect(shipped.body.data.every((o: { status: string }) => o.status === 'shipped')).toBe(true);
    const o = shipped.body.data[0];
    for (const term of [o.number.toLowerCase(), o.customer.name.toUpperCase(), o.customer.email])
      expect(
        (await api.get(`/orders?per_page=100&search=${encodeURIComponent(term)}`)).body.data.map(
          (x: { id: number }) => x.id,
        ),
      ).toContain(o.id);
    const bySource = await api.get('/orders?search=dup-1');
    expect(bySource.body.meta.total).toBe(2);
    expect((await api.get('/orders?status=lost')).status).toBe(422);
  });

  it('covers every status and payment status in the demo seed, some with AWB and invoice', async () => {
    const all = [];
    for (let page = 1; page <= 3; page++)
      all.push(...(await api.get(`/orders?per_page=100&page=${page}`)).body.data);
    const statuses = new Set(all.map((o) => o.status));
    const payments = new Set(all.map((o) => o.payment_status));
    expect([...statuses].sort()).toEqual([
      'cancelled',
      'confirmed',
      'new',
      'processing',
      'returned',
      'shipped',
    ]);
    expect([...payments].sort()).toEqual(['paid', 'partial', 'refunded', 'unpaid']);
    expect(all.some((o) => o.awb && o.invoice)).toBe(true);
  });
});

describe('PATCH /orders/{id}', () => {
  it.each([
    ['new', 'confirmed'],
    ['new', 'processing'],
    ['new', 'cancelled'],
    ['confirmed', 'processing'],
    ['confirmed', 'cancelled'],
    ['processing', 'shipped'],
    ['processing', 'cancelled'],
    ['shipped', 'returned'],
  ])('allows %s -> %s and records history', async (from, to) => {
    const p = await freshProduct(5);
    const o = (
      await api.post('/orders', { customer_id: 4, status: from, items: [{ product_id: p.id, quantity: 1 }] })
    ).body.data;
    const r = await api.patch(`/orders/${o.id}`, { status: to, note: 'moved' });
    expect(r.status).toBe(200);
    expect(r.body.data.status).toBe(to);
    expect(r.body.data.history.at(-1)).toMatchObject({ from, to, note: 'moved' });
  });

  const STATUSES = ['new', 'confirmed', 'processing', 'shipped', 'cancelled', 'returned'];
  const ALLOWED: Record<string, string[]> = {
    new: ['confirmed', 'processing', 'cancelled'],
    confirmed: ['processing', 'cancelled'],
    processing: ['shipped', 'cancelled'],
    shipped: ['returned'],
    cancelled: [],
    returned: [],
  };
  const REFUSED = STATUSES.flatMap((from) =>
    STATUSES.filter((to) => to !== from && !ALLOWED[from]!.includes(to)).map((to) => [from, to]),
  );

  it('refuses exactly the 22 moves outside the table', () => {
    expect(REFUSED).toHaveLength(22);
  });

  it.each(REFUSED)(
    'refuses %s -> %s with 422, leaving status, history and stock as they were',
    async (from, to) => {
      const p = await freshProduct(5);
      const o = (
        await api.post('/orders', {
          customer_id: 4,
          status: from,
          items: [{ product_id: p.id, quantity: 1 }],
        })
      ).body.data;
      const stock = (await api.get(`/products/${p.id}`)).body.data.stock_quantity;
      const r = await api.patch(`/orders/${o.id}`, { status: to, note: 'refused' });
      expect(r.status).toBe(422);
      expect(Object.keys(r.body.errors)).toEqual(['status']);
      const after = (await api.get(`/orders/${o.id}`)).body.data;
      expect(after.status).toBe(from);
      expect(after.history).toEqual(o.history);
      expect((await api.get(`/products/${p.id}`)).body.data.stock_quantity).toBe(stock);
    },
  );

  it('treats the same status as a no-op without a history entry', async () => {
    const o = (await api.get('/orders/2')).body.data;
    const r = await api.patch('/orders/2', { status: o.status });
    expect(r.status).toBe(200);
    expect(r.body.data.history).toHaveLength(o.history.length);
  });

  it('restocks what the order took when it is cancelled', async () => {
    const p = await freshProduct(10);
    const o = (await api.post('/orders', { customer_id: 4, items: [{ product_id: p.id, quantity: 4 }] })).body
      .data;
    expect((await api.get(`/products/${p.id}`)).body.data.stock_quantity).toBe(6);
    await api.patch(`/orders/${o.id}`, { status: 'cancelled' });
    expect((await api.get(`/products/${p.id}`)).body.data.stock_quantity).toBe(10);
  });

  it('restocks variant lines when cancelled from processing, keeping the product stock the sum', async () => {
    const product = (await api.get('/products/48')).body.data;
    const [a, b] = product.variants;
    await api.patch('/products/stock/bulk', {
      items: [
        { id: 48, variant_id: a.id, quantity: 5 },
        { id: 48, variant_id: b.id, quantity: 1 },
      ],
    });
    const o = (
      await api.post('/orders', {
        customer_id: 4,
        status: 'processing',
        items: [
          { product_id: 48, variant_id: a.id, quantity: 2 },
          { sku: b.sku, quantity: 3 },
        ],
      })
    ).body.data;
    const taken = (await api.get('/products/48')).body.data;
    expect(taken.variants.slice(0, 2).map((v: { stock_quantity: number }) => v.stock_quantity)).toEqual([
      3, 0,
    ]);
    await api.patch(`/orders/${o.id}`, { status: 'cancelled' });
    const back = (await api.get('/products/48')).body.data;
    expect(back.variants.slice(0, 2).map((v: { stock_quantity: number }) => v.stock_quantity)).toEqual([
      5, 1,
    ]);
    expect(back.stock_quantity).toBe(
      back.variants.reduce((s: number, v: { stock_quantity: number }) => s + v.stock_quantity, 0),
    );
  });

  it('does not restock on return or a second cancel, and an order created cancelled takes nothing', async () => {
    const p = await freshProduct(10);
    const shipped = (
      await api.post('/orders', {
        customer_id: 4,
        status: 'shipped',
        items: [{ product_id: p.id, quantity: 2 }],
      })
    ).body.data;
    await api.patch(`/orders/${shipped.id}`, { status: 'returned' });
    expect((await api.get(`/products/${p.id}`)).body.data.stock_quantity).toBe(8);
    const cancelled = (
      await api.post('/orders', {
        customer_id: 4,
        status: 'cancelled',
        items: [{ product_id: p.id, quantity: 3 }],
      })
    ).body.data;
    expect((await api.get(`/products/${p.id}`)).body.data.stock_quantity).toBe(8);
    expect((await api.patch(`/orders/${cancelled.id}`, { status: 'cancelled' })).status).toBe(200);
    expect((await api.get(`/products/${p.id}`)).body.data.stock_quantity).toBe(8);
  });

  it('never oversells nor invents stock under concurrent creates on a low-stock product', async () => {
    const p = await freshProduct(5);
    const orders = await Promise.all(
      Array.from({ length: 30 }, () =>
        api.post('/orders', { customer_id: 3, items: [{ product_id: p.id, quantity: 1 }] }),
      ),
    );
    expect(orders.every((r) => r.status === 201)).toBe(true);
    expect((await api.get(`/products/${p.id}`)).body.data.stock_quantity).toBe(0);
    await Promise.all(orders.map((r) => api.patch(`/orders/${r.body.data.id}`, { status: 'cancelled' })));
    expect((await api.get(`/products/${p.id}`)).body.data.stock_quantity).toBe(5);
  });

  it('loses no decrement when orders and stock deltas interleave', async () => {
    const p = await freshProduct(1000);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        i % 2 === 0
          ? api.post('/orders', { customer_id: 3, items: [{ product_id: p.id, quantity: 3 }] })
          : api.patch('/products/stock/bulk', { items: [{ id: p.id, delta: 1 }] }),
      ),
    );
    expect((await api.get(`/products/${p.id}`)).body.data.stock_quantity).toBe(1000 - 10 * 3 + 10);
  });

  it('updates payment and shipping fields, notes and labels', async () => {
    const r = await api.patch('/orders/3', {
      payment_status: 'paid',
      payment_method: 'card',
      shipping_method: 'easybox',
      notes: 'n',
      labels: ['vip'],
    });
    expect(r.body.data).toMatchObject({
      payment_status: 'paid',
      payment_method: 'card',
      shipping_method: 'easybox',
      notes: 'n',
      labels: ['vip'],
    });
  });

  it('refuses no updatable field, a long note, a long label and a bad payment status', async () => {
    const empty = await api.patch('/orders/3', {});
    expect(empty.status).toBe(422);
    expect(empty.body.message).toMatch(/at least one/i);
    const bad = await api.patch('/orders/6', {
      status: 'confirmed',
      note: 'x'.repeat(501),
      labels: ['y'.repeat(61)],
      payment_status: 'x',
    });
    expect(Object.keys(bad.body.errors).sort()).toEqual(['labels.0', 'note', 'payment_status']);
    expect((await api.patch('/orders/999999', { notes: 'x' })).status).toBe(404);
  });
});

describe('POST /orders/{id}/awb', () => {
  it('issues once with 201, then returns the same AWB with 200', async () => {
    const p = await freshProduct(5, 100);
    const o = (await api.post('/orders', { customer_id: 5, items: [{ product_id: p.id, quantity: 1 }] })).body
      .data;
    const first = await api.post(`/orders/${o.id}/awb`);
    expect(first.status).toBe(201);
    expect(first.body.data).toMatchObject({ courier: 'fan', parcels: 1, cod_amount: 100 });
    expect(first.body.data.number).toMatch(/^FAN\d+$/);
    expect(Object.keys(first.body.data).sort()).toEqual([
      'cod_amount',
      'courier',
      'created_at',
      'number',
      'parcels',
      'weight',
    ]);
    const again = await api.post(`/orders/${o.id}/awb`, { courier: 'sameday' });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(first.body.data);
    expect((await api.get(`/orders/${o.id}`)).body.data.awb).toEqual(first.body.data);
  });

  it('issues a local TEST AWB for a courier that is not connected, with cod 0 when paid', async () => {
    const p = await freshProduct(5);
    const o = (
      await api.post('/orders', {
        customer_id: 5,
        payment_status: 'paid',
        items: [{ product_id: p.id, quantity: 1 }],
      })
    ).body.data;
    const r = await api.post(`/orders/${o.id}/awb`, { courier: 'dpd', weight: 2.5, parcels: 2 });
    expect(r.body.data).toMatchObject({ courier: 'dpd', weight: 2.5, parcels: 2, cod_amount: 0 });
    expect(r.body.data.number).toMatch(/^TEST/);
  });

  it('refuses a cancelled order, parcels below 1 and an unknown courier', async () => {
    const p = await freshProduct(5);
    const o = (await api.post('/orders', { customer_id: 5, items: [{ product_id: p.id, quantity: 1 }] })).body
      .data;
    const bad = await api.post(`/orders/${o.id}/awb`, { parcels: 0, courier: 'pigeon' });
    expect(Object.keys(bad.body.errors).sort()).toEqual(['courier', 'parcels']);
    await api.patch(`/orders/${o.id}`, { status: 'cancelled' });
    const cancelled = await api.post(`/orders/${o.id}/awb`);
    expect(cancelled.status).toBe(422);
    expect((await api.post('/orders/999999/awb')).status).toBe(404);
  });
});

describe('parallel idempotent POSTs', () => {
  it('issue one AWB and one invoice however many arrive at once, and one tag of a name', async () => {
    const p = await freshProduct(5);
    const o = (await api.post('/orders', { customer_id: 5, items: [{ product_id: p.id, quantity: 1 }] })).body
      .data;
    for (const path of [`/orders/${o.id}/awb`, `/orders/${o.id}/invoice`]) {
      const rs = await Promise.all(Array.from({ length: 10 }, () => api.post(path)));
      expect(rs.map((r) => r.status).sort((a, b) => a - b)).toEqual([...Array(9).fill(200), 201]);
      expect(new Set(rs.map((r) => JSON.stringify(r.body.data))).size).toBe(1);
    }
    const name = `Parallel ${Date.now()}`;
    const tags = await Promise.all(
      Array.from({ length: 10 }, (_, i) => api.post('/tags', { name: i % 2 ? name : name.toUpperCase() })),
    );
    expect(tags.map((r) => r.status).sort((a, b) => a - b)).toEqual([201, ...Array(9).fill(422)]);
  });
});

describe('POST /orders/{id}/invoice', () => {
  it('issues sequential numbers in the company series, idempotently', async () => {
    const p = await freshProduct(5);
    const a = (await api.post('/orders', { customer_id: 6, items: [{ product_id: p.id, quantity: 1 }] })).body
      .data;
    const b = (await api.post('/orders', { customer_id: 6, items: [{ product_id: p.id, quantity: 1 }] })).body
      .data;
    const first = await api.post(`/orders/${a.id}/invoice`);
    const second = await api.post(`/orders/${b.id}/invoice`);
    expect(first.status).toBe(201);
    expect(first.body.data).toMatchObject({ series: 'DRF', total: a.total });
    expect(second.body.data.number).toBe(first.body.data.number + 1);
    const again = await api.post(`/orders/${a.id}/invoice`, {});
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(first.body.data);
    expect((await api.get(`/orders/${a.id}`)).body.data.invoice).toEqual(first.body.data);
  });

  it('numbers invoices per company: each company has its own series and counter', async () => {
    const secondary = http(suite.sandbox, 'secondary');
    const issue = async (client: ReturnType<typeof http>): Promise<{ series: string; number: number }> => {
      const product = (await client.get('/products?status=active&per_page=1')).body.data.find(
        (x: { type: string }) => x.type === 'simple',
      );
      const customer = (await client.get('/customers?per_page=1')).body.data[0];
      const o = (
        await client.post('/orders', {
          customer_id: customer.id,
          items: [{ product_id: product.id, quantity: 1 }],
        })
      ).body.data;
      return (await client.post(`/orders/${o.id}/invoice`)).body.data;
    };
    const a1 = await issue(api);
    const b1 = await issue(secondary);
    const a2 = await issue(api);
    const b2 = await issue(secondary);
    expect([a1.series, b1.series]).toEqual(['DRF', 'SSF']);
    expect(a2.number).toBe(a1.number + 1);
    expect(b2.number).toBe(b1.number + 1);
  });

  it('refuses a cancelled order', async () => {
    const cancelled = (await api.get('/orders?status=cancelled&per_page=100')).body.data.find(
      (o: { invoice: unknown }) => !o.invoice,
    );
    expect((await api.post(`/orders/${cancelled.id}/invoice`)).status).toBe(422);
  });
});
