import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient } from '../../../src/api/createApiClient.js';
import { writeConfigFile } from '../../../src/config.js';
import { stagingSchema } from '../../../src/erp/sql/stagingTables.js';
import { silentLogger } from '../../../src/logger.js';
import { startSandbox } from '../../../src/sandbox/index.js';
import { runCli } from '../../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../../support/sqlDatabases.js';

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

/**
 * An ERP schema as integrators meet it: items, several warehouses of which only some are
 * sellable (stock is a SUM, less what is reserved), and price lists whose prices have validity
 * dates (the retail list and a promotion list). The queries below are the ones an integrator
 * writes in the configuration; erp-sync runs them against PostgreSQL and the sandbox.
 */
const SCHEMA = `
create table warehouses (id int primary key, code text not null, sellable boolean not null);
create table items (id serial primary key, code text not null unique, name text not null, vat numeric(5,2) not null);
create table stock_levels (item_id int not null references items, warehouse_id int not null references warehouses,
  on_hand numeric(12,3) not null, reserved numeric(12,3) not null default 0, primary key (item_id, warehouse_id));
create table prices (item_id int not null references items, list text not null, price numeric(12,2) not null,
  valid_from date not null, valid_to date);
`;

const QUERIES = {
  stock: `
    select i.code as sku, greatest(0, floor(coalesce(sum(s.on_hand - s.reserved), 0)))::int as quantity
    from items i
    left join (stock_levels s join warehouses w on w.id = s.warehouse_id and w.sellable) on s.item_id = i.id
    group by i.code
    order by i.code`,
  prices: `
    select i.code as cod_produs, r.price as pret, p.price as pret_promo, i.vat as cota_tva
    from items i
    join prices r on r.item_id = i.id and r.list = 'retail'
      and r.valid_from <= current_date and (r.valid_to is null or r.valid_to >= current_date)
    left join prices p on p.item_id = i.id and p.list = 'promo'
      and p.valid_from <= current_date and (p.valid_to is null or p.valid_to >= current_date)
    order by i.code`,
};

describe('a realistic ERP schema on PostgreSQL, end to end against the sandbox', () => {
  let sandbox: Sandbox;
  let client: ApiClient;
  let database: TestDatabase;
  let dir: string;
  let configFile: string;
  let skus: string[];
  const env = (): Record<string, string> => ({
    CMS_BASE_URL: sandbox.url,
    CMS_API_KEY: sandbox.keys.primary,
  });

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, seed: 'demo', recordBodies: true });
    client = createApiClient({ baseUrl: sandbox.url, apiKey: sandbox.keys.primary, logger: silentLogger() });
    skus = [];
    for await (const product of client.products.iterate()) {
      if (!product.variants?.length && product.sku) skus.push(product.sku);
      if (skus.length === 12) break;
    }
    database = await createTestDatabase('pg');
    const db = database.db;
    await db.raw(SCHEMA);
    await db('warehouses').insert([
      { id: 1, code: 'MAIN', sellable: true },
      { id: 2, code: 'SHOP', sellable: true },
      { id: 3, code: 'RETURNS', sellable: false },
    ]);
    for (const [n, sku] of skus.entries()) {
      const [{ id }] = (await db('items')
        .insert({ code: sku, name: `Item ${n}`, vat: 19 })
        .returning('id')) as { id: number }[];
      await db('stock_levels').insert([
        { item_id: id, warehouse_id: 1, on_hand: 10 + n, reserved: 2 },
        { item_id: id, warehouse_id: 2, on_hand: 3.5, reserved: 0 },
        { item_id: id, warehouse_id: 3, on_hand: 100, reserved: 0 },
      ]);
      await db('prices').insert([
        { item_id: id, list: 'retail', price: 80 + n, valid_from: '2020-01-01', valid_to: '2021-01-01' },
        { item_id: id, list: 'retail', price: 100 + n, valid_from: '2021-01-02', valid_to: null },
        // even items are on promotion now; odd ones had one that has ended
        n % 2 === 0
          ? { item_id: id, list: 'promo', price: 90 + n, valid_from: '2020-01-01', valid_to: '2099-12-31' }
          : { item_id: id, list: 'promo', price: 70 + n, valid_from: '2020-01-01', valid_to: '2021-01-01' },
      ]);
    }
    const erp = database.erpConfig({ queries: QUERIES });
    await stagingSchema(db, erp.staging);
    dir = mkdtempSync(join(tmpdir(), 'erp-sync-sql-e2e-'));
    configFile = writeConfigFile(join(dir, 'config.yaml'), {
      erp: { type: 'sql', client: 'pg', connection: database.connection, queries: QUERIES },
      store: { path: join(dir, 'erp-sync.db') },
      orders: { oversellGuard: { enabled: false } },
      log: { level: 'warn' },
    });
  });

  afterAll(async () => {
    await client?.close();
    await sandbox?.close();
    await database?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('pushes summed sellable stock and the prices valid today, then sends nothing on the next run', async () => {
    const first = await runCli(['run-once', '--only', 'catalog,stock,prices', '--config', configFile], env());
    expect(first.stderr).not.toMatch(/error/i);
    expect(first.code).toBe(0);
    const platform = new Map<
      string,
      {
        stock: number | null | undefined;
        price: number | null | undefined;
        sale: number | null | undefined;
        vat: number | null | undefined;
      }
    >();
    for await (const product of client.products.iterate()) {
      platform.set(product.sku, {
        stock: product.stock_quantity,
        price: product.price,
        sale: product.sale_price,
        vat: product.vat_rate,
      });
    }
    for (const [n, sku] of skus.entries()) {
      // MAIN (10+n on hand, 2 reserved) + SHOP (3.5) = 11.5+n, floored; RETURNS is not sellable
      expect(platform.get(sku), sku).toEqual({
        stock: 11 + n,
        price: 100 + n,
        sale: n % 2 === 0 ? 90 + n : null,
        vat: 19,
      });
    }

    sandbox.requestLog.clear();
    const second = await runCli(['run-once', '--only', 'stock,prices', '--config', configFile], env());
    expect(second.code).toBe(0);
    expect(sandbox.requestLog.entries().filter((e) => e.method !== 'GET')).toEqual([]);
  });

  it('sends exactly the item whose stock moved in the ERP', async () => {
    const [{ id }] = (await database.db('items').where('code', skus[3]!).select('id')) as { id: number }[];
    await database.db('stock_levels').where({ item_id: id, warehouse_id: 2 }).update({ on_hand: 40 });
    sandbox.requestLog.clear();
    const run = await runCli(['run-once', '--only', 'stock,prices', '--config', configFile], env());
    expect(run.code).toBe(0);
    const writes = sandbox.requestLog.entries().filter((e) => e.method !== 'GET');
    expect(writes.map((w) => w.path)).toEqual(['/api/v2/products/stock/bulk']);
    expect(JSON.stringify(writes[0]!.body)).toContain(skus[3]!);
    expect((writes[0]!.body as { items: unknown[] }).items).toHaveLength(1);
  });

  it('stages every platform order to import once, also when the orders run is repeated', async () => {
    const run = await runCli(['run-once', '--only', 'orders', '--config', configFile], env());
    expect(run.code).toBe(0);
    const staged = (await database.db('erp_sync_orders').select('platform_order_id', 'id')) as {
      platform_order_id: string;
    }[];
    expect(staged.length).toBeGreaterThan(0);
    const again = await runCli(['run-once', '--only', 'orders', '--config', configFile], env());
    expect(again.code).toBe(0);
    const after = (await database.db('erp_sync_orders').select('platform_order_id')) as {
      platform_order_id: string;
    }[];
    expect(after.length).toBe(staged.length);
    expect(new Set(after.map((r) => String(r.platform_order_id))).size).toBe(after.length);
    const lines = (await database.db('erp_sync_order_lines').count({ n: '*' })) as { n: string }[];
    expect(Number(lines[0]!.n)).toBeGreaterThanOrEqual(after.length);
  });
});
