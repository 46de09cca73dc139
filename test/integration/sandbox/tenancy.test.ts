import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../src/sandbox/index.js';
import { http } from '../../support/sandboxHttp.js';

let sb: Sandbox;
let primary: ReturnType<typeof http>;
let secondary: ReturnType<typeof http>;
beforeAll(async () => {
  sb = await startSandbox();
  primary = http(sb, 'primary');
  secondary = http(sb, 'secondary');
});
afterAll(() => sb.close());

describe('tenant isolation', () => {
  it('gives each company its own, different data', async () => {
    const a = await primary.get('/products?per_page=100');
    const b = await secondary.get('/products?per_page=100');
    expect(b.body.meta.total).toBe(40);
    const ids = new Set(a.body.data.map((p: { id: number }) => p.id));
    expect(b.body.data.some((p: { id: number }) => ids.has(p.id))).toBe(false);
    expect((await secondary.get('/account')).body.data.name).toBe('Second Shop SRL');
  });

  it('answers another company’s records with 404, never 403', async () => {
    const order = (await primary.get('/orders?per_page=1')).body.data[0];
    const ret = (await primary.get('/returns')).body.data[0];
    const offer = (await primary.get('/offers')).body.data[0];
    for (const path of [
      '/products/1',
      `/orders/${order.id}`,
      '/customers/1',
      `/returns/${ret.id}`,
      `/offers/${offer.id}`,
      '/categories/1',
    ]) {
      const r = await secondary.get(path);
      expect(r.status, path).toBe(404);
      expect(r.body.error).toBe('not_found');
    }
  });

  it('answers every :id route with 404 for the other company’s id, both ways, and changes nothing', async () => {
    const idsOf = async (api: ReturnType<typeof http>): Promise<Record<string, number>> => {
      const first = async (path: string): Promise<number> => (await api.get(path)).body.data[0].id;
      return {
        product: await first('/products?per_page=1'),
        order: await first('/orders?per_page=1'),
        customer: await first('/customers?per_page=1'),
        tag: await first('/tags?per_page=1'),
        category: await first('/categories?per_page=1'),
        return: await first('/returns?per_page=1'),
        offer: await first('/offers?per_page=1'),
      };
    };
    const routes = (
      other: Record<string, number>,
      own: Record<string, number>,
    ): [string, string, unknown][] => [
      ['GET', `/products/${other.product}`, undefined],
      ['PATCH', `/products/${other.product}`, { name: 'hijack' }],
      ['PATCH', `/products/${other.product}/price`, { price: 1 }],
      ['PATCH', `/products/${other.product}/stock`, { delta: 1 }],
      ['GET', `/orders/${other.order}`, undefined],
      ['PATCH', `/orders/${other.order}`, { notes: 'hijack' }],
      ['POST', `/orders/${other.order}/awb`, {}],
      ['POST', `/orders/${other.order}/invoice`, undefined],
      ['GET', `/customers/${other.customer}`, undefined],
      ['PATCH', `/customers/${other.customer}`, { name: 'hijack' }],
      ['PUT', `/tags/${other.tag}`, { color: 'black' }],
      ['POST', `/tags/${other.tag}/attach`, { product_ids: [own.product] }],
      ['POST', `/tags/${other.tag}/detach`, { product_ids: [own.product] }],
      ['DELETE', `/tags/${other.tag}`, undefined],
      ['GET', `/categories/${other.category}`, undefined],
      ['GET', `/returns/${other.return}`, undefined],
      ['GET', `/offers/${other.offer}`, undefined],
    ];
    const a = await idsOf(primary);
    const b = await idsOf(secondary);
    const snapshot = async (api: ReturnType<typeof http>, ids: Record<string, number>): Promise<string> =>
      JSON.stringify([
        (await api.get(`/products/${ids.product}`)).body,
        (await api.get(`/orders/${ids.order}`)).body,
        (await api.get(`/customers/${ids.customer}`)).body,
        (await api.get('/tags?per_page=100')).body,
      ]);
    const before = [await snapshot(primary, a), await snapshot(secondary, b)];
    for (const [caller, other, own] of [
      [secondary, a, b],
      [primary, b, a],
    ] as const)
      for (const [method, path, body] of routes(other, own)) {
        const r = await caller.call(method, path, body);
        expect(r.status, `${method} ${path}`).toBe(404);
        expect(r.body.error).toBe('not_found');
      }
    expect([await snapshot(primary, a), await snapshot(secondary, b)]).toEqual(before);
  });

  it.each(['abc', '1.5', '-1', '0', '1e3', '0x1', '%20', '99999999999999999999'])(
    'answers a path id of %s with 404 on every :id route',
    async (id) => {
      for (const [method, path] of [
        ['GET', '/products/:id'],
        ['PATCH', '/products/:id'],
        ['PATCH', '/products/:id/price'],
        ['PATCH', '/products/:id/stock'],
        ['GET', '/orders/:id'],
        ['PATCH', '/orders/:id'],
        ['POST', '/orders/:id/awb'],
        ['POST', '/orders/:id/invoice'],
        ['GET', '/customers/:id'],
        ['PATCH', '/customers/:id'],
        ['PUT', '/tags/:id'],
        ['DELETE', '/tags/:id'],
        ['POST', '/tags/:id/attach'],
        ['POST', '/tags/:id/detach'],
        ['GET', '/categories/:id'],
        ['GET', '/returns/:id'],
        ['GET', '/offers/:id'],
      ] as const) {
        const r = await primary.call(method, path.replace(':id', id), method === 'GET' ? undefined : {});
        expect(r.status, `${method} ${path}`).toBe(404);
        expect(r.body.error).toBe('not_found');
      }
    },
  );

  it('never changes another company’s data', async () => {
    const before = (await primary.get('/products/1')).body.data;
    expect((await secondary.patch('/products/1', { name: 'hijack' })).status).toBe(404);
    expect((await secondary.patch('/products/1/stock', { quantity: 0 })).status).toBe(404);
    expect((await secondary.patch('/products/1/price', { price: 0 })).status).toBe(404);
    const bulk = await secondary.patch('/products/stock/bulk', {
      items: [
        { id: 1, quantity: 0 },
        { sku: before.sku, quantity: 0 },
      ],
    });
    expect(bulk.body.data).toEqual({ updated: 0, not_found: [{ id: 1 }, { sku: before.sku }] });
    const prices = await secondary.patch('/products/prices/bulk', { items: [{ sku: before.sku, price: 0 }] });
    expect(prices.body.data.updated).toBe(0);
    expect((await secondary.post('/orders/1/awb')).status).toBe(404);
    expect((await secondary.post('/orders/1/invoice')).status).toBe(404);
    expect((await secondary.patch('/orders/1', { status: 'cancelled' })).status).toBe(404);
    expect((await secondary.patch('/customers/1', { name: 'x' })).status).toBe(404);
    expect((await secondary.put('/tags/1', { name: 'x' })).status).toBe(404);
    expect((await secondary.delete('/tags/1')).status).toBe(404);
    expect((await primary.get('/products/1')).body.data).toEqual(before);
  });

  it('refuses another company’s product, customer and tag ids inside bodies', async () => {
    const secTag = (await secondary.get('/tags')).body.data[0];
    expect((await secondary.post(`/tags/${secTag.id}/attach`, { product_ids: [1] })).status).toBe(422);
    const order = await secondary.post('/orders', {
      customer_id: 1,
      items: [{ product_id: 1, quantity: 1 }],
    });
    expect(order.status).toBe(422);
    expect(Object.keys(order.body.errors).sort()).toEqual(['customer_id', 'items.0.product_id']);
    const product = await secondary.post('/products', { name: 'x', brand_id: 1, category_id: 1 });
    expect(Object.keys(product.body.errors).sort()).toEqual(['brand_id', 'category_id']);
  });

  it('lets both companies use the same SKU and tag name, and shares id sequences', async () => {
    const a = await primary.post('/products', { name: 'Same', sku: 'SHARED-SKU' });
    const b = await secondary.post('/products', { name: 'Same', sku: 'SHARED-SKU' });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.body.data.id).toBe(a.body.data.id + 1);
    expect((await secondary.post('/tags', { name: 'Nou' })).status).toBe(422);
    expect((await primary.post('/tags', { name: 'Sezon' })).status).toBe(201);
  });

  it('draws order, customer and tag ids from one sequence per resource shared by both companies', async () => {
    const order = async (
      api: ReturnType<typeof http>,
      n: number,
    ): Promise<{ id: number; customer_id: number }> => {
      const product = (await api.get('/products?status=active&per_page=20')).body.data.find(
        (p: { type: string }) => p.type === 'simple',
      );
      return (
        await api.post('/orders', {
          customer: { name: `Seq ${n}`, email: `seq${n}-${Date.now()}@example.com` },
          items: [{ product_id: product.id, quantity: 1 }],
        })
      ).body.data;
    };
    const a = await order(primary, 1);
    const b = await order(secondary, 2);
    expect(b.id).toBe(a.id + 1);
    expect(b.customer_id).toBe(a.customer_id + 1);
    const t1 = (await secondary.post('/tags', { name: `Seq ${Date.now()}` })).body.data;
    const t2 = (await primary.post('/tags', { name: `Seq ${Date.now()}` })).body.data;
    expect(t2.id).toBe(t1.id + 1);
  });

  it('issues a local TEST AWB for a company with no connected courier', async () => {
    const product = (await secondary.get('/products?status=active&per_page=1')).body.data[0];
    const o = await secondary.post('/orders', {
      customer: { name: 'S', email: 's@example.com' },
      items: [{ product_id: product.id, quantity: 1 }],
    });
    const awb = await secondary.post(`/orders/${o.body.data.id}/awb`);
    expect(awb.status).toBe(201);
    expect(awb.body.data.number).toMatch(/^TEST/);
    expect(o.body.data.number).toMatch(/^SS-/);
  });
});
