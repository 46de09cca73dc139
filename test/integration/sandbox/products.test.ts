import { describe, expect, it } from 'vitest';
import { http, sleep } from '../../support/sandboxHttp.js';
import { useSandbox } from '../../support/useSandbox.js';

const suite = useSandbox();
const api = suite.api;

const PRODUCT_KEYS = [
  'id',
  'type',
  'status',
  'name',
  'sku',
  'slug',
  'ean',
  'mpn',
  'brand_id',
  'category_id',
  'price',
  'sale_price',
  'cost_price',
  'vat_rate',
  'stock_quantity',
  'track_stock',
  'highlights',
  'short_description',
  'long_description',
  'weight_grams',
  'length_mm',
  'width_mm',
  'height_mm',
  'meta_title',
  'meta_description',
  'brand',
  'category',
  'variants',
  'images',
  'tags',
  'created_at',
  'updated_at',
];

describe('GET /products', () => {
  it('lists the demo catalog by id ascending with meta', async () => {
    const r = await api.get('/products?per_page=100');
    expect(r.status).toBe(200);
    expect(r.body.meta).toEqual({ current_page: 1, per_page: 100, total: 240, last_page: 3 });
    const ids = r.body.data.map((p: { id: number }) => p.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(Object.keys(r.body.data[0]).sort()).toEqual([...PRODUCT_KEYS].sort());
  });

  it('defaults to 50 per page and returns an empty page past the end with correct meta', async () => {
    expect((await api.get('/products')).body.meta.per_page).toBe(50);
    const past = await api.get('/products?per_page=100&page=9');
    expect(past.status).toBe(200);
    expect(past.body.data).toEqual([]);
    expect(past.body.meta).toEqual({ current_page: 9, per_page: 100, total: 240, last_page: 3 });
  });

  it('keeps last_page at 1 for an empty result', async () => {
    const r = await api.get('/products?search=zzzz-nothing-matches');
    expect(r.body.data).toEqual([]);
    expect(r.body.meta).toMatchObject({ total: 0, last_page: 1, current_page: 1 });
  });

  it.each([
    'per_page=0',
    'per_page=101',
    'per_page=abc',
    'page=0',
    'page=-1',
    'status=deleted',
    'updated_after=yesterday',
    'updated_after=2026-13-01',
  ])('refuses the query %s with 422 naming the parameter', async (query) => {
    const r = await api.get(`/products?${query}`);
    expect(r.status).toBe(422);
    expect(r.body.error).toBe('validation_error');
    expect(Object.keys(r.body.errors)).toEqual([query.split('=')[0]]);
  });

  it('filters by status', async () => {
    const r = await api.get('/products?status=archived&per_page=100');
    expect(r.body.meta.total).toBeGreaterThan(0);
    expect(r.body.data.every((p: { status: string }) => p.status === 'archived')).toBe(true);
  });

  it('searches name, SKU, EAN and MPN case-insensitively as a substring', async () => {
    const p = (await api.get('/products/3')).body.data;
    for (const term of [
      p.name.slice(2, 9).toUpperCase(),
      p.sku.toLowerCase(),
      p.ean.slice(3, 11),
      p.mpn.toLowerCase(),
    ]) {
      const r = await api.get(`/products?per_page=100&search=${encodeURIComponent(term)}`);
      expect(r.body.data.map((x: { id: number }) => x.id)).toContain(3);
    }
    const diacritics = await api.get(`/products?search=${encodeURIComponent('CĂȘTI')}`);
    expect(diacritics.body.meta.total).toBeGreaterThan(0);
  });

  it('returns products updated strictly after updated_after, in any ISO 8601 form', async () => {
    const before = await api.get('/products?updated_after=2000-01-01');
    expect(before.body.meta.total).toBe(240);
    const created = (await api.post('/products', { name: 'Cursor probe' })).body.data;
    const at = created.updated_at as string;
    expect(at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    const same = await api.get(`/products?updated_after=${at}`);
    expect(same.body.data.map((x: { id: number }) => x.id)).not.toContain(created.id);
    const secondBefore = new Date(Date.parse(at) - 1000).toISOString();
    const justBefore = await api.get(`/products?updated_after=${secondBefore}`);
    expect(justBefore.body.data.map((x: { id: number }) => x.id)).toContain(created.id);
    const offset = at.replace('Z', '+00:00').replace(/:\d{2}\+/, ':00+');
    const withOffset = await api.get(`/products?updated_after=${encodeURIComponent(offset)}`);
    expect(withOffset.status).toBe(200);
    const inBucharest = await api.get(
      `/products?updated_after=${encodeURIComponent('2000-01-01T02:00:00+02:00')}`,
    );
    expect(inBucharest.body.meta.total).toBeGreaterThan(240);
    for (const form of ['20000101T000000Z', '2000-W01', '2000-001', '2000-01'])
      expect((await api.get(`/products?updated_after=${form}`)).body.meta.total, form).toBeGreaterThan(240);
  });
});

describe('GET /products/{id}', () => {
  it('returns a variable product with variants whose stock sums to the product stock', async () => {
    const r = await api.get('/products/6');
    expect(r.status).toBe(200);
    const p = r.body.data;
    expect(p.type).toBe('variable');
    expect(p.variants.length).toBeGreaterThan(1);
    expect(Object.keys(p.variants[0]).sort()).toEqual([
      'id',
      'name',
      'price',
      'sale_price',
      'sku',
      'stock_quantity',
    ]);
    expect(p.stock_quantity).toBe(
      p.variants.reduce((s: number, v: { stock_quantity: number }) => s + v.stock_quantity, 0),
    );
  });

  it('embeds brand and category as {id, name}', async () => {
    const p = (await api.get('/products/1')).body.data;
    expect(p.brand).toEqual({ id: p.brand_id, name: expect.any(String) });
    expect(p.category).toEqual({ id: p.category_id, name: expect.any(String) });
  });

  it('answers an unknown id with 404 not_found', async () => {
    const r = await api.get('/products/999999');
    expect(r.status).toBe(404);
    expect(r.body.error).toBe('not_found');
  });
});

describe('POST /products', () => {
  it('counts a created product in meta.total at once', async () => {
    const before = (await api.get('/products?per_page=1')).body.meta.total;
    const stockBefore = (await api.get('/products/stock/list?per_page=1')).body.meta.total;
    await api.post('/products', { name: 'Counted' });
    expect((await api.get('/products?per_page=1')).body.meta.total).toBe(before + 1);
    expect((await api.get('/products/stock/list?per_page=1')).body.meta.total).toBe(stockBefore + 1);
    expect((await http(suite.sandbox, 'secondary').get('/products?per_page=1')).body.meta.total).toBe(40);
  });

  it('creates with 201, defaults and a generated SKU and slug', async () => {
    const r = await api.post('/products', { name: 'Masă de test' });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({
      type: 'simple',
      status: 'draft',
      stock_quantity: 0,
      track_stock: true,
      vat_rate: 19,
      tags: [],
      variants: [],
    });
    expect(r.body.data.sku).toMatch(/^SKU-\d+$/);
    expect(r.body.data.slug).toBe('masa-de-test');
    expect((await api.get(`/products/${r.body.data.id}`)).body.data.name).toBe('Masă de test');
  });

  it('keeps every writable field', async () => {
    const body = {
      name: 'Full',
      type: 'simple',
      status: 'active',
      sku: 'FULL-1',
      slug: 'full-1',
      ean: '5940000000001',
      mpn: 'M-1',
      brand_id: 1,
      category_id: 3,
      price: 10.5,
      sale_price: 9.5,
      cost_price: 5,
      vat_rate: 9,
      stock_quantity: 7,
      track_stock: false,
      highlights: ['a', 'b'],
      short_description: 's',
      long_description: 'l',
      weight_grams: 100,
      length_mm: 1,
      width_mm: 2,
      height_mm: 3,
      meta_title: 'mt',
      meta_description: 'md',
    };
    const r = await api.post('/products', body);
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject(body);
  });

  it('creates a variable product with variants (a sandbox extension)', async () => {
    const r = await api.post('/products', {
      name: 'Tricou',
      type: 'variable',
      variants: [
        { sku: 'TRI-S', name: 'S', price: 20, stock_quantity: 3 },
        { sku: 'TRI-M', name: 'M', price: 21, stock_quantity: 4 },
      ],
    });
    expect(r.status).toBe(201);
    expect(r.body.data.stock_quantity).toBe(7);
    expect(r.body.data.variants.map((v: { sku: string }) => v.sku)).toEqual(['TRI-S', 'TRI-M']);
  });

  it('refuses a duplicate SKU, a foreign brand or category, a long name and a missing name with 422', async () => {
    const dup = await api.post('/products', { name: 'x', sku: 'DEMO-0001' });
    expect(dup.status).toBe(422);
    expect(dup.body.errors.sku).toBeDefined();
    const secondaryBrand = (await http(suite.sandbox, 'secondary').get('/products/241')).body.data?.brand_id;
    const foreign = await api.post('/products', {
      name: 'x',
      brand_id: secondaryBrand ?? 99999,
      category_id: 99999,
    });
    expect(foreign.status).toBe(422);
    expect(Object.keys(foreign.body.errors).sort()).toEqual(['brand_id', 'category_id']);
    expect((await api.post('/products', { name: 'n'.repeat(192) })).body.errors.name).toBeDefined();
    expect((await api.post('/products', { price: 1 })).body.errors.name).toEqual(['is required']);
    const types = await api.post('/products', { name: 'x', price: '10', vat_rate: 101, type: 'bundle' });
    expect(Object.keys(types.body.errors).sort()).toEqual(['price', 'type', 'vat_rate']);
  });
});

describe('PATCH /products/{id}', () => {
  it('updates fields and keeps created_at', async () => {
    const created = (await api.post('/products', { name: 'Patch me' })).body.data;
    const r = await api.patch(`/products/${created.id}`, { name: 'Patched', status: 'active' });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ name: 'Patched', status: 'active' });
    expect(r.body.data.created_at).toBe(created.created_at);
  });

  it('refuses type, an update with no updatable field, and a SKU of another product with 422', async () => {
    const typed = await api.patch('/products/1', { type: 'variable' });
    expect(typed.status).toBe(422);
    expect(typed.body.errors.type).toBeDefined();
    const empty = await api.patch('/products/1', { unknown: 1 });
    expect(empty.status).toBe(422);
    expect(empty.body.message).toMatch(/at least one/i);
    expect((await api.patch('/products/1', {})).status).toBe(422);
    expect((await api.patch('/products/1', { sku: 'DEMO-0002' })).body.errors.sku).toBeDefined();
    expect((await api.patch('/products/1', { sku: 'DEMO-0001' })).status).toBe(200);
  });

  it('refuses own stock on a variable product', async () => {
    const r = await api.patch('/products/6', { stock_quantity: 3 });
    expect(r.status).toBe(422);
    expect(r.body.errors.stock_quantity).toBeDefined();
  });
});

describe('PATCH /products/{id}/price', () => {
  it('sets prices', async () => {
    const created = (await api.post('/products', { name: 'Priced', price: 1 })).body.data;
    const r = await api.patch(`/products/${created.id}/price`, {
      price: 12.5,
      sale_price: null,
      cost_price: 7,
      vat_rate: 5,
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ price: 12.5, sale_price: null, cost_price: 7, vat_rate: 5 });
  });

  it('sets a variant price with variant_id', async () => {
    const p = (await api.get('/products/12')).body.data;
    const v = p.variants[1];
    const r = await api.patch('/products/12/price', { variant_id: v.id, price: 77 });
    expect(r.body.data.variants[1].price).toBe(77);
  });

  it('refuses no price field, a negative price and vat_rate over 100', async () => {
    expect((await api.patch('/products/1/price', { name: 'x' })).status).toBe(422);
    const bad = await api.patch('/products/1/price', { price: -1, vat_rate: 101 });
    expect(Object.keys(bad.body.errors).sort()).toEqual(['price', 'vat_rate']);
  });
});

describe('PATCH /products/{id}/stock', () => {
  it('sets absolute stock with quantity and relative with delta', async () => {
    expect((await api.patch('/products/2/stock', { quantity: 10 })).body.data.stock_quantity).toBe(10);
    expect((await api.patch('/products/2/stock', { delta: -3 })).body.data.stock_quantity).toBe(7);
    expect((await api.patch('/products/2/stock', { delta: 5 })).body.data.stock_quantity).toBe(12);
  });

  it('refuses a result below 0, a negative quantity, both or neither', async () => {
    await api.patch('/products/2/stock', { quantity: 1 });
    const below = await api.patch('/products/2/stock', { delta: -2 });
    expect(below.status).toBe(422);
    expect(below.body.errors.delta).toBeDefined();
    expect((await api.patch('/products/2/stock', { quantity: -1 })).body.errors.quantity).toBeDefined();
    expect((await api.patch('/products/2/stock', { quantity: 1, delta: 1 })).status).toBe(422);
    expect((await api.patch('/products/2/stock', {})).status).toBe(422);
    expect((await api.get('/products/2')).body.data.stock_quantity).toBe(1);
  });

  it('sets a variant stock and keeps the variable product stock the sum of its variants', async () => {
    const p = (await api.get('/products/18')).body.data;
    const r = await api.patch('/products/18/stock', { variant_id: p.variants[0].id, quantity: 100 });
    expect(r.status).toBe(200);
    const sum = r.body.data.variants.reduce(
      (s: number, v: { stock_quantity: number }) => s + v.stock_quantity,
      0,
    );
    expect(r.body.data.variants[0].stock_quantity).toBe(100);
    expect(r.body.data.stock_quantity).toBe(sum);
  });

  it('refuses stock without variant_id on a variable product and a variant of another product', async () => {
    expect((await api.patch('/products/18/stock', { quantity: 1 })).body.errors.variant_id).toBeDefined();
    const other = (await api.get('/products/24')).body.data.variants[0].id;
    const r = await api.patch('/products/18/stock', { variant_id: other, quantity: 1 });
    expect(r.status).toBe(422);
    expect(r.body.errors.variant_id).toBeDefined();
  });
});

describe('GET /products/stock/list', () => {
  it('lists the stock of every product with variants, searchable', async () => {
    const r = await api.get('/products/stock/list?per_page=10');
    expect(r.status).toBe(200);
    expect(r.body.meta.total).toBeGreaterThanOrEqual(240);
    expect(Object.keys(r.body.data[0]).sort()).toEqual([
      'id',
      'name',
      'sku',
      'status',
      'stock_quantity',
      'track_stock',
      'type',
      'updated_at',
      'variants',
    ]);
    const s = await api.get('/products/stock/list?search=demo-0006');
    expect(s.body.data[0].variants.length).toBeGreaterThan(0);
    expect((await api.get('/products/stock/list?per_page=0')).status).toBe(422);
  });
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON under test
type Json = any;

describe('updated_at', () => {
  it('moves with every kind of change to a product, and updated_after finds exactly the changed ones', async () => {
    const make = async (name: string, extra: Record<string, unknown> = {}): Promise<Json> =>
      (await api.post('/products', { name, status: 'active', price: 10, stock_quantity: 10, ...extra })).body
        .data;
    const variable = (name: string): Record<string, unknown> => ({
      type: 'variable',
      stock_quantity: undefined,
      variants: [
        { sku: `${name}-A`, name: 'A', price: 10, stock_quantity: 5 },
        { sku: `${name}-B`, name: 'B', price: 10, stock_quantity: 5 },
      ],
    });
    const p: Record<string, Json> = {};
    for (const name of [
      'fields',
      'price',
      'quantity',
      'delta',
      'bulkStock',
      'bulkPrice',
      'attach',
      'ordered',
      'untouched',
    ])
      p[name] = await make(`UA ${name}`);
    for (const name of ['detach', 'rename', 'deleteTag', 'cancelled']) p[name] = await make(`UA ${name}`);
    for (const name of ['variantStock', 'variantPrice', 'variantBulk'])
      p[name] = await make(`UA-${name}`, variable(`UA-${name}`));
    const tag = async (name: string, productId: number): Promise<number> => {
      const id = (await api.post('/tags', { name })).body.data.id;
      await api.post(`/tags/${id}/attach`, { product_ids: [productId] });
      return id;
    };
    const attachTag = (await api.post('/tags', { name: 'UA attach' })).body.data.id;
    const detachTag = await tag('UA detach', p.detach.id);
    const renameTag = await tag('UA rename', p.rename.id);
    const doomedTag = await tag('UA delete', p.deleteTag.id);
    const order = (
      await api.post('/orders', { customer_id: 1, items: [{ product_id: p.cancelled.id, quantity: 2 }] })
    ).body.data;
    const since = (await api.get(`/products/${p.cancelled.id}`)).body.data.updated_at;
    const baseline = new Map<number, string>();
    for (const x of Object.values(p))
      baseline.set(x.id, (await api.get(`/products/${x.id}`)).body.data.updated_at);
    expect(Math.max(...[...baseline.values()].map(Date.parse))).toBe(Date.parse(since));
    await sleep(1100);

    const changes = [
      api.patch(`/products/${p.fields.id}`, { meta_title: 'new' }),
      api.patch(`/products/${p.price.id}/price`, { sale_price: 9 }),
      api.patch(`/products/${p.quantity.id}/stock`, { quantity: 3 }),
      api.patch(`/products/${p.delta.id}/stock`, { delta: -1 }),
      api.patch('/products/stock/bulk', { items: [{ sku: p.bulkStock.sku, delta: 2 }] }),
      api.patch('/products/prices/bulk', { items: [{ id: p.bulkPrice.id, cost_price: 4 }] }),
      api.post(`/tags/${attachTag}/attach`, { product_ids: [p.attach.id] }),
      api.post(`/tags/${detachTag}/detach`, { product_ids: [p.detach.id] }),
      api.put(`/tags/${renameTag}`, { name: 'UA renamed' }),
      api.delete(`/tags/${doomedTag}`),
      api.post('/orders', { customer_id: 1, items: [{ product_id: p.ordered.id, quantity: 1 }] }),
      api.patch(`/orders/${order.id}`, { status: 'cancelled' }),
      api.patch(`/products/${p.variantStock.id}/stock`, {
        variant_id: p.variantStock.variants[0].id,
        delta: 1,
      }),
      api.patch(`/products/${p.variantPrice.id}/price`, {
        variant_id: p.variantPrice.variants[1].id,
        price: 11,
      }),
      api.patch('/products/prices/bulk', { items: [{ sku: 'UA-variantBulk-B', sale_price: 8 }] }),
    ];
    for (const r of await Promise.all(changes)) expect(r.status).toBeLessThan(300);

    for (const [name, x] of Object.entries(p)) {
      const now = (await api.get(`/products/${x.id}`)).body.data.updated_at;
      if (name === 'untouched') expect(now, name).toBe(baseline.get(x.id));
      else expect(now > baseline.get(x.id)!, name).toBe(true);
    }
    const after = await api.get(`/products?per_page=100&updated_after=${since}`);
    const changed = Object.entries(p)
      .filter(([name]) => name !== 'untouched')
      .map(([, x]) => x.id)
      .sort((a, b) => a - b);
    expect(after.body.data.map((x: { id: number }) => x.id).filter((id: number) => baseline.has(id))).toEqual(
      changed,
    );
  });
});
