import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../src/sandbox/index.js';
import { http } from '../../support/sandboxHttp.js';

let sb: Sandbox;
let api: ReturnType<typeof http>;
beforeAll(async () => {
  sb = await startSandbox({ extraProducts: 1200 });
  api = http(sb);
});
afterAll(() => sb.close());

const stockOf = async (sku: string): Promise<number> =>
  (await api.get(`/products/stock/list?search=${sku}`)).body.data.find((p: { sku: string }) => p.sku === sku)
    .stock_quantity;

describe('PATCH /products/stock/bulk', () => {
  it('sets stock by sku and id, echoes unknown identifiers exactly as sent', async () => {
    const r = await api.patch('/products/stock/bulk', {
      items: [
        { sku: 'BULK-000001', quantity: 5 },
        { id: 2, quantity: 9 },
        { sku: 'NOPE', quantity: 1 },
        { id: 999999, delta: 1 },
        { sku: 'DEMO-0006', variant_sku: 'NOPE-V', quantity: 1 },
        { id: 6, variant_id: 999999, quantity: 1 },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      data: {
        updated: 2,
        not_found: [
          { sku: 'NOPE' },
          { id: 999999 },
          { sku: 'DEMO-0006', variant_sku: 'NOPE-V' },
          { id: 6, variant_id: 999999 },
        ],
      },
    });
    expect(await stockOf('BULK-000001')).toBe(5);
    expect((await api.get('/products/2')).body.data.stock_quantity).toBe(9);
  });

  it('applies delta relative to the current stock, items in order', async () => {
    await api.patch('/products/stock/bulk', { items: [{ sku: 'BULK-000002', quantity: 10 }] });
    const r = await api.patch('/products/stock/bulk', {
      items: [
        { sku: 'BULK-000002', delta: -4 },
        { sku: 'BULK-000002', delta: 1 },
      ],
    });
    expect(r.body.data.updated).toBe(2);
    expect(await stockOf('BULK-000002')).toBe(7);
  });

  it('sets variant stock by variant_sku, by variant_id and by a bare variant SKU, summing into the product', async () => {
    const p = (await api.get('/products/30')).body.data;
    const [a, b] = p.variants;
    const r = await api.patch('/products/stock/bulk', {
      items: [
        { sku: p.sku, variant_sku: a.sku, quantity: 3 },
        { id: p.id, variant_id: b.id, quantity: 4 },
      ],
    });
    expect(r.body.data).toEqual({ updated: 2, not_found: [] });
    await api.patch('/products/stock/bulk', { items: [{ sku: a.sku, delta: 1 }] });
    const after = (await api.get('/products/30')).body.data;
    expect(after.variants[0].stock_quantity).toBe(4);
    expect(after.variants[1].stock_quantity).toBe(4);
    expect(after.stock_quantity).toBe(
      after.variants.reduce((s: number, v: { stock_quantity: number }) => s + v.stock_quantity, 0),
    );
  });

  it('validates every item first: one bad item refuses the whole request with errors by items.N.field', async () => {
    const before = await stockOf('BULK-000003');
    const r = await api.patch('/products/stock/bulk', {
      items: [
        { sku: 'BULK-000003', quantity: 50 },
        { sku: 'BULK-000004', quantity: -1 },
        { sku: 'BULK-000005' },
        { quantity: 1 },
        { sku: 'BULK-000006', quantity: 1.5 },
        { id: 'x', quantity: 1 },
      ],
    });
    expect(r.status).toBe(422);
    expect(Object.keys(r.body.errors).sort()).toEqual([
      'items.1.quantity',
      'items.2.quantity',
      'items.3.id',
      'items.4.quantity',
      'items.5.id',
    ]);
    expect(await stockOf('BULK-000003')).toBe(before);
  });

  it('refuses a variable product without a variant and a delta below zero, writing nothing', async () => {
    await api.patch('/products/stock/bulk', { items: [{ sku: 'BULK-000007', quantity: 2 }] });
    const r = await api.patch('/products/stock/bulk', {
      items: [
        { sku: 'BULK-000007', quantity: 40 },
        { sku: 'DEMO-0006', quantity: 1 },
        { sku: 'BULK-000008', delta: -1 },
      ],
    });
    expect(r.status).toBe(422);
    expect(Object.keys(r.body.errors).sort()).toEqual(['items.1.variant_id', 'items.2.delta']);
    expect(await stockOf('BULK-000007')).toBe(2);
  });

  it('accepts 1000 items and refuses 1001, an empty list and a missing list', async () => {
    const items = Array.from({ length: 1000 }, (_, i) => ({
      sku: `BULK-${String(i + 1).padStart(6, '0')}`,
      quantity: i,
    }));
    const ok = await api.patch('/products/stock/bulk', { items });
    expect(ok.body.data).toEqual({ updated: 1000, not_found: [] });
    expect(await stockOf('BULK-000999')).toBe(998);
    const tooMany = await api.patch('/products/stock/bulk', {
      items: [...items, { sku: 'BULK-001001', quantity: 1 }],
    });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.errors.items).toBeDefined();
    expect((await api.patch('/products/stock/bulk', { items: [] })).status).toBe(422);
    expect((await api.patch('/products/stock/bulk', {})).body.errors.items).toBeDefined();
  });

  it('moves updated_at only of products whose stock changed', async () => {
    const r = await api.get('/products?per_page=1&search=BULK-001100');
    const before = r.body.data[0];
    await api.patch('/products/stock/bulk', {
      items: [{ sku: 'BULK-001100', quantity: before.stock_quantity }],
    });
    expect((await api.get(`/products/${before.id}`)).body.data.updated_at).toBe(before.updated_at);
  });
});

describe('PATCH /products/prices/bulk', () => {
  it('sets prices by id and sku, variant prices, and echoes unknown identifiers', async () => {
    const p = (await api.get('/products/36')).body.data;
    const r = await api.patch('/products/prices/bulk', {
      items: [
        { sku: 'BULK-000010', price: 11.5, sale_price: 10 },
        { id: 1, cost_price: 3, vat_rate: 9 },
        { sku: p.sku, variant_sku: p.variants[0].sku, price: 55 },
        { sku: 'NOPE', price: 1 },
        { id: 888888, variant_id: 1, price: 1 },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ updated: 3, not_found: [{ sku: 'NOPE' }, { id: 888888, variant_id: 1 }] });
    const bulk = (await api.get('/products?search=BULK-000010')).body.data[0];
    expect(bulk).toMatchObject({ price: 11.5, sale_price: 10 });
    expect((await api.get('/products/1')).body.data).toMatchObject({ cost_price: 3, vat_rate: 9 });
    expect((await api.get('/products/36')).body.data.variants[0].price).toBe(55);
  });

  it('clears a sale price sent as null, on a product and on a variant, and refuses a null price', async () => {
    const p = (await api.get('/products/36')).body.data;
    const variant = p.variants[1];
    const set = await api.patch('/products/prices/bulk', {
      items: [
        { sku: 'BULK-000020', sale_price: 7 },
        { sku: p.sku, variant_sku: variant.sku, sale_price: 3 },
      ],
    });
    expect(set.status).toBe(200);
    expect((await api.get('/products?search=BULK-000020')).body.data[0].sale_price).toBe(7);
    const cleared = await api.patch('/products/prices/bulk', {
      items: [
        { sku: 'BULK-000020', sale_price: null },
        { sku: p.sku, variant_sku: variant.sku, sale_price: null },
      ],
    });
    expect(cleared.status).toBe(200);
    expect(cleared.body.data).toEqual({ updated: 2, not_found: [] });
    const product = (await api.get('/products?search=BULK-000020')).body.data[0];
    expect(product.sale_price).toBeNull();
    expect(product.price).toBe(10);
    const after = (await api.get('/products/36')).body.data.variants[1];
    expect(after).toMatchObject({ id: variant.id, sale_price: null, price: variant.price });
    const refused = await api.patch('/products/prices/bulk', {
      items: [{ sku: 'BULK-000020', price: null }],
    });
    expect(refused.status).toBe(422);
    expect(refused.body.errors['items.0.price']).toBeDefined();
  });

  it('refuses an item without a price field, a bad vat_rate or cost_price on a variant, writing nothing', async () => {
    const r = await api.patch('/products/prices/bulk', {
      items: [
        { sku: 'BULK-000011', price: 99 },
        { sku: 'BULK-000012' },
        { sku: 'BULK-000013', vat_rate: 120 },
        { sku: 'DEMO-0036', variant_sku: 'DEMO-0036-S', cost_price: 1 },
      ],
    });
    expect(r.status).toBe(422);
    expect(Object.keys(r.body.errors).sort()).toEqual([
      'items.1.price',
      'items.2.vat_rate',
      'items.3.cost_price',
    ]);
    expect((await api.get('/products?search=BULK-000011')).body.data[0].price).toBe(10);
    const tooMany = await api.patch('/products/prices/bulk', {
      items: Array.from({ length: 1001 }, () => ({ id: 1, price: 1 })),
    });
    expect(tooMany.status).toBe(422);
  });
});
