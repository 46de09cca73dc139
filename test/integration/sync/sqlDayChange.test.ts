import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../../src/api/createApiClient.js';
import { writeConfigFile } from '../../../src/config.js';
import { connectSql } from '../../../src/erp/sql/connectSql.js';
import { startSandbox } from '../../../src/sandbox/index.js';
import type { RunSummary } from '../../../src/sync/frame/types.js';
import { runCli } from '../../support/cli.js';
import { createTestDatabase, type LiveClient } from '../../support/sqlDatabases.js';

const bulk = (n: number): string => `BULK-${String(n).padStart(6, '0')}`;

/**
 * The price list of docs/sql-adapter.md with a query for changes: a promotion that ends at
 * midnight changes no row, yet the platform must not show it the next morning. The clock is
 * moved by the zone: a day in UTC-12 is followed by the next one (or the one after) in UTC+14,
 * through the database's own zone (PostgreSQL, `current_date`) or through `erp.timeZone` (`:today`).
 */
function priceQueries(today: string): { prices: string; pricesChanges: string } {
  const select = `select i.code as sku, r.price, p.price as sale_price, i.vat as vat_rate
    from items i
    join prices r on r.item_id = i.id and r.list = 'retail'
      and r.valid_from <= ${today} and (r.valid_to is null or r.valid_to >= ${today})
    left join prices p on p.item_id = i.id and p.list = 'promo'
      and p.valid_from <= ${today} and (p.valid_to is null or p.valid_to >= ${today})`;
  return {
    prices: `${select} order by i.code`,
    pricesChanges: `${select}
    where exists (select 1 from prices c where c.item_id = i.id and c.changed_at > :since)
    order by i.code`,
  };
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function world(client: LiveClient) {
  const sandbox = await startSandbox({ port: 0, seed: 'empty', extraProducts: 2 });
  cleanups.push(() => sandbox.close());
  const api = createApiClient({ baseUrl: sandbox.url, apiKey: sandbox.keys.primary, retries: 0 });
  cleanups.push(() => api.close());
  const database = await createTestDatabase(client);
  cleanups.push(() => database.drop());
  const dir = mkdtempSync(join(tmpdir(), 'erp-sync-day-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  const db = database.db;
  await db.schema.createTable('items', (t) => {
    t.integer('id').primary();
    t.string('code', 64).notNullable();
    t.decimal('vat', 5, 2).notNullable();
  });
  await db.schema.createTable('prices', (t) => {
    t.integer('item_id').notNullable();
    t.string('list', 16).notNullable();
    t.decimal('price', 12, 2).notNullable();
    t.date('valid_from').notNullable();
    t.date('valid_to');
    t.timestamp('changed_at').notNullable().defaultTo(db.fn.now());
  });
  await db('items').insert([
    { id: 1, code: bulk(1), vat: 19 },
    { id: 2, code: bulk(2), vat: 19 },
  ]);
  const writeConfig = (erp: Record<string, unknown>): string =>
    writeConfigFile(join(dir, 'config.yaml'), {
      erp: { type: 'sql', client, connection: database.connection, ...erp },
      store: { path: join(dir, 'erp-sync.db') },
      orders: { oversellGuard: { enabled: false } },
      log: { level: 'warn' },
    });
  const run = async (configFile: string): Promise<RunSummary> => {
    const result = await runCli(['run-once', '--only', 'prices', '--json', '--config', configFile], {
      CMS_BASE_URL: sandbox.url,
      CMS_API_KEY: sandbox.keys.primary,
    });
    expect(result.code, result.stderr).toBe(0);
    return (JSON.parse(result.stdout) as { summaries: RunSummary[] }).summaries[0]!;
  };
  const salePrices = async (): Promise<(number | null | undefined)[]> => {
    const out: (number | null | undefined)[] = [];
    for await (const product of api.products.iterate())
      if (product.sku === bulk(1) || product.sku === bulk(2))
        out[product.sku === bulk(1) ? 0 : 1] = product.sale_price;
    return out;
  };
  /**
   * Item 1's promotion runs until the end of `lastDay`; item 2's until 2099. Written an hour ago:
   * out of the overlap that incremental reads re-read.
   */
  const seedPrices = async (lastDay: string): Promise<void> => {
    const changedAt = db.raw(
      client === 'pg' ? "now() - interval '1 hour'" : 'current_timestamp - interval 1 hour',
    );
    await db('prices').insert(
      [
        { item_id: 1, list: 'retail', price: 100, valid_from: '2020-01-01', valid_to: null },
        { item_id: 2, list: 'retail', price: 200, valid_from: '2020-01-01', valid_to: null },
        { item_id: 1, list: 'promo', price: 80, valid_from: '2020-01-01', valid_to: lastDay },
        { item_id: 2, list: 'promo', price: 150, valid_from: '2020-01-01', valid_to: '2099-12-31' },
      ].map((row) => ({ ...row, changed_at: changedAt })),
    );
  };
  return { database, db, writeConfig, run, salePrices, seedPrices };
}

async function databaseDay(db: Knex): Promise<string> {
  const result = (await db.raw("select to_char(current_date, 'YYYY-MM-DD') as today")) as {
    rows: { today: string }[];
  };
  return result.rows[0]!.today;
}

describe('a promotion that ends at midnight is gone the next morning, with a query for changes', () => {
  it("PostgreSQL, the docs' current_date: the first read of a new database day is a full read", async () => {
    const w = await world('pg');
    const name = w.database.connection.database!;
    await w.db.raw(`alter database "${name}" set timezone to 'Etc/GMT+12'`);
    const late = connectSql(w.database.erpConfig({}));
    cleanups.push(() => late.destroy());
    const lastDay = await databaseDay(late);
    await w.seedPrices(lastDay);
    const configFile = w.writeConfig({ queries: priceQueries('current_date') });

    expect(await w.run(configFile)).toMatchObject({ read: 2, applied: 2 });
    expect(await w.salePrices()).toEqual([80, 150]);
    // The same day, nothing changed: the query for changes reads nothing.
    expect(await w.run(configFile)).toMatchObject({ read: 0, sent: 0 });

    // Midnight passes for the database (its zone moves from UTC-12 to UTC+14: a day or two later).
    await w.db.raw(`alter database "${name}" set timezone to 'Etc/GMT-14'`);
    const early = connectSql(w.database.erpConfig({}));
    cleanups.push(() => early.destroy());
    expect((await databaseDay(early)) > lastDay).toBe(true);
    expect(await w.run(configFile)).toMatchObject({ read: 2, sent: 1, applied: 1 });
    expect(await w.salePrices()).toEqual([null, 150]);
  });

  it('MariaDB, :today in erp.timeZone: the first read of a new business day is a full read', async () => {
    const w = await world('mysql');
    const lastDay = new Intl.DateTimeFormat('en-CA', { timeZone: 'Etc/GMT+12' }).format(new Date());
    await w.seedPrices(lastDay);
    const queries = priceQueries(':today');
    const evening = w.writeConfig({ queries, timeZone: 'Etc/GMT+12' });
    expect(await w.run(evening)).toMatchObject({ read: 2, applied: 2 });
    expect(await w.salePrices()).toEqual([80, 150]);
    expect(await w.run(evening)).toMatchObject({ read: 0, sent: 0 });

    // The business day moves on (the zone stands in for the clock): the promotion ended yesterday.
    const morning = w.writeConfig({ queries, timeZone: 'Etc/GMT-14' });
    expect(await w.run(morning)).toMatchObject({ read: 2, sent: 1, applied: 1 });
    expect(await w.salePrices()).toEqual([null, 150]);
    expect(await w.run(morning)).toMatchObject({ read: 0, sent: 0 });
  });
});
