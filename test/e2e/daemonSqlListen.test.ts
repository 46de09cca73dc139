import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient } from '../../src/api/createApiClient.js';
import { writeConfigFile } from '../../src/config.js';
import { connectSql } from '../../src/erp/sql/connectSql.js';
import { sqlErpConfigSchema } from '../../src/erp/sql/sqlConfigSchema.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/startSandbox.js';
import { runCli } from '../support/cli.js';
import { eventually, startDaemonProcess, type DaemonProcess } from '../../dev/daemonProcess.js';
import { startPrivateRedis, type PrivateRedis } from '../../dev/redisServer.js';
import { createTestDatabase, type TestDatabase } from '../support/sqlDatabases.js';
import { metricValue, opsGet } from '../support/daemonWorld.js';

// PostgreSQL LISTEN: a committed change reaches the platform within seconds although every
// schedule is yearly; a lost listening connection is reconnected, and a change made meanwhile
// (its notification lost) still arrives, through the one catch-up run after the reconnect.

const YEARLY = '0 0 1 1 *';
const sku = (n: number): string => `BULK-${String(n).padStart(6, '0')}`;

let redis: PrivateRedis;
let sandbox: Sandbox;
let database: TestDatabase;
let writer: pg.Client;
let api: ApiClient;
let dir: string;
let daemon: DaemonProcess | undefined;

async function platformQuantity(code: string): Promise<number | null | undefined> {
  for await (const product of api.products.iterate()) if (product.sku === code) return product.stock_quantity;
  return undefined;
}

/** Runs SQL on the server's admin database (the test database cannot change its own settings). */
async function onAdminDatabase(sql: string): Promise<void> {
  const admin = connectSql(
    sqlErpConfigSchema().parse({
      type: 'sql',
      client: 'pg',
      connection: { ...database.connection, database: 'test' },
    }),
  );
  try {
    await admin.raw(sql);
  } finally {
    await admin.destroy();
  }
}

beforeAll(async () => {
  redis = await startPrivateRedis();
  sandbox = await startSandbox({ port: 0, seed: 'empty', extraProducts: 3 });
  api = createApiClient({ baseUrl: sandbox.url, apiKey: sandbox.keys.primary, retries: 3 });
  database = await createTestDatabase('pg');
  await database.db.raw('create table stock_levels (code text primary key, qty int not null)');
  await database.db('stock_levels').insert([1, 2, 3].map((n) => ({ code: sku(n), qty: 10 + n })));
  writer = new pg.Client({ ...database.connection, user: 'postgres' });
  await writer.connect();

  // The trigger as an integrator installs it: the SQL the CLI prints.
  const printed = await runCli([
    'erp',
    'notify-trigger',
    '--table',
    'public.stock_levels',
    '--pipeline',
    'stock',
  ]);
  expect(printed.code, printed.stderr).toBe(0);
  await writer.query(printed.stdout);

  dir = mkdtempSync(join(tmpdir(), 'erp-sync-listen-'));
  const configFile = writeConfigFile(join(dir, 'config.yaml'), {
    erp: {
      type: 'sql',
      client: 'pg',
      connection: database.connection,
      queries: { stock: 'select code as sku, qty as quantity from stock_levels order by code' },
      listen: {},
    },
    store: { path: join(dir, 'erp-sync.db') },
    log: { level: 'info' },
    orders: { oversellGuard: { enabled: false } },
    redis: { prefix: 'listen' },
    server: { host: '127.0.0.1', port: 0 },
    schedules: {
      catalog: 'off',
      orders: 'off',
      stock: YEARLY,
      prices: 'off',
      feedback: 'off',
      'erp-orders': 'off',
    },
    shutdownGraceSeconds: 5,
  });
  daemon = await startDaemonProcess(configFile, {
    CMS_BASE_URL: sandbox.url,
    CMS_API_KEY: sandbox.keys.primary,
    REDIS_URL: redis.url,
  });
  // The start run.
  await eventually('the start run pushed the stock', async () => (await platformQuantity(sku(1))) === 11);
}, 90_000);

afterAll(async () => {
  if (daemon) {
    daemon.kill('SIGKILL');
    await daemon.exited;
  }
  await writer?.end().catch(() => undefined);
  await onAdminDatabase(`alter database "${database.connection.database}" allow_connections true`).catch(
    () => undefined,
  );
  await api?.close();
  await sandbox?.close();
  await database?.drop();
  await redis?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('PostgreSQL LISTEN under the daemon (yearly schedules)', () => {
  it('brings a committed UPDATE to the platform within 2 s', async () => {
    expect(daemon!.stderr()).toContain('listening for ERP changes (PostgreSQL LISTEN)');
    const committed = Date.now();
    await writer.query('update stock_levels set qty = 77 where code = $1', [sku(2)]);
    await eventually(
      'the change on the platform',
      async () => (await platformQuantity(sku(2))) === 77,
      10_000,
      50,
    );
    const elapsed = Date.now() - committed;
    expect(elapsed).toBeLessThan(2_000);
    expect(metricValue((await opsGet(daemon!.url, '/metrics')).text, 'erp_sync_erp_watch_up')).toBe(1);
  });

  it('reconnects after pg_terminate_backend, and a change made while it was gone still arrives', async () => {
    const name = database.connection.database!;
    // Keep it down while the change is made: no new connection to this database until allowed again.
    await onAdminDatabase(`alter database "${name}" allow_connections false`);
    const terminated = await writer.query<{ n: string }>(
      "select count(pg_terminate_backend(pid)) as n from pg_stat_activity where application_name = 'erp-sync listen' and datname = current_database()",
    );
    expect(Number(terminated.rows[0]!.n)).toBe(1);
    await eventually(
      'the warning',
      () => daemon!.stderr().includes('lost the PostgreSQL LISTEN connection'),
      10_000,
    );
    await eventually(
      'the watch gauge at 0',
      async () => metricValue((await opsGet(daemon!.url, '/metrics')).text, 'erp_sync_erp_watch_up') === 0,
      10_000,
    );

    await writer.query('update stock_levels set qty = 55 where code = $1', [sku(3)]);
    // Its notification went nowhere, and the schedule is yearly: nothing moves while LISTEN is down.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await platformQuantity(sku(3))).toBe(13);

    await onAdminDatabase(`alter database "${name}" allow_connections true`);
    await eventually(
      'listening again',
      () => daemon!.stderr().includes('listening for ERP changes again'),
      40_000,
    );
    await eventually(
      'the change made while down',
      async () => (await platformQuantity(sku(3))) === 55,
      10_000,
    );
    expect(metricValue((await opsGet(daemon!.url, '/metrics')).text, 'erp_sync_erp_watch_up')).toBe(1);

    // And instant again after the reconnect.
    const committed = Date.now();
    await writer.query('update stock_levels set qty = 66 where code = $1', [sku(1)]);
    await eventually('the next change', async () => (await platformQuantity(sku(1))) === 66, 10_000, 50);
    expect(Date.now() - committed).toBeLessThan(2_000);
    expect(daemon!.stderr()).not.toMatch(/password/i);
  }, 90_000);
});
