import { describe, expect, it } from 'vitest';
import { http } from '../../support/sandboxHttp.js';
import { useSandbox } from '../../support/useSandbox.js';

const suite = useSandbox();
const api = suite.api;

describe('account and stats', () => {
  it('returns the company profile', async () => {
    const r = await api.get('/account');
    expect(r.body.data).toMatchObject({
      name: 'Demo Retail SRL',
      cui: 'RO12345678',
      plan: 'business',
      subscription_status: 'active',
      currency: 'RON',
    });
    expect(r.body.data.address.city).toBe('București');
  });

  it('counts products, orders by status, customers and order value', async () => {
    const s = (await api.get('/stats')).body.data;
    expect(s.products_count).toBe(240);
    expect(s.customers_count).toBe(60);
    expect(s.orders_count).toBe(120);
    expect(Object.values(s.orders_by_status).reduce((a: number, b) => a + (b as number), 0)).toBe(120);
    expect(s.orders_total_value).toBeGreaterThan(0);
  });
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON under test
type Json = Record<string, any>;

describe('demo seed', () => {
  const all = async (client: ReturnType<typeof http>, path: string): Promise<Json[]> => {
    const first = (await client.get(`${path}?per_page=100`)).body;
    const rows = [...first.data];
    for (let page = 2; page <= first.meta.last_page; page++)
      rows.push(...(await client.get(`${path}?per_page=100&page=${page}`)).body.data);
    return rows;
  };

  it('gives primary a catalog in every status and type, with brands, a 3-level category tree, tags and images', async () => {
    const products = await all(api, '/products');
    expect(products.length).toBeGreaterThanOrEqual(200);
    expect(new Set(products.map((p) => p.status))).toEqual(new Set(['active', 'draft', 'archived']));
    const variable = products.filter((p) => p.type === 'variable');
    expect(variable.length).toBeGreaterThan(10);
    expect(variable.every((p) => p.variants.length >= 2)).toBe(true);
    expect(new Set(products.map((p) => p.brand_id).filter(Boolean)).size).toBeGreaterThanOrEqual(5);
    expect(products.some((p) => p.images.length > 0) && products.some((p) => p.tags.length > 0)).toBe(true);
    expect(products.some((p) => p.brand === null) && products.some((p) => !p.track_stock)).toBe(true);
    const depth = (c: { children: unknown[] }): number =>
      1 + Math.max(0, ...(c.children as { children: unknown[] }[]).map(depth));
    expect(Math.max(...(await all(api, '/categories')).map((c) => depth(c as { children: unknown[] })))).toBe(
      3,
    );
    expect((await all(api, '/customers')).length).toBeGreaterThanOrEqual(50);
    expect((await all(api, '/orders')).length).toBeGreaterThanOrEqual(100);
  });

  it.each(['primary', 'secondary'] as const)('is internally consistent for %s', async (key) => {
    const client = http(suite.sandbox, key);
    const r2 = (x: number): number => Math.round((x + Number.EPSILON) * 100) / 100;
    const sum = (rows: Json[], f: (r: Json) => number): number => rows.reduce((s, r) => s + f(r), 0);
    const products = await all(client, '/products');
    for (const p of products.filter((x) => x.type === 'variable'))
      expect(p.stock_quantity, p.sku).toBe(sum(p.variants, (v) => v.stock_quantity));
    const orders = await all(client, '/orders');
    for (const o of orders) {
      for (const i of o.items) expect(i.total, `${o.number} line`).toBe(r2(i.unit_price * i.quantity));
      expect(o.subtotal, o.number).toBe(r2(sum(o.items, (i) => i.total)));
      expect(o.tax_total, o.number).toBe(
        r2(sum(o.items, (i) => (i.total * i.tax_rate) / (100 + i.tax_rate))),
      );
      expect(o.total, o.number).toBe(r2(o.subtotal + o.shipping_total - o.discount_total));
      expect(o.history[0].from, o.number).toBeNull();
      expect(o.history.at(-1).to, o.number).toBe(o.status);
      o.history.slice(1).forEach((h: Json, k: number) => expect(h.from).toBe(o.history[k].to));
      if (['shipped', 'returned'].includes(o.status)) expect(o.awb, o.number).not.toBeNull();
      if (o.status === 'cancelled') expect(o.awb, o.number).toBeNull();
      if (o.invoice) expect(o.invoice.total, o.number).toBe(o.total);
    }
    const customers = await all(client, '/customers');
    for (const c of customers)
      expect(c.orders_count).toBe(orders.filter((o) => o.customer_id === c.id).length);
    const stats = (await client.get('/stats')).body.data;
    expect(stats.orders_total_value).toBe(
      r2(
        sum(
          orders.filter((o) => o.status !== 'cancelled'),
          (o) => o.total,
        ),
      ),
    );
    for (const t of await all(client, '/tags'))
      expect(t.products_count).toBe(products.filter((p) => p.tags.some((x: Json) => x.id === t.id)).length);
    for (const r of await all(client, '/returns'))
      expect(['shipped', 'returned']).toContain(orders.find((o) => o.id === r.order_id)?.status);
  });

  it('gives secondary its own, different data and no connected courier', async () => {
    const secondary = http(suite.sandbox, 'secondary');
    const products = await all(secondary, '/products');
    expect(products.length).toBeGreaterThan(0);
    expect(products.every((p) => p.sku.startsWith('SEC-'))).toBe(true);
    expect((await all(secondary, '/orders')).length).toBeGreaterThan(0);
    expect((await all(secondary, '/customers')).length).toBeGreaterThan(0);
    const couriers = await all(secondary, '/couriers');
    expect(couriers.filter((c) => c.status === 'connected')).toEqual([]);
    expect((await secondary.get('/account')).body.data.name).not.toBe(
      (await api.get('/account')).body.data.name,
    );
  });
});

describe('categories', () => {
  it('lists root categories with nested children, 3 levels deep', async () => {
    const r = await api.get('/categories');
    expect(r.body.meta.total).toBe(5);
    expect(r.body.data.every((c: { parent_id: null }) => c.parent_id === null)).toBe(true);
    const phones = r.body.data[0].children[0];
    expect(phones.children.length).toBeGreaterThan(0);
    expect(phones.children[0].parent_id).toBe(phones.id);
    const one = await api.get(`/categories/${phones.id}`);
    expect(one.body.data).toMatchObject({ id: phones.id, name: phones.name });
    expect(one.body.data.children).toHaveLength(phones.children.length);
    expect((await api.get('/categories/999999')).status).toBe(404);
  });
});

describe('returns and offers', () => {
  it('lists returns with their lines and reads one', async () => {
    const r = await api.get('/returns');
    expect(r.body.meta.total).toBe(12);
    const ret = r.body.data[0];
    expect(ret.lines.length).toBeGreaterThan(0);
    expect(Object.keys(ret).sort()).toEqual([
      'created_at',
      'customer_id',
      'id',
      'lines',
      'order_id',
      'order_number',
      'reason',
      'refund_amount',
      'status',
      'updated_at',
    ]);
    expect((await api.get(`/returns/${ret.id}`)).body.data).toEqual(ret);
    expect((await api.get('/returns/999999')).status).toBe(404);
  });

  it('lists marketplace offers and reads one', async () => {
    const r = await api.get('/offers?per_page=100');
    expect(r.body.meta.total).toBe(80);
    const offer = r.body.data[0];
    expect(Object.keys(offer).sort()).toEqual(
      [
        'created_at',
        'external_id',
        'id',
        'marketplace',
        'price',
        'product_id',
        'sku',
        'status',
        'stock_quantity',
        'title',
        'updated_at',
        'url',
      ].sort(),
    );
    expect((await api.get(`/offers/${offer.id}`)).body.data).toEqual(offer);
    expect((await api.get('/offers/999999')).status).toBe(404);
  });
});

describe('connection lists', () => {
  it.each(['/marketplaces/list', '/couriers', '/billing-software', '/websites/list', '/fulfillments/list'])(
    '%s is a list envelope without credentials',
    async (path) => {
      const r = await api.get(path);
      expect(r.status).toBe(200);
      expect(r.body.data.length).toBeGreaterThan(0);
      expect(r.body.meta.total).toBe(r.body.data.length);
      const text = JSON.stringify(r.body);
      expect(text).not.toMatch(/credential|password|secret|token|api_key/i);
    },
  );

  it('shows connected and disconnected couriers', async () => {
    const r = await api.get('/couriers');
    expect(r.body.data.map((c: { code: string; status: string }) => `${c.code}:${c.status}`)).toEqual(
      expect.arrayContaining(['fan:connected', 'dpd:disconnected']),
    );
  });
});

describe('reference lists', () => {
  it('lists currencies with RON, EUR and USD, languages and countries, paginated like the others', async () => {
    const currencies = await api.get('/general/currencies');
    expect(currencies.body.data.map((c: { code: string }) => c.code)).toEqual(
      expect.arrayContaining(['RON', 'EUR', 'USD']),
    );
    expect(currencies.body.meta).toMatchObject({ current_page: 1, per_page: 50 });
    expect((await api.get('/general/languages')).body.data[0]).toEqual({
      id: expect.any(Number),
      code: 'ro',
      name: 'Română',
    });
    const countries = await api.get('/general/countries?per_page=10&page=2');
    expect(countries.body.data).toHaveLength(10);
    expect(countries.body.meta.last_page).toBeGreaterThan(2);
    expect((await api.get('/general/countries?per_page=500')).status).toBe(422);
  });
});
