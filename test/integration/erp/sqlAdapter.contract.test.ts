import type { Knex } from 'knex';
import { afterAll, beforeAll } from 'vitest';
import { SqlErpAdapter } from '../../../src/erp/sql/SqlErpAdapter.js';
import { stagingSchema } from '../../../src/erp/sql/stagingTables.js';
import { silentLogger } from '../../../src/logger.js';
import {
  describeErpAdapterContract,
  type ContractDataset,
  type ContractKind,
} from '../../contract/erpAdapterContract.js';
import {
  describeOrderExchangeContract,
  type OrderExchangeFactory,
} from '../../contract/orderExchangeContract.js';
import { createTestDatabase, LIVE_CLIENTS, type TestDatabase } from '../../support/sqlDatabases.js';

const KINDS: ContractKind[] = ['stock', 'prices', 'products'];

/** The contract's rows as text columns in source order (the contract checks bad values too). */
async function seedRows(db: Knex, dataset: ContractDataset, prefix: string): Promise<Record<string, string>> {
  const queries: Record<string, string> = {};
  for (const kind of KINDS) {
    const table = `${prefix}_${kind}`;
    const fields = [...new Set(dataset[kind].flatMap((row) => Object.keys(row)))];
    await db.schema.createTable(table, (t) => {
      t.integer('line_no').notNullable();
      for (const field of fields) t.text(field);
    });
    const rows = dataset[kind].map((row, index) => {
      const out: Record<string, unknown> = { line_no: index + 1 };
      for (const field of fields)
        out[field] = row[field] === undefined || row[field] === '' ? null : row[field];
      return out;
    });
    if (rows.length) await db(table).insert(rows);
    queries[kind] = `select ${fields.length ? fields.join(', ') : 'line_no'} from ${table} order by line_no`;
  }
  return queries;
}

for (const client of LIVE_CLIENTS) {
  let database: TestDatabase;
  let tables = 0;
  beforeAll(async () => {
    database = await createTestDatabase(client);
  });
  afterAll(async () => {
    await database?.drop();
  });

  describeErpAdapterContract(`sql adapter, ${client}`, async (dataset) => {
    const n = ++tables;
    const queries = await seedRows(database.db, dataset, `c${n}`);
    const staging = {
      orders: { table: `c${n}_orders` },
      lines: { table: `c${n}_lines` },
      changes: { table: `c${n}_changes` },
    };
    const config = database.erpConfig({ queries, staging });
    await stagingSchema(database.db, config.staging);
    const adapter = new SqlErpAdapter(config, silentLogger());
    await adapter.open();
    return {
      adapter,
      locate: (kind, index) => ({ file: `${kind} query`, line: index + 1 }),
    };
  });

  const orderFactory: OrderExchangeFactory = async ({ events, outgoing }) => {
    const n = ++tables;
    const staging = {
      orders: { table: `o${n}_orders` },
      lines: { table: `o${n}_lines` },
      changes: { table: `o${n}_changes` },
    };
    const config = database.erpConfig({ staging });
    await stagingSchema(database.db, config.staging);
    const db = database.db;
    await db.schema.createTable(`o${n}_events`, (t) => {
      t.increments('id').primary();
      for (const c of ['order_id', 'erp_ref', 'event', 'courier', 'weight', 'parcels', 'note', 'labels'])
        t.text(c);
    });
    for (const e of events) {
      await db(`o${n}_events`).insert({
        order_id: e.orderId === undefined ? null : String(e.orderId),
        erp_ref: e.erpRef ?? null,
        event: e.event,
        courier: e.courier ?? null,
        weight: e.weight ?? null,
        parcels: e.parcels ?? null,
        note: e.note ?? null,
        labels: e.labels ? e.labels.join('|') : null,
      });
    }
    await db.schema.createTable(`o${n}_erp_orders`, (t) => {
      t.increments('id').primary();
      t.string('source_order_id', 64).notNullable();
      t.string('customer_name', 255).notNullable();
      t.string('customer_email', 255);
      t.integer('platform_order_id');
    });
    await db.schema.createTable(`o${n}_erp_lines`, (t) => {
      t.integer('order_id').notNullable();
      t.integer('line_no').notNullable();
      t.string('sku', 191).notNullable();
      t.integer('quantity').notNullable();
    });
    for (const order of outgoing) {
      const insert = db(`o${n}_erp_orders`).insert({
        source_order_id: order.sourceOrderId,
        customer_name: 'ERP customer',
        customer_email: order.customerEmail,
      });
      const [row] = (client === 'mysql' ? await insert : await insert.returning('id')) as unknown[];
      const id = typeof row === 'object' && row !== null ? (row as { id: number }).id : (row as number);
      await db(`o${n}_erp_lines`).insert(
        order.items.map((item, i) => ({ order_id: id, line_no: i + 1, ...item })),
      );
    }
    const adapter = new SqlErpAdapter(
      database.erpConfig({
        staging,
        queries: {
          events: `select id as checkpoint, order_id, erp_ref, event, courier, weight, parcels, note, labels
                   from o${n}_events where id > :after order by id`,
          outgoingOrders: `select o.id as checkpoint, o.source_order_id, o.customer_name, o.customer_email,
                                  l.sku, l.quantity
                           from o${n}_erp_orders o join o${n}_erp_lines l on l.order_id = o.id
                           where o.id > :after and o.platform_order_id is null
                           order by o.id, l.line_no`,
        },
        statements: {
          outgoingOrderCreated: `update o${n}_erp_orders set platform_order_id = :platform_order_id
                                 where source_order_id = :source_order_id`,
        },
      }),
      silentLogger(),
    );
    await adapter.open();
    return { adapter, cleanup: () => adapter.close() };
  };
  describeOrderExchangeContract(`sql adapter, ${client}`, orderFactory);
}
