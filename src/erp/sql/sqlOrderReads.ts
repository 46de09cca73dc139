import type { OrderEvent, OutgoingOrder } from '../../domain/orders.js';
import type { RecordSource } from '../../domain/records.js';
import type { Checkpointed } from '../ErpAdapter.js';
import { toOrderEvent } from '../mapping/toOrderEvent.js';
import { toOutgoingOrder } from '../mapping/toOutgoingOrder.js';
import type { SqlErpConfig } from './sqlConfigSchema.js';
import { SqlQueryError } from './SqlErpError.js';
import { streamQuery, type QuerySource } from './streamQuery.js';

/** Fulfilment facts from the `events` query, after the checkpoint; each row carries its own. */
export async function* sqlOrderEvents(
  source: QuerySource,
  config: SqlErpConfig,
  checkpoint: string | null,
): AsyncIterable<Checkpointed<OrderEvent>> {
  const sql = config.queries.events;
  if (!sql) return;
  const after = checkpoint ?? config.initialCheckpoint;
  for await (const batch of streamQuery(source, 'events', sql, { after })) {
    for (const item of batch) {
      const source: RecordSource = { file: 'events query', line: item.line };
      yield {
        row: toOrderEvent(item.fields, source, config.decimalComma),
        checkpoint: checkpointOf(config, 'events', item.fields),
      };
    }
  }
}

const ORDER_FIELDS = [
  'customer_id',
  'status',
  'payment_status',
  'currency',
  'shipping_total',
  'discount_total',
] as const;
const CUSTOMER_FIELDS = ['name', 'email', 'phone', 'company_name', 'cui', 'reg_com'] as const;
/** Company fields may come without the `customer_` prefix. */
const UNPREFIXED = new Set<string>(['company_name', 'cui', 'reg_com']);
const NUMERIC = new Set([
  'customer_id',
  'shipping_total',
  'discount_total',
  'quantity',
  'unit_price',
  'tax_rate',
]);

/**
 * Orders born in the ERP from the `outgoingOrders` query: one row per order line, ordered by the
 * checkpoint column and the order, so that consecutive rows with the same `source_order_id` make
 * one order. The order's checkpoint is its rows' (one checkpoint per order).
 */
export async function* sqlOutgoingOrders(
  source: QuerySource,
  config: SqlErpConfig,
  checkpoint: string | null,
): AsyncIterable<Checkpointed<OutgoingOrder>> {
  const sql = config.queries.outgoingOrders;
  if (!sql) return;
  let current: { id: string; object: Record<string, unknown>; line: number; checkpoint: string } | undefined;
  const finish = (): Checkpointed<OutgoingOrder> => {
    const source: RecordSource = { file: 'outgoingOrders query', line: current!.line };
    return { row: toOutgoingOrder(current!.object, source), checkpoint: current!.checkpoint };
  };
  for await (const batch of streamQuery(source, 'outgoingOrders', sql, {
    after: checkpoint ?? config.initialCheckpoint,
  })) {
    for (const item of batch) {
      const row = numeric(item.fields);
      const id =
        row.source_order_id === undefined || row.source_order_id === null ? '' : String(row.source_order_id);
      if (!current || current.id !== id) {
        if (current) yield finish();
        current = {
          id,
          object: orderObject(row),
          line: item.line,
          checkpoint: checkpointOf(config, 'outgoingOrders', row),
        };
      }
      (current.object.items as unknown[]).push(lineObject(row));
    }
  }
  if (current) yield finish();
}

function orderObject(row: Record<string, unknown>): Record<string, unknown> {
  const order: Record<string, unknown> = { source_order_id: row.source_order_id, items: [] };
  for (const field of ORDER_FIELDS)
    if (row[field] !== null && row[field] !== undefined) order[field] = row[field];
  if (order.customer_id === undefined) {
    const customer: Record<string, unknown> = {};
    for (const field of CUSTOMER_FIELDS) {
      const value = row[`customer_${field}`] ?? (UNPREFIXED.has(field) ? row[field] : undefined);
      if (value !== null && value !== undefined) customer[field] = String(value);
    }
    order.customer = customer;
  }
  return order;
}

function lineObject(row: Record<string, unknown>): Record<string, unknown> {
  const line: Record<string, unknown> = { sku: row.sku, quantity: row.quantity };
  if (row.unit_price !== null && row.unit_price !== undefined) line.unit_price = row.unit_price;
  if (row.tax_rate !== null && row.tax_rate !== undefined) line.tax_rate = row.tax_rate;
  return line;
}

/** DECIMAL and BIGINT columns arrive as text: numbers where the order fields are numbers. */
function numeric(row: Record<string, unknown>): Record<string, unknown> {
  const out = { ...row };
  for (const key of NUMERIC) {
    const value = out[key];
    if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)))
      out[key] = Number(value);
  }
  return out;
}

function checkpointOf(config: SqlErpConfig, query: string, row: Record<string, unknown>): string {
  const value = row[config.checkpointColumn];
  if (value === undefined || value === null) {
    throw new SqlQueryError(
      `the ${query} query must return the checkpoint column "${config.checkpointColumn}" in every row (erp.checkpointColumn)`,
    );
  }
  return String(value);
}
