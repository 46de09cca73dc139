import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Knex } from 'knex';
import { writeConfigFile } from '../../../src/config.js';
import { connectSql } from '../../../src/erp/sql/connectSql.js';
import { SqlErpAdapter } from '../../../src/erp/sql/SqlErpAdapter.js';
import type { ReadReceipt } from '../../../src/erp/ErpRead.js';
import { silentLogger } from '../../../src/logger.js';
import { startSandbox } from '../../../src/sandbox/index.js';
import type { RunSummary } from '../../../src/sync/frame/types.js';
import { runCli } from '../../support/cli.js';
import { createTestDatabase, type LiveClient } from '../../support/sqlDatabases.js';

/**
 * `:since` against change columns with and without a time zone, whatever the zone of the process
 * (TZ) and of the database session (PostgreSQL's `timezone`; MariaDB and SQLite run on UTC here,
 * and the shared MariaDB's global zone is not ours to change). The ERP writes its change column
 * with the database's own clock (`now()`, `CURRENT_TIMESTAMP`), as ERPs do; the rows were written
 * three hours before the first read, four are changed after it: the incremental read must return
 * exactly those four (none lost, and not the whole table again).
 */
interface ZoneCase {
  client: LiveClient;
  /** The column type as the database spells it. */
  column: string;
  /** The database session's zone (PostgreSQL only: ALTER DATABASE ... SET timezone). */
  dbZone?: string;
  processZone: string;
}

const CASES: ZoneCase[] = [
  // process ahead of the database (the issue: database on UTC, erp-sync on Europe/Prague)
  { client: 'pg', column: 'timestamp', dbZone: 'UTC', processZone: 'Europe/Prague' },
  { client: 'pg', column: 'timestamptz', dbZone: 'UTC', processZone: 'Europe/Prague' },
  // database ahead of the process
  { client: 'pg', column: 'timestamp', dbZone: 'Asia/Tokyo', processZone: 'UTC' },
  { client: 'pg', column: 'timestamptz', dbZone: 'Asia/Tokyo', processZone: 'UTC' },
  // both away from UTC, in opposite directions
  { client: 'pg', column: 'timestamp', dbZone: 'America/New_York', processZone: 'Asia/Kolkata' },
  { client: 'mysql', column: 'datetime(3)', processZone: 'Asia/Tokyo' },
  { client: 'mysql', column: 'datetime(3)', processZone: 'America/New_York' },
  { client: 'mysql', column: 'timestamp(3)', processZone: 'Asia/Tokyo' },
  { client: 'mysql', column: 'timestamp(3)', processZone: 'America/New_York' },
  { client: 'sqlite', column: 'text', processZone: 'Asia/Tokyo' },
  { client: 'sqlite', column: 'text', processZone: 'America/New_York' },
];

const NOW: Record<LiveClient, string> = {
  pg: 'now()',
  mysql: 'current_timestamp(3)',
  sqlite: 'CURRENT_TIMESTAMP',
};
const HOURS_AGO: Record<LiveClient, string> = {
  pg: "now() - interval '3 hours'",
  mysql: 'current_timestamp(3) - interval 3 hour',
  sqlite: "datetime('now', '-3 hours')",
};

const sku = (n: number): string => `ZONE-${String(n).padStart(3, '0')}`;
const QUERIES = {
  stock: 'select code as sku, qty as quantity from stock_items order by code',
  stockChanges:
    'select code as sku, qty as quantity from stock_items where changed_at > :since order by code',
};

const originalZone = process.env.TZ;
const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  if (originalZone === undefined) delete process.env.TZ;
  else process.env.TZ = originalZone;
  for (const item of opened.splice(0)) await item.close();
});

async function readAll(
  adapter: SqlErpAdapter,
  after: ReadReceipt | null,
): Promise<{ skus: string[]; receipt: ReadReceipt | null }> {
  const read = adapter.stock(after);
  const skus: string[] = [];
  for await (const row of read) if (row.ok) skus.push(row.record.sku);
  return { skus, receipt: read.receipt };
}

describe(':since binds the same instant whatever the zones of the process and of the database', () => {
  for (const c of CASES) {
    it(`${c.client} ${c.column}, database on ${c.dbZone ?? 'UTC'}, process on ${c.processZone}: an incremental read returns exactly the rows changed since the last read`, async () => {
      const database = await createTestDatabase(c.client);
      opened.push({ close: () => database.drop() });
      if (c.dbZone)
        await database.db.raw(
          `alter database "${database.connection.database!}" set timezone to '${c.dbZone}'`,
        );
      // A connection opened now gets the database's zone (the pool of `database.db` may predate it).
      const erp: Knex = connectSql(database.erpConfig({}));
      opened.push({ close: () => erp.destroy() });
      await erp.raw(
        `create table stock_items (code varchar(32) primary key, qty integer not null, changed_at ${c.column} not null)`,
      );
      for (let n = 1; n <= 10; n++)
        await erp.raw(
          `insert into stock_items (code, qty, changed_at) values (?, ?, ${HOURS_AGO[c.client]})`,
          [sku(n), n],
        );

      process.env.TZ = c.processZone;
      const adapter = new SqlErpAdapter(database.erpConfig({ queries: QUERIES }), silentLogger());
      opened.push(adapter);
      await adapter.open();
      const full = await readAll(adapter, null);
      expect(full.skus).toHaveLength(10);
      expect(full.receipt).not.toBeNull();

      const changed = [sku(2), sku(4), sku(7), sku(9)];
      // SQLite's CURRENT_TIMESTAMP has whole seconds: the change must be a second past the read.
      if (c.client === 'sqlite') await new Promise((resolve) => setTimeout(resolve, 1100));
      await erp.raw(
        `update stock_items set qty = qty + 100, changed_at = ${NOW[c.client]} where code in (?, ?, ?, ?)`,
        changed,
      );
      const delta = await readAll(adapter, full.receipt);
      expect(delta.skus).toEqual(changed);

      // and a read right after that one finds nothing new beyond the overlap's re-read
      const again = await readAll(adapter, delta.receipt);
      expect(again.skus).toEqual(changed);
    });
  }
});

afterAll(() => {
  if (originalZone === undefined) delete process.env.TZ;
  else process.env.TZ = originalZone;
});

describe('run-once on Europe/Prague against PostgreSQL on UTC, a change column without a zone', () => {
  it('sends every change committed after the last run (10 of 10), at the next incremental run', async () => {
    const sandbox = await startSandbox({ port: 0, seed: 'empty', extraProducts: 10, recordBodies: true });
    const database = await createTestDatabase('pg');
    const dir = mkdtempSync(join(tmpdir(), 'erp-sync-sql-zone-'));
    opened.push({
      close: async () => {
        await sandbox.close();
        await database.drop();
        rmSync(dir, { recursive: true, force: true });
      },
    });
    await database.db.raw(`alter database "${database.connection.database!}" set timezone to 'UTC'`);
    const erp = connectSql(database.erpConfig({}));
    opened.push({ close: () => erp.destroy() });
    const bulk = (n: number): string => `BULK-${String(n).padStart(6, '0')}`;
    await erp.raw(
      "create table stock_items (code text primary key, qty int not null, changed_at timestamp not null default now() - interval '3 hours')",
    );
    for (let n = 1; n <= 10; n++)
      await erp.raw('insert into stock_items (code, qty) values (?, ?)', [bulk(n), n]);
    const configFile = writeConfigFile(join(dir, 'config.yaml'), {
      erp: {
        type: 'sql',
        client: 'pg',
        connection: database.connection,
        queries: {
          stock: 'select code as sku, qty as quantity from stock_items order by code',
          stockChanges:
            'select code as sku, qty as quantity from stock_items where changed_at > :since order by code',
        },
      },
      store: { path: join(dir, 'erp-sync.db') },
      orders: { oversellGuard: { enabled: false } },
      log: { level: 'warn' },
    });
    const run = async (): Promise<RunSummary> => {
      const result = await runCli(['run-once', '--only', 'stock', '--json', '--config', configFile], {
        CMS_BASE_URL: sandbox.url,
        CMS_API_KEY: sandbox.keys.primary,
        TZ: 'Europe/Prague',
      });
      expect(result.code, result.stderr).toBe(0);
      return (JSON.parse(result.stdout) as { summaries: RunSummary[] }).summaries[0]!;
    };
    expect(await run()).toMatchObject({ read: 10, applied: 10 });

    for (let n = 1; n <= 10; n++)
      await erp.raw('update stock_items set qty = ?, changed_at = now() where code = ?', [100 + n, bulk(n)]);
    sandbox.requestLog.clear();
    expect(await run()).toMatchObject({ read: 10, sent: 10, applied: 10 });
    const platform = new Map<string, number>();
    for (const entry of sandbox.requestLog.entries())
      if (entry.method === 'PATCH')
        for (const item of (entry.body as { items: { sku: string; quantity: number }[] }).items)
          platform.set(item.sku, item.quantity);
    expect(platform).toEqual(new Map(Array.from({ length: 10 }, (_, i) => [bulk(i + 1), 101 + i])));
  });
});
