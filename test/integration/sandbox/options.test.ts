import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../../src/sandbox/index.js';
import { http } from '../../support/sandboxHttp.js';

describe('startSandbox options', () => {
  it('keeps data in a --db file across restarts without re-seeding it', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sandbox-db-')), 'sandbox.sqlite');
    const first = await startSandbox({ db: file });
    const created = await http(first).post('/tags', { name: 'Persisted' });
    expect(created.status).toBe(201);
    await first.close();
    const second = await startSandbox({ db: file });
    const tags = await http(second).get('/tags?search=persisted');
    expect(tags.body.data.map((t: { id: number }) => t.id)).toEqual([created.body.data.id]);
    expect((await http(second).get('/products')).body.meta.total).toBe(240);
    await second.close();
  });

  it('with seed empty still has the companies, keys and reference lists but no catalog', async () => {
    const sb = await startSandbox({ seed: 'empty' });
    expect((await http(sb).get('/products')).body.meta).toEqual({
      current_page: 1,
      per_page: 50,
      total: 0,
      last_page: 1,
    });
    expect((await http(sb).get('/orders')).body.data).toEqual([]);
    expect((await http(sb, 'secondary').get('/account')).status).toBe(200);
    expect((await http(sb, 'revoked').get('/account')).status).toBe(401);
    expect((await http(sb, 'no_user').get('/account')).status).toBe(403);
    expect((await http(sb).get('/general/currencies')).body.meta.total).toBeGreaterThanOrEqual(3);
    await sb.close();
  });

  it('lists orders oldest first with ordersOrder asc', async () => {
    const sb = await startSandbox({ ordersOrder: 'asc' });
    const ids = (await http(sb).get('/orders?per_page=5')).body.data.map((o: { id: number }) => o.id);
    expect(ids).toEqual([1, 2, 3, 4, 5]);
    await sb.close();
  });

  it('adds extra BULK products: simple, active, tracked, price 10, stock 0', async () => {
    const sb = await startSandbox({ seed: 'empty', extraProducts: 1500 });
    const page = await http(sb).get('/products?per_page=100&page=15');
    expect(page.body.meta.total).toBe(1500);
    expect(page.body.data.at(-1)).toMatchObject({
      sku: 'BULK-001500',
      type: 'simple',
      status: 'active',
      track_stock: true,
      price: 10,
      stock_quantity: 0,
    });
    expect((await http(sb, 'secondary').get('/products')).body.meta.total).toBe(0);
    await sb.close();
  });

  it('serves the same deterministic demo data in every sandbox', async () => {
    const a = await startSandbox();
    const b = await startSandbox();
    const pick = async (sb: typeof a) => {
      const products = (await http(sb).get('/products?per_page=100&page=2')).body.data;
      const orders = (await http(sb).get('/orders?per_page=100')).body.data;
      return JSON.stringify({
        products,
        orders: orders.map((o: { total: number; items: unknown }) => [o.total, o.items]),
      });
    };
    expect(await pick(a)).toBe(await pick(b));
    await Promise.all([a.close(), b.close()]);
  });
});
