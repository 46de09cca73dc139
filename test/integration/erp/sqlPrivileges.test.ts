import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient } from '../../../src/api/createApiClient.js';
import { writeConfigFile } from '../../../src/config.js';
import { connectSql } from '../../../src/erp/sql/connectSql.js';
import { PROBE_ORDER_ID } from '../../../src/erp/sql/SqlOrderStaging.js';
import { sqlErpConfigSchema } from '../../../src/erp/sql/sqlConfigSchema.js';
import { stagingSchema } from '../../../src/erp/sql/stagingTables.js';
import { startSandbox, type Sandbox } from '../../../src/sandbox/index.js';
import { PROJECT_ROOT, runCli, STACK_TRACE } from '../../support/cli.js';
import { createTestDatabase, type TestDatabase } from '../../support/sqlDatabases.js';

/** The example configuration's queries and statements: what docs/sql-adapter.md's grants are for. */
function exampleErp(client: 'pg' | 'mysql'): {
  queries: Record<string, string>;
  statements: Record<string, string>;
} {
  const text = readFileSync(join(PROJECT_ROOT, `config/sql-${client}.example.yaml`), 'utf8');
  const { erp } = parseYaml(text) as {
    erp: { queries: Record<string, string>; statements: Record<string, string> };
  };
  // And a query for changes, so that check binds :since as a run does.
  const stockChanges = erp.queries.stock!.replace(
    'group by i.code',
    'where i.changed_at > :since\ngroup by i.code',
  );
  return { queries: { ...erp.queries, stockChanges }, statements: erp.statements };
}

/** The grant statements docs/sql-adapter.md gives for this database, as written there. */
function documentedGrants(heading: string): string[] {
  const page = readFileSync(join(PROJECT_ROOT, 'docs/sql-adapter.md'), 'utf8');
  const section = page.slice(page.indexOf(`### ${heading}`));
  const block = /```sql\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error(`no sql block under "### ${heading}" in docs/sql-adapter.md`);
  return block
    .split('\n')
    .filter((line) => line.trim() && !line.trim().startsWith('--'))
    .map((line) => line.trim().replace(/;$/, ''));
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
    t.decimal('vat', 5, 2).notNullable();
    t.timestamp('changed_at').notNullable().defaultTo(db.fn.now());
  });
  await db.schema.createTable('stock_levels', (t) => {
    t.integer('item_id').unsigned().notNullable();
    t.integer('warehouse_id').notNullable();
    t.decimal('on_hand', 12, 3).notNullable();
    t.decimal('reserved', 12, 3).notNullable().defaultTo(0);
  });
  await db.schema.createTable('prices', (t) => {
    t.integer('item_id').unsigned().notNullable();
    t.string('list', 16).notNullable();
    t.decimal('price', 12, 2).notNullable();
    t.date('valid_from').notNullable();
    t.date('valid_to');
  });
  await db.schema.createTable('shipment_events', (t) => {
    t.integer('id').primary();
    t.bigInteger('web_order_id').notNullable();
    t.string('kind', 16).notNullable();
    t.string('courier', 32);
    t.decimal('weight_kg', 8, 3);
    t.integer('parcels');
  });
  await db.schema.createTable('web_feedback', (t) => {
    t.increments('id').primary();
    t.string('event_id', 128).notNullable();
    t.bigInteger('web_order_id').notNullable();
    t.string('kind', 16).notNullable();
    t.string('awb_number', 64);
    t.string('invoice_number', 64);
  });
}

interface Kind {
  client: 'pg' | 'mysql';
  heading: string;
  /** The grants with the test's own role, database and password. */
  grants(role: string, database: string, password: string): string[];
  /** Takes one documented staging privilege away again: the table an insert fails on, what the database says. */
  revoke(role: string): { sql: string; table: string; refusal: RegExp };
  /** Takes SELECT on the prices table away, and what the database then says. */
  revokePrices(role: string): { sql: string; refusal: RegExp };
  dropRole(role: string): string;
}

const KINDS: Kind[] = [
  {
    client: 'pg',
    heading: 'PostgreSQL',
    grants: (role, database, password) =>
      documentedGrants('PostgreSQL').map((sql) =>
        sql
          .replace(/\berp_sync\b/g, role)
          .replace('on database erp ', `on database "${database}" `)
          .replace("'change-me'", `'${password}'`),
      ),
    revoke: (role) => ({
      sql: `revoke usage on sequence erp_sync_orders_id_seq from ${role}`,
      table: 'erp_sync_orders',
      refusal: /permission denied for sequence erp_sync_orders_id_seq/,
    }),
    revokePrices: (role) => ({
      sql: `revoke select on prices from ${role}`,
      refusal: /permission denied for table prices/,
    }),
    dropRole: (role) => `drop role if exists ${role}`,
  },
  {
    client: 'mysql',
    heading: 'MySQL and MariaDB',
    grants: (role, database, password) =>
      documentedGrants('MySQL and MariaDB').map((sql) =>
        sql
          .replace(/'erp_sync'/g, `'${role}'`)
          .replace(/ erp\./g, ` \`${database}\`.`)
          .replace("'change-me'", `'${password}'`),
      ),
    revoke: (role) => ({
      sql: `revoke insert on erp_sync_order_lines from '${role}'@'%'`,
      table: 'erp_sync_order_lines',
      refusal: /INSERT command denied to user '\w+'@'[\w.]+' for table `\w+`\.`erp_sync_order_lines`/,
    }),
    revokePrices: (role) => ({
      sql: `revoke select on prices from '${role}'@'%'`,
      refusal: /SELECT command denied to user '\w+'@'[\w.]+' for table `\w+`\.`prices`/,
    }),
    dropRole: (role) => `drop user if exists '${role}'@'%'`,
  },
];

for (const kind of KINDS)
  describe(`a ${kind.heading} role with exactly the documented privileges`, { timeout: 180_000 }, () => {
    let sandbox: Sandbox;
    let api: ApiClient;
    let database: TestDatabase;
    let admin: Knex;
    let dir: string;
    let configFile: string;
    const role = `erp_sync_t${process.pid}_${Date.now().toString(36)}`;
    const password = `pw-${randomBytes(12).toString('hex')}`;
    /** How errors name the database: client, host, port, database and user (never the password). */
    const db = `the ERP database \\(${kind.client} 127\\.0\\.0\\.1:\\d+/\\w+ as ${role}\\)`;
    const env = (): Record<string, string> => ({
      CMS_BASE_URL: sandbox.url,
      CMS_API_KEY: sandbox.keys.primary,
      ERP_DB_PASSWORD: password,
      REDIS_URL: 'redis://127.0.0.1:6379',
    });

    beforeAll(async () => {
      sandbox = await startSandbox({ port: 0, seed: 'demo' });
      api = createApiClient({ baseUrl: sandbox.url, apiKey: sandbox.keys.primary, retries: 0 });
      database = await createTestDatabase(kind.client);
      admin = database.db;
      await createSchema(admin);
      const skus: string[] = [];
      for await (const product of api.products.iterate()) {
        if (!product.variants?.length && product.sku) skus.push(product.sku);
        if (skus.length === 5) break;
      }
      await admin('warehouses').insert({ id: 1, code: 'MAIN', sellable: true });
      for (const [n, sku] of skus.entries()) {
        await admin('items').insert({ code: sku, vat: 19 });
        const { id } = (await admin('items').where('code', sku).first('id')) as { id: number };
        await admin('stock_levels').insert({ item_id: id, warehouse_id: 1, on_hand: 10 + n, reserved: 0 });
        await admin('prices').insert({
          item_id: id,
          list: 'retail',
          price: 50 + n,
          valid_from: '2020-01-01',
        });
      }
      // A fulfilment fact for an order of the platform's, so that feedback writes through its statement.
      const open = (await api.orders.list({ per_page: 100 })).data.find((o) => o.status === 'processing');
      await admin('shipment_events').insert({ id: 1, web_order_id: open!.id, kind: 'shipped' });
      const { queries, statements } = exampleErp(kind.client);
      await stagingSchema(
        admin,
        sqlErpConfigSchema().parse({ type: 'sql', client: kind.client, connection: {} }).staging,
      );
      for (const sql of kind.grants(role, database.connection.database!, password)) await admin.raw(sql);

      dir = mkdtempSync(join(tmpdir(), 'erp-sync-sql-privileges-'));
      configFile = writeConfigFile(join(dir, 'config.yaml'), {
        erp: {
          type: 'sql',
          client: kind.client,
          connection: { ...database.connection, user: role },
          queries,
          statements,
        },
        store: { path: join(dir, 'erp-sync.db') },
        orders: { oversellGuard: { enabled: false } },
        log: { level: 'warn' },
      });
    });

    afterAll(async () => {
      await api?.close();
      await sandbox?.close();
      await database?.drop();
      if (kind.client === 'pg' || kind.client === 'mysql') {
        const server =
          kind.client === 'pg'
            ? { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' }
            : { host: '127.0.0.1', port: 3306, user: 'root', database: 'test' };
        const root = connectSql(
          sqlErpConfigSchema().parse({
            type: 'sql',
            client: kind.client,
            connection: { ...server, ssl: false },
          }),
        );
        await root.raw(kind.dropRole(role)).catch(() => undefined);
        await root.destroy();
      }
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('passes check: every query and statement runs, an order is written into the staging tables and rolled back', async () => {
      const result = await runCli(['check', '--config', configFile], env());
      expect(result.stdout).toMatch(/^ok\s+ERP \(sql\): /m);
      for (const name of ['stock', 'stockChanges', 'prices', 'knownSku', 'events'])
        expect(result.stdout).toContain(`query ${name}: runs`);
      expect(result.stdout).toContain('statement feedback: runs');
      expect(result.stdout).toContain(
        'staging tables erp_sync_orders, erp_sync_order_lines, erp_sync_order_changes: an order written, read back and rolled back',
      );
      expect(result.code, result.stdout + result.stderr).toBe(0);
      expect(await admin('erp_sync_orders').where('platform_order_id', PROBE_ORDER_ID)).toEqual([]);
      expect(await admin('erp_sync_order_lines')).toEqual([]);
      expect(result.stdout + result.stderr).not.toContain(password);
    });

    it('runs every pipeline with it: stock, prices, orders staged, feedback written back', async () => {
      const result = await runCli(['run-once', '--config', configFile], env(), { timeoutMs: 120_000 });
      expect(result.stderr).not.toMatch(/failed|stopped/);
      expect(result.code, result.stdout + result.stderr).toBe(0);
      const staged = (await admin('erp_sync_orders').count({ n: '*' })) as { n: string | number }[];
      expect(Number(staged[0]!.n)).toBeGreaterThan(0);
      expect(await admin('web_feedback').select('kind')).toEqual([{ kind: 'shipped' }]);
      expect(result.stdout + result.stderr).not.toContain(password);
    });

    it('without one of them: check names the missing privilege, and run-once exits 1 naming it, staging nothing', async () => {
      const { sql, table, refusal } = kind.revoke(role);
      await admin.raw(sql);
      const prices = kind.revokePrices(role);
      await admin.raw(prices.sql);
      const check = await runCli(['check', '--config', configFile], env());
      expect(check.code).toBe(1);
      expect(check.stdout).toMatch(/^FAIL ERP \(sql\): /m);
      expect(check.stdout).toMatch(
        new RegExp(
          `^staging tables: FAIL: erp_permission: ${db} refused inserting into ${table} \\(a test order, rolled back\\): a privilege is missing: ${refusal.source}$`,
          'm',
        ),
      );
      expect(check.stdout).toMatch(
        new RegExp(
          `^query prices: FAILS: ${db} refused the prices query: a privilege is missing: ${prices.refusal.source}$`,
          'm',
        ),
      );
      expect(check.stdout).toContain('query stock: runs');

      const before = (await admin('erp_sync_orders').count({ n: '*' })) as { n: string | number }[];
      for (let i = 0; i < 4; i++)
        await api.orders.create({
          customer: { name: `Client ${i}`, email: `priv${i}@example.ro` },
          items: [{ sku: ((await admin('items').first('code')) as { code: string }).code, quantity: 1 }],
        });
      const run = await runCli(['run-once', '--only', 'orders', '--config', configFile], env());
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        new RegExp(
          `^erp-sync: orders failed: erp_permission: 4 of 4 order\\(s\\) not imported, tried again next run; the import stopped after 3 failures in a row: ${db} refused importing order \\d+ into erp_sync_orders: a privilege is missing: ${refusal.source}$`,
          'm',
        ),
      );
      expect(run.stderr).not.toMatch(STACK_TRACE);
      const after = (await admin('erp_sync_orders').count({ n: '*' })) as { n: string | number }[];
      expect(Number(after[0]!.n)).toBe(Number(before[0]!.n));
      expect(check.stdout + run.stdout + run.stderr).not.toContain(password);
    });
  });
