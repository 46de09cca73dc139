import { describe, expect, it } from 'vitest';
import { useSandbox } from '../../support/useSandbox.js';

/** Pagination, ordering and query validation, the same on every list endpoint. */
const suite = useSandbox();
const api = suite.api;

const LISTS = [
  '/products',
  '/products/stock/list',
  '/orders',
  '/customers',
  '/tags',
  '/categories',
  '/returns',
  '/offers',
  '/marketplaces/list',
  '/couriers',
  '/billing-software',
  '/websites/list',
  '/fulfillments/list',
  '/general/currencies',
  '/general/languages',
  '/general/countries',
];

const BAD_PAGING = [
  'per_page=0',
  'per_page=101',
  'per_page=abc',
  'per_page=-5',
  'page=0',
  'page=abc',
  'page=1.5',
];

describe.each(LISTS)('GET %s', (path) => {
  it.each(BAD_PAGING)('refuses %s with 422 naming the parameter', async (query) => {
    const r = await api.get(`${path}?${query}`);
    expect(r.status).toBe(422);
    expect(r.body.error).toBe('validation_error');
    expect(Object.keys(r.body.errors)).toEqual([query.split('=')[0]]);
  });

  it('pages with meta, ordered by id (orders newest first), and an empty page past the end', async () => {
    const first = await api.get(`${path}?per_page=2`);
    expect(first.status).toBe(200);
    const { total } = first.body.meta;
    expect(first.body.meta).toEqual({
      current_page: 1,
      per_page: 2,
      total,
      last_page: Math.max(1, Math.ceil(total / 2)),
    });
    const all = await api.get(`${path}?per_page=100`);
    const ids = all.body.data.map((r: { id: number }) => r.id);
    expect(ids.length).toBe(Math.min(total, 100));
    const sorted = [...ids].sort((a, b) => (path === '/orders' ? b - a : a - b));
    expect(ids).toEqual(sorted);
    const second = await api.get(`${path}?per_page=2&page=2`);
    expect(second.body.data.map((r: { id: number }) => r.id)).toEqual(ids.slice(2, 4));
    const past = await api.get(`${path}?per_page=100&page=50`);
    expect(past.status).toBe(200);
    expect(past.body).toEqual({
      data: [],
      meta: { current_page: 50, per_page: 100, total, last_page: Math.max(1, Math.ceil(total / 100)) },
    });
  });
});

describe('filters', () => {
  it.each([
    ['/products', 'status=deleted'],
    ['/products', 'status=ACTIVE'],
    ['/products', 'updated_after=yesterday'],
    ['/products', 'updated_after=2026-02-30'],
    ['/orders', 'status=lost'],
    ['/orders', 'status=NEW'],
  ])('%s refuses %s with 422', async (path, query) => {
    const r = await api.get(`${path}?${query}`);
    expect(r.status).toBe(422);
    expect(Object.keys(r.body.errors)).toEqual([query.split('=')[0]]);
  });

  it('refuses a parameter given twice and names every bad parameter at once', async () => {
    const twice = await api.get('/customers?page=1&page=2');
    expect(twice.status).toBe(422);
    expect(twice.body.errors.page).toBeDefined();
    const many = await api.get('/products?per_page=0&page=0&status=x&updated_after=x');
    expect(Object.keys(many.body.errors).sort()).toEqual(['page', 'per_page', 'status', 'updated_after']);
  });

  it('meta.total counts the filtered records', async () => {
    for (const status of ['active', 'draft', 'archived']) {
      const r = await api.get(`/products?status=${status}&per_page=100`);
      const all = [...r.body.data];
      for (let page = 2; page <= r.body.meta.last_page; page++)
        all.push(...(await api.get(`/products?status=${status}&per_page=100&page=${page}`)).body.data);
      expect(all.length).toBe(r.body.meta.total);
      expect(all.every((p: { status: string }) => p.status === status)).toBe(true);
    }
    const shipped = await api.get('/orders?status=shipped&per_page=100');
    expect(shipped.body.meta.total).toBe(shipped.body.data.length);
  });

  it('searches the stock list like products, tags by name, and treats LIKE wildcards literally', async () => {
    const stock = await api.get('/products/stock/list?search=DEMO-0006-M');
    expect(stock.body.data.map((p: { sku: string }) => p.sku)).toEqual(['DEMO-0006']);
    const tags = await api.get('/tags?search=seller');
    expect(tags.body.data.map((t: { name: string }) => t.name)).toEqual(['Best seller']);
    for (const wildcard of ['%', '_'])
      expect((await api.get(`/products?search=${encodeURIComponent(wildcard)}`)).body.meta.total).toBe(0);
  });
});
