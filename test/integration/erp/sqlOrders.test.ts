import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isErpSyncError } from '../../../src/domain/errors.js';
import { SqlErpAdapter } from '../../../src/erp/sql/SqlErpAdapter.js';
import { stagingSchema } from '../../../src/erp/sql/stagingTables.js';
import { silentLogger } from '../../../src/logger.js';
import { contractOrder } from '../../contract/erpAdapterContract.js';
import { createTestDatabase, type TestDatabase } from '../../support/sqlDatabases.js';

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

for (const client of ['pg', 'mysql'] as const) {
  describe(`SQL order staging on ${client}`, () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await createTestDatabase(client);
      await stagingSchema(database.db, database.erpConfig({}).staging);
      await database.db.schema.createTable('items', (t) => {
        t.string('code', 64).primary();
      });
      await database.db('items').insert([{ code: 'A-1' }, { code: 'B-1' }]);
    });
    afterAll(async () => {
      await database?.drop();
    });

    it('imports an order once when two workers race on it (the unique key decides)', async () => {
      const adapters = [0, 1, 2, 3].map(
        () => new SqlErpAdapter(database.erpConfig({ pool: { min: 0, max: 4 } }), silentLogger()),
      );
      try {
        const results = await Promise.all(
          Array.from({ length: 16 }, (_, i) => adapters[i % 4]!.importOrder(contractOrder(4242))),
        );
        expect(new Set(results.map((r) => r.erpRef)).size).toBe(1);
        expect(results.filter((r) => !r.alreadyImported)).toHaveLength(1);
        const headers = await database.db('erp_sync_orders').where('platform_order_id', 4242);
        expect(headers).toHaveLength(1);
        const lines = await database.db('erp_sync_order_lines').where('order_id', headers[0].id);
        expect(lines.map((l: { sku: string; quantity: number }) => [l.sku, l.quantity])).toEqual([
          ['A-1', 2],
        ]);
      } finally {
        await Promise.all(adapters.map((a) => a.close()));
      }
    });

    it('writes header and lines in one transaction: a line the table refuses leaves no header', async () => {
      const adapter = new SqlErpAdapter(database.erpConfig({}), silentLogger());
      try {
        const order = contractOrder(5001);
        order.items = [...order.items, { ...order.items[0]!, sku: 'X'.repeat(300) }];
        const error = await caught(adapter.importOrder(order));
        expect(isErpSyncError(error) && error.code).toBe('erp_query');
        expect(String((error as Error).message)).toMatch(/importing order 5001 into erp_sync_orders/);
        expect(await database.db('erp_sync_orders').where('platform_order_id', 5001)).toHaveLength(0);
        // the same order imports once the cause is gone
        const fixed = await adapter.importOrder(contractOrder(5001));
        expect(fixed.alreadyImported).toBe(false);
      } finally {
        await adapter.close();
      }
    });

    it("writes the customer's address to the header; a table created without the address columns still imports", async () => {
      const adapter = new SqlErpAdapter(database.erpConfig({}), silentLogger());
      const staging = {
        orders: { table: 'old_orders', columns: {} },
        lines: { table: 'old_lines', columns: {} },
        changes: { table: 'old_changes', columns: {} },
      };
      const older = new SqlErpAdapter(database.erpConfig({ staging }), silentLogger());
      try {
        await adapter.importOrder(contractOrder(5101));
        const [header] = await database.db('erp_sync_orders').where('platform_order_id', 5101);
        expect(header).toMatchObject({
          customer_street: 'Str. Lunga 1',
          customer_city: 'Brasov',
          customer_postal_code: '500001',
          customer_county: 'Brasov',
          customer_country: 'RO',
        });

        await stagingSchema(database.db, database.erpConfig({ staging }).staging);
        await database.db.schema.alterTable('old_orders', (t) => {
          t.dropColumns(
            'customer_street',
            'customer_city',
            'customer_postal_code',
            'customer_county',
            'customer_country',
          );
        });
        expect((await older.importOrder(contractOrder(5102))).alreadyImported).toBe(false);
        expect(await database.db('old_orders').where('platform_order_id', 5102)).toHaveLength(1);
      } finally {
        await adapter.close();
        await older.close();
      }
    });

    it('parks an order whose SKU the ERP does not know (knownSku query), writing nothing', async () => {
      const adapter = new SqlErpAdapter(
        database.erpConfig({ queries: { knownSku: 'select code from items where code = :sku' } }),
        silentLogger(),
      );
      try {
        const order = contractOrder(6001);
        order.items = [...order.items, { ...order.items[0]!, sku: 'NOPE-9' }];
        const error = await caught(adapter.importOrder(order));
        expect(isErpSyncError(error) && error.code).toBe('erp_rejected');
        expect((error as Error).message).toBe('unknown SKU in the ERP: NOPE-9');
        expect(await database.db('erp_sync_orders').where('platform_order_id', 6001)).toHaveLength(0);
        expect((await adapter.importOrder(contractOrder(6002))).alreadyImported).toBe(false);
      } finally {
        await adapter.close();
      }
    });

    it('records each order change once, also when delivered twice', async () => {
      const adapter = new SqlErpAdapter(database.erpConfig({}), silentLogger());
      try {
        const { erpRef } = await adapter.importOrder(contractOrder(7001));
        const change = {
          orderId: 7001,
          erpRef,
          seq: 1,
          status: 'cancelled' as const,
          previousStatus: 'new' as const,
        };
        await Promise.all([
          adapter.updateOrder(contractOrder(7001), change),
          adapter.updateOrder(contractOrder(7001), change),
        ]);
        await adapter.updateOrder(contractOrder(7001), {
          ...change,
          seq: 2,
          status: undefined,
          paymentStatus: 'paid',
        });
        const rows = await database
          .db('erp_sync_order_changes')
          .where('platform_order_id', 7001)
          .orderBy('seq');
        expect(
          rows.map((r: { seq: number; status: string | null; payment_status: string | null }) => [
            r.seq,
            r.status,
            r.payment_status,
          ]),
        ).toEqual([
          [1, 'cancelled', null],
          [2, null, 'paid'],
        ]);
      } finally {
        await adapter.close();
      }
    });

    it('refuses a bad query with an error naming the query, and the adapter goes on working', async () => {
      const adapter = new SqlErpAdapter(
        database.erpConfig({ queries: { stock: 'select sku, quantity from no_such_table' } }),
        silentLogger(),
      );
      try {
        const error = await caught(collect(adapter.stock()));
        expect(isErpSyncError(error) && error.code).toBe('erp_query');
        const { host, port, database: name } = database.connection;
        expect((error as Error).message).toContain(
          `the ERP database (${client} ${host}:${port}/${name} as ${database.connection.user}) refused the stock query: `,
        );
        expect((await adapter.importOrder(contractOrder(8001))).alreadyImported).toBe(false);
      } finally {
        await adapter.close();
      }
    });
  });
}

describe('SQL adapter against a database that is away or refuses the login', () => {
  it('is unavailable (retryable) when nothing listens, and never prints the password', async () => {
    const adapter = new SqlErpAdapter(
      (await import('../../../src/erp/sql/sqlConfigSchema.js')).sqlErpConfigSchema().parse({
        type: 'sql',
        client: 'pg',
        connection: { host: '127.0.0.1', port: 1, user: 'erp', password: 'S3cret-Pa55', database: 'erp' },
        connectTimeoutMs: 2000,
      }),
      silentLogger(),
    );
    try {
      const error = await caught(adapter.open());
      expect(isErpSyncError(error) && error.code).toBe('erp_unavailable');
      expect(isErpSyncError(error) && error.retryable).toBe(true);
      expect(JSON.stringify(error) + String(error)).not.toContain('S3cret-Pa55');
      const check = await adapter.check();
      expect(check.ok).toBe(false);
      expect(check.details).not.toContain('S3cret-Pa55');
    } finally {
      await adapter.close();
    }
  });

  it('names a refused login on MariaDB without the password', async () => {
    const database = await createTestDatabase('mysql');
    const adapter = new SqlErpAdapter(
      database.erpConfig({
        connection: { ...database.connection, user: 'nobody_here', password: 'S3cret-Pa55' },
      }),
      silentLogger(),
    );
    try {
      const error = await caught(adapter.open());
      expect(isErpSyncError(error)).toBe(true);
      expect((error as Error).message).toMatch(/Access denied/);
      expect(JSON.stringify(error) + String(error)).not.toContain('S3cret-Pa55');
    } finally {
      await adapter.close();
      await database.drop();
    }
  });

  const DROP = {
    pg: {
      seed: 'create table big_stock as select g::text as sku, g as quantity from generate_series(1, 200000) g',
      kill: "select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and query like '%big_stock%'",
    },
    mysql: {
      seed: 'create table big_stock as select cast(seq as char) as sku, seq as quantity from seq_1_to_200000',
      // every other connection to this database: the rows may sit in socket buffers, not in a running query
      kill: 'select id from information_schema.processlist where db = database() and id <> connection_id()',
    },
  } as const;

  for (const client of ['pg', 'mysql'] as const) {
    it(`fails a read cleanly when ${client} drops the connection mid-stream, and the next read converges`, async () => {
      const database = await createTestDatabase(client);
      await database.db.raw(DROP[client].seed);
      const adapter = new SqlErpAdapter(
        // a wide row, so that the rows cannot all sit in socket buffers when the connection goes
        database.erpConfig({
          queries: {
            stock: "select sku, quantity, repeat('x', 300) as pad from big_stock order by quantity",
          },
        }),
        silentLogger(),
      );
      try {
        let read = 0;
        const error = await caught(
          (async () => {
            for await (const row of adapter.stock()) {
              expect(row.ok).toBe(true);
              if (++read !== 1000) continue;
              const killed: unknown = await database.db.raw(DROP[client].kill);
              if (client === 'mysql') {
                const [rows] = killed as [{ id: number }[]];
                expect(rows.length).toBeGreaterThan(0);
                for (const { id } of rows) await database.db.raw(`kill ${Number(id)}`).catch(() => undefined);
              }
            }
          })(),
        );
        expect(isErpSyncError(error) && error.code).toBe('erp_unavailable');
        expect(read).toBeLessThan(200_000);
        const again = await collect(adapter.stock());
        expect(again).toHaveLength(200_000);
      } finally {
        await adapter.close();
        await database.drop();
      }
    });
  }
});
