import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../src/sandbox/index.js';
import { http } from '../../support/sandboxHttp.js';

/**
 * The documented key set of every record (docs/sandbox.md, "Keys, record by record") against what
 * the routes return: a key added, dropped or renamed on either side fails here.
 */
type Json = Record<string, unknown>;

function documentedKeys(): Map<string, string[]> {
  const doc = readFileSync(new URL('../../../docs/sandbox.md', import.meta.url), 'utf8');
  const section = doc.split('### Keys, record by record')[1]?.split('\n## ')[0] ?? '';
  const table = new Map<string, string[]>();
  for (const m of section.matchAll(/^\| ([^|`]+?) \| (`[^|]+`) \|$/gm))
    table.set(
      m[1]!.trim(),
      [...m[2]!.matchAll(/`([^`]+)`/g)].map((k) => k[1]!),
    );
  return table;
}

let sb: Sandbox;
let api: ReturnType<typeof http>;
const samples = new Map<string, Json[]>();
const add = (name: string, ...records: unknown[]): void => {
  samples.set(name, [...(samples.get(name) ?? []), ...(records as Json[])]);
};

beforeAll(async () => {
  sb = await startSandbox();
  api = http(sb);
  const data = async (path: string): Promise<any> => (await api.get(path)).body.data; // eslint-disable-line @typescript-eslint/no-explicit-any

  const products: Json[] = [
    ...(await data('/products?per_page=100')),
    ...(await data('/products?page=2&per_page=100')),
  ];
  const full = products.find(
    (p) =>
      p.brand && p.category && (p.variants as []).length && (p.images as []).length && (p.tags as []).length,
  );
  expect(full, 'a demo product with every relation').toBeDefined();
  add('product', ...products);
  add('product.brand', full!.brand);
  add('product.category', full!.category);
  add('product.variants[]', ...(full!.variants as Json[]));
  add('product.images[]', ...(full!.images as Json[]));
  add('product.tags[]', ...(full!.tags as Json[]));
  const created = (await api.post('/products', { name: 'Shape probe' })).body.data;
  add('product', created);

  const stock: Json[] = await data('/products/stock/list?search=DEMO-0006');
  add('stock list item', ...stock);
  add('stock list item.variants[]', ...(stock[0]!.variants as Json[]));
  add(
    'bulk result',
    (await api.patch('/products/stock/bulk', { items: [{ sku: 'NOPE', quantity: 1 }] })).body.data,
  );
  add(
    'bulk result',
    (await api.patch('/products/prices/bulk', { items: [{ id: 1, price: 817.99 }] })).body.data,
  );

  const orders: Json[] = await data('/orders?per_page=100');
  const order = (
    await api.post('/orders', { customer: { name: 'Shape' }, items: [{ product_id: 1, quantity: 1 }] })
  ).body.data;
  add('order', ...orders, order);
  add('order.items[]', ...orders.flatMap((o) => o.items as Json[]));
  add('order.history[]', ...orders.flatMap((o) => o.history as Json[]));
  add('awb', ...orders.flatMap((o) => (o.awb ? [o.awb] : [])));
  add('awb', (await api.post(`/orders/${order.id}/awb`)).body.data);
  add('invoice', ...orders.flatMap((o) => (o.invoice ? [o.invoice] : [])));
  add('invoice', (await api.post(`/orders/${order.id}/invoice`)).body.data);

  const customers: Json[] = await data('/customers?per_page=100');
  add('customer', ...customers, order.customer, await data('/customers/1'));
  add('customer.address', ...customers.map((c) => c.address));

  const tag = (await api.post('/tags', { name: 'Shape' })).body.data;
  add(
    'tag',
    ...(await data('/tags')),
    tag,
    await (
      await api.put(`/tags/${tag.id}`, { color: 'red' })
    ).body.data,
  );
  add('tag attach result', (await api.post(`/tags/${tag.id}/attach`, { product_ids: [1] })).body.data);
  add('tag detach result', (await api.post(`/tags/${tag.id}/detach`, { product_ids: [1] })).body.data);
  add('tag deletion', (await api.delete(`/tags/${tag.id}`)).body.data);

  const categories: Json[] = await data('/categories');
  const walk = (c: Json): Json[] => [c, ...(c.children as Json[]).flatMap(walk)];
  add('category', ...categories.flatMap(walk), await data(`/categories/${categories[0]!.id}`));

  const returns: Json[] = await data('/returns');
  add('return', ...returns, await data(`/returns/${returns[0]!.id}`));
  add('return.lines[]', ...returns.flatMap((r) => r.lines as Json[]));
  const offers: Json[] = await data('/offers?per_page=100');
  add('offer', ...offers, await data(`/offers/${offers[0]!.id}`));

  for (const key of ['primary', 'secondary'] as const) {
    const client = http(sb, key);
    const list = async (path: string): Promise<Json[]> => (await client.get(path)).body.data;
    add('marketplace', ...(await list('/marketplaces/list')));
    add('courier', ...(await list('/couriers')));
    add('billing software', ...(await list('/billing-software')));
    add('website', ...(await list('/websites/list')));
    add('fulfillment', ...(await list('/fulfillments/list')));
    const account = await list('/account');
    add('account', account);
    add('account.address', (account as unknown as Json).address);
    const stats = (await list('/stats')) as unknown as Json;
    add('stats', stats);
    add('stats.products_by_status', stats.products_by_status);
    add('stats.orders_by_status', stats.orders_by_status);
  }
  add('currency', ...(await data('/general/currencies?per_page=100')));
  add('language', ...(await data('/general/languages?per_page=100')));
  add('country', ...(await data('/general/countries?per_page=100')));

  const page = (await api.get('/customers?per_page=2')).body;
  add('list envelope', page);
  add('list meta', page.meta);
  add('error', (await api.get('/products/999999')).body, (await http(sb, null).get('/account')).body);
  add('validation error', (await api.post('/products', {})).body, (await api.get('/orders?page=0')).body);
});
afterAll(() => sb.close());

describe('record shapes', () => {
  it('documents exactly the records the test samples', () => {
    expect([...documentedKeys().keys()].sort()).toEqual([...samples.keys()].sort());
  });

  it('returns exactly the documented keys for every record', () => {
    const doc = documentedKeys();
    for (const [name, records] of samples) {
      expect(records.length, name).toBeGreaterThan(0);
      const keys = [...(doc.get(name) ?? [])].sort();
      for (const record of records) expect(Object.keys(record).sort(), name).toEqual(keys);
    }
  });

  it('never returns undefined-looking values: amounts and counts are numbers, timestamps second-resolution UTC', () => {
    const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
    for (const [name, records] of samples)
      for (const record of records)
        for (const [key, value] of Object.entries(record)) {
          if (/(_at)$/.test(key) && value !== null) expect(value, `${name}.${key}`).toMatch(iso);
          if (/(total|price|_count|quantity|amount)$/.test(key) && value !== null)
            expect(typeof value, `${name}.${key}`).toBe('number');
        }
  });
});
