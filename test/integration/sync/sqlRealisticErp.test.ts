import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { Knex } from 'knex';
import { parse as parseYaml } from 'yaml';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient } from '../../../src/api/createApiClient.js';
import { writeConfigFile } from '../../../src/config.js';
import { stagingSchema } from '../../../src/erp/sql/stagingTables.js';
import { silentLogger } from '../../../src/logger.js';
import { startSandbox } from '../../../src/sandbox/index.js';
import { PROJECT_ROOT, runCli } from '../../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../../support/sqlDatabases.js';

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

/** The example configuration's queries for this database: what the README tells integrators to start from. */
function exampleQueries(client: 'pg' | 'mysql'): Record<string, string> {
  const text = readFileSync(join(PROJECT_ROOT, `config/sql-${client}.example.yaml`), 'utf8');
  const { erp } = parseYaml(text) as { erp: { queries: Record<string, string> } };
  return { stock: erp.queries.stock!, prices: erp.queries.prices!, knownSku: erp.queries.knownSku! };
}

async function createSchema(db: Knex): Promise<void> {
  await db.schema.createTable('warehouses', (t) => {
    t.integer('id').primary();
    t.string('code', 16).notNullable();
    t.boolean('sellable').notNullable();
  });
  await db.schema.createTable('items', (t) => {
    t.increments('id').primary();
    t.string('code', 64).notNullable().unique();
    t.string('name', 255).notNullable();
    t.decimal('vat', 5, 2).notNullable();
  });
  await db.schema.createTable('stock_levels', (t) => {
    t.integer('item_id').unsigned().notNullable().references('id').inTable('items');
    t.integer('warehouse_id').notNullable().references('id').inTable('warehouses');
    t.decimal('on_hand', 12, 3).notNullable();
    t.decimal('reserved', 12, 3).notNullable().defaultTo(0);
    t.primary(['item_id', 'warehouse_id']);
  });
  await db.schema.createTable('prices', (t) => {
    t.integer('item_id').unsigned().notNullable().references('id').inTable('items');
    t.string('list', 16).notNullable();
    t.decimal('price', 12, 2).notNullable();
    t.date('valid_from').notNullable();
    t.date('valid_to');
  });
}

/**
 * An ERP schema as integrators meet it: items, several warehouses of which only some are
 * sellable (stock is a SUM, less what is reserved), and price lists whose prices have validity
 * dates (the retail list and a promotion list). The queries are those of the example
 * configurations (config/sql-pg.example.yaml, config/sql-mysql.example.yaml), run against the
 * real databases and the sandbox.
 */
for (const kind of ['pg', 'mysql'] as const)
  describe(`a realistic ERP schema on ${kind}, end to end against the sandbox`, () => {
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
      client = createApiClient({
        baseUrl: sandbox.url,
        apiKey: sandbox.keys.primary,
        logger: silentLogger(),
      });
      skus = [];
      for await (const product of client.products.iterate()) {
        if (!product.variants?.length && product.sku) skus.push(product.sku);
        if (skus.length === 12) break;
      }
      database = await createTestDatabase(kind);
      const db = database.db;
      await createSchema(db);
      await db('warehouses').insert([
        { id: 1, code: 'MAIN', sellable: true },
        { id: 2, code: 'SHOP', sellable: true },
        { id: 3, code: 'RETURNS', sellable: false },
      ]);
      for (const [n, sku] of skus.entries()) {
        await db('items').insert({ code: sku, name: `Item ${n}`, vat: 19 });
        const { id } = (await db('items').where('code', sku).first('id')) as { id: number };
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
      const queries = exampleQueries(kind);
      const erp = database.erpConfig({ queries });
      await stagingSchema(db, erp.staging);
      dir = mkdtempSync(join(tmpdir(), 'erp-sync-sql-e2e-'));
      configFile = writeConfigFile(join(dir, 'config.yaml'), {
        erp: { type: 'sql', client: kind, connection: database.connection, queries },
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
      const first = await runCli(
        ['run-once', '--only', 'catalog,stock,prices', '--config', configFile],
        env(),
      );
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
      const { id } = (await database.db('items').where('code', skus[3]!).first('id')) as { id: number };
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
