import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../src/sandbox/index.js';
import { http } from './sandboxHttp.js';

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
