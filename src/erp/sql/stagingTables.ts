import type { Knex } from 'knex';
import type { SqlErpConfig } from './sqlConfigSchema.js';

type Staging = SqlErpConfig['staging'];

/**
 * The customer's address on the order header (nullable). Written only when the table has them:
 * staging tables created before they existed keep working (the address stays in `payload`).
 */
export const ADDRESS_COLUMNS = [
  'customer_street',
  'customer_city',
  'customer_postal_code',
  'customer_county',
  'customer_country',
] as const;

/** A staging table's name and the integrator's name for each of our columns. */
export interface TableNames<K extends string> {
  table: string;
  col: (key: K) => string;
}

export function tableNames<K extends string>(spec: {
  table: string;
  columns: Partial<Record<K, string>>;
}): TableNames<K> {
  return { table: spec.table, col: (key) => spec.columns[key] ?? key };
}

/**
 * The example staging tables: an order header unique on the platform order id (the key that
 * makes imports idempotent, also when two workers race), its lines, and the order changes
 * unique on (platform order id, seq). Money as DECIMAL(14,2), never floating point.
 */
export function stagingSchema(db: Knex, staging: Staging): Knex.SchemaBuilder {
  const o = tableNames(staging.orders);
  const l = tableNames(staging.lines);
  const c = tableNames(staging.changes);
  return db.schema
    .createTable(o.table, (t) => {
      t.increments(o.col('id')).primary();
      t.bigInteger(o.col('platform_order_id'))
        .notNullable()
        .unique({ indexName: `${o.table}_platform_uq` });
      t.string(o.col('order_number'), 64).notNullable();
      t.string(o.col('status'), 32).notNullable();
      t.string(o.col('payment_status'), 32).notNullable();
      t.string(o.col('currency'), 8).notNullable();
      t.string(o.col('customer_name'), 255).notNullable();
      t.string(o.col('customer_email'), 255);
      t.string(o.col('customer_phone'), 64);
      t.string(o.col('company_name'), 255);
      t.string(o.col('cui'), 32);
      t.string(o.col('reg_com'), 64);
      for (const part of ADDRESS_COLUMNS) t.string(o.col(part), 255);
      for (const money of ['subtotal', 'shipping_total', 'discount_total', 'tax_total', 'total'] as const) {
        t.decimal(o.col(money), 14, 2).notNullable();
      }
      t.string(o.col('placed_at'), 40).notNullable();
      t.string(o.col('imported_at'), 40).notNullable();
      t.text(o.col('payload'));
    })
    .createTable(l.table, (t) => {
      t.increments(l.col('id')).primary();
      t.integer(l.col('order_id'))
        .unsigned()
        .notNullable()
        .references(o.col('id'))
        .inTable(o.table)
        .onDelete('CASCADE');
      t.integer(l.col('line_no')).notNullable();
      t.string(l.col('sku'), 191);
      t.string(l.col('name'), 255);
      t.integer(l.col('quantity')).notNullable();
      t.decimal(l.col('unit_price'), 14, 2).notNullable();
      t.decimal(l.col('tax_rate'), 5, 2);
      t.decimal(l.col('total'), 14, 2).notNullable();
      t.unique([l.col('order_id'), l.col('line_no')], { indexName: `${l.table}_line_uq` });
    })
    .createTable(c.table, (t) => {
      t.increments(c.col('id')).primary();
      t.bigInteger(c.col('platform_order_id')).notNullable();
      t.string(c.col('erp_ref'), 64).notNullable();
      t.integer(c.col('seq')).notNullable();
      t.string(c.col('status'), 32);
      t.string(c.col('payment_status'), 32);
      t.string(c.col('previous_status'), 32);
      t.string(c.col('previous_payment_status'), 32);
      t.string(c.col('created_at'), 40).notNullable();
      t.unique([c.col('platform_order_id'), c.col('seq')], { indexName: `${c.table}_seq_uq` });
    });
}

/** The staging tables' DDL for one database, as `erp-sync erp init-staging` prints it. */
export function stagingDdl(db: Knex, staging: Staging): string {
  return stagingSchema(db, staging)
    .toSQL()
    .map((statement) => `${statement.sql};`)
    .join('\n');
}
