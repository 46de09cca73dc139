import { afterAll, beforeAll } from 'vitest';
import { FIELDS } from '../../../src/erp/mapping/fields.js';
import { SqlErpAdapter } from '../../../src/erp/sql/SqlErpAdapter.js';
import { stagingSchema } from '../../../src/erp/sql/stagingTables.js';
import { silentLogger } from '../../../src/logger.js';
import {
  describeErpAdapterContract,
  eventRow,
  type ContractKind,
  type ContractSeed,
  type ContractSource,
} from '../../contract/erpAdapterContract.js';
import {
  createTestDatabase,
  LIVE_CLIENTS,
  type LiveClient,
  type TestDatabase,
} from '../../support/sqlDatabases.js';

const KINDS: ContractKind[] = ['stock', 'prices', 'products'];
const EVENT_COLUMNS = ['order_id', 'erp_ref', 'event', 'courier', 'weight', 'parcels', 'note', 'labels'];

/**
 * The contract's ERP as tables of one database: each record kind a table of text columns (the
 * contract checks bad values too) in source order, events with an increasing id as checkpoint,
 * ERP-origin orders as header and lines told their platform order by a statement. With `delta`,
 * rows carry a change time and the adapter reads only what changed (stockChanges/pricesChanges).
 */
async function sqlSource(database: TestDatabase, prefix: string, delta: boolean): Promise<ContractSource> {
  const { db, client } = database;
  const t = (name: string) => `${prefix}_${name}`;
  for (const kind of KINDS) {
    await db.schema.createTable(t(kind), (table) => {
      table.integer('line_no').notNullable();
      for (const field of FIELDS[kind]) table.text(field);
      // microseconds on PostgreSQL: a row written just before a read is older than the read's mark
      if (delta) table.timestamp('changed_at', { precision: 6 }).notNullable().defaultTo(db.fn.now(6));
    });
  }
  await db.schema.createTable(t('events'), (table) => {
    table.increments('id').primary();
    for (const column of EVENT_COLUMNS) table.text(column);
  });
  await db.schema.createTable(t('erp_orders'), (table) => {
    table.increments('id').primary();
    table.string('source_order_id', 64).notNullable();
    table.string('customer_name', 255).notNullable();
    table.string('customer_email', 255);
    table.bigInteger('platform_order_id');
  });
  await db.schema.createTable(t('erp_lines'), (table) => {
    table.integer('order_id').notNullable();
    table.integer('line_no').notNullable();
    table.string('sku', 191).notNullable();
    table.integer('quantity').notNullable();
  });
  const staging = {
    orders: { table: t('orders') },
    lines: { table: t('lines') },
    changes: { table: t('changes') },
  };
  const select = (kind: ContractKind) => `select ${FIELDS[kind].join(', ')} from ${t(kind)}`;
  const config = database.erpConfig({
    staging,
    queries: {
      stock: `${select('stock')} order by line_no`,
      prices: `${select('prices')} order by line_no`,
      products: `${select('products')} order by line_no`,
      ...(delta
        ? {
            stockChanges: `${select('stock')} where changed_at > :since order by line_no`,
            pricesChanges: `${select('prices')} where changed_at > :since order by line_no`,
          }
        : {}),
      events: `select id as checkpoint, ${EVENT_COLUMNS.join(', ')} from ${t('events')}
               where id > cast(:after as ${client === 'mysql' ? 'unsigned' : 'bigint'}) order by id`,
      outgoingOrders: `select o.id as checkpoint, o.source_order_id, o.customer_name, o.customer_email, l.sku, l.quantity
                       from ${t('erp_orders')} o join ${t('erp_lines')} l on l.order_id = o.id
                       where o.id > cast(:after as ${client === 'mysql' ? 'unsigned' : 'bigint'})
                       order by o.id, l.line_no`,
    },
    statements: {
      outgoingOrderCreated: `update ${t('erp_orders')} set platform_order_id = :platform_order_id
                             where source_order_id = :source_order_id`,
    },
    incremental: { overlapSeconds: 0 },
  });
  await stagingSchema(db, config.staging);

  return {
    async seed(data: Partial<ContractSeed>) {
      for (const kind of KINDS) {
        const rows = data[kind];
        if (!rows) continue;
        await db(t(kind)).delete();
        const values = rows.map((row, index) => {
          const out: Record<string, unknown> = { line_no: index + 1 };
          for (const field of FIELDS[kind])
            out[field] = row[field] === undefined || row[field] === '' ? null : row[field];
          return out;
        });
        if (values.length) await db(t(kind)).insert(values);
      }
      if (data.events) {
        await db(t('events')).delete();
        for (const event of data.events) {
          const row = eventRow(event);
          await db(t('events')).insert(
            Object.fromEntries(EVENT_COLUMNS.map((c) => [c, row[c] === undefined ? null : String(row[c])])),
          );
        }
      }
      if (data.outgoing) {
        await db(t('erp_lines')).delete();
        await db(t('erp_orders')).delete();
        for (const [i, order] of data.outgoing.entries()) {
          await db(t('erp_orders')).insert({
            source_order_id: order.sourceOrderId,
            customer_name: `Customer ${i}`,
            customer_email: order.customerEmail,
          });
          const { id } = (await db(t('erp_orders'))
            .where('source_order_id', order.sourceOrderId)
            .first('id')) as {
            id: number;
          };
          await db(t('erp_lines')).insert(
            order.items.map((item, n) => ({ order_id: id, line_no: n + 1, ...item })),
          );
        }
      }
    },
    async open() {
      const adapter = new SqlErpAdapter(config, silentLogger());
      await adapter.open();
      return adapter;
    },
    locate: (kind, index) => ({ file: `${kind} query`, line: index + 1 }),
    async toldPlatformOrder(sourceOrderId) {
      const row = (await db(t('erp_orders'))
        .where('source_order_id', sourceOrderId)
        .first('platform_order_id')) as { platform_order_id: string | number | null } | undefined;
      return row?.platform_order_id == null ? null : Number(row.platform_order_id);
    },
    // The staging header (key = the reference), its one line and the one change delivered.
    expectedLocation: (_id, erpRef) => ({
      place: `${t('orders')} id=${erpRef}`,
      facts: { table: t('orders'), key: erpRef, lines: 1, changes: 1 },
    }),
    cleanup: () => undefined,
  };
}

const databases = new Map<LiveClient, TestDatabase>();
let sources = 0;
beforeAll(async () => {
  for (const client of LIVE_CLIENTS) databases.set(client, await createTestDatabase(client));
});
afterAll(async () => {
  for (const database of databases.values()) await database.drop();
});

for (const client of LIVE_CLIENTS) {
  describeErpAdapterContract(`sql adapter, ${client}`, () =>
    sqlSource(databases.get(client)!, `c${++sources}`, false),
  );
}
describeErpAdapterContract('sql adapter, pg, incremental reads (delta)', () =>
  sqlSource(databases.get('pg')!, `d${++sources}`, true),
);
