import type { Db } from '../db/openDatabase.js';
import { stmt } from '../db/statements.js';
import { customersByIds, serializeCustomer } from '../customers/customerRepo.js';

export interface OrderRow {
  id: number;
  company_id: number;
  number: string;
  status: string;
  payment_status: string;
  currency: string;
  source_order_id: string | null;
  customer_id: number;
  subtotal: number;
  shipping_total: number;
  discount_total: number;
  tax_total: number;
  total: number;
  payment_method: string | null;
  shipping_method: string | null;
  notes: string | null;
  labels: string;
  created_at: string;
  updated_at: string;
}

export interface ItemRow {
  id: number;
  order_id: number;
  product_id: number;
  variant_id: number | null;
  sku: string;
  name: string;
  quantity: number;
  unit_price: number;
  tax_rate: number;
  total: number;
  stock_taken: number;
}

export interface AwbRow {
  order_id: number;
  number: string;
  courier: string;
  weight: number;
  parcels: number;
  cod_amount: number;
  created_at: string;
}

export interface InvoiceRow {
  order_id: number;
  series: string;
  number: number;
  total: number;
  issued_at: string;
}

const IN_IDS = 'IN (SELECT value FROM json_each(?))';

export function orderById(db: Db, companyId: number, id: number): OrderRow | undefined {
  return stmt<[number, number], OrderRow>(db, 'SELECT * FROM orders WHERE id = ? AND company_id = ?').get(
    id,
    companyId,
  );
}

export const serializeAwb = (a: AwbRow): Record<string, unknown> => ({
  number: a.number,
  courier: a.courier,
  weight: a.weight,
  parcels: a.parcels,
  cod_amount: a.cod_amount,
  created_at: a.created_at,
});

export const serializeInvoice = (i: InvoiceRow): Record<string, unknown> => ({
  series: i.series,
  number: i.number,
  total: i.total,
  issued_at: i.issued_at,
});

function byOrder<T extends { order_id: number }>(rows: T[]): Map<number, T[]> {
  const map = new Map<number, T[]>();
  for (const r of rows) map.set(r.order_id, [...(map.get(r.order_id) ?? []), r]);
  return map;
}

/** Full order records; relations are loaded with one query each for the whole page. */
export function serializeOrders(db: Db, rows: OrderRow[]): Record<string, unknown>[] {
  if (rows.length === 0) return [];
  const ids = JSON.stringify(rows.map((r) => r.id));
  const items = byOrder(
    stmt<[string], ItemRow>(db, `SELECT * FROM order_items WHERE order_id ${IN_IDS} ORDER BY id`).all(ids),
  );
  const history = byOrder(
    stmt<
      [string],
      { order_id: number; from_status: string | null; to_status: string; note: string | null; at: string }
    >(
      db,
      `SELECT order_id, from_status, to_status, note, at FROM order_history WHERE order_id ${IN_IDS} ORDER BY id`,
    ).all(ids),
  );
  const awbs = new Map(
    stmt<[string], AwbRow>(db, `SELECT * FROM awbs WHERE order_id ${IN_IDS}`)
      .all(ids)
      .map((a) => [a.order_id, a]),
  );
  const invoices = new Map(
    stmt<[string], InvoiceRow>(db, `SELECT * FROM invoices WHERE order_id ${IN_IDS}`)
      .all(ids)
      .map((i) => [i.order_id, i]),
  );
  const customers = customersByIds(db, [...new Set(rows.map((r) => r.customer_id))]);
  return rows.map((o) => {
    const customer = customers.get(o.customer_id);
    const awb = awbs.get(o.id);
    const invoice = invoices.get(o.id);
    return {
      id: o.id,
      number: o.number,
      status: o.status,
      payment_status: o.payment_status,
      currency: o.currency,
      source_order_id: o.source_order_id,
      customer_id: o.customer_id,
      customer: customer ? serializeCustomer(customer) : null,
      items: (items.get(o.id) ?? []).map((i) => ({
        id: i.id,
        product_id: i.product_id,
        variant_id: i.variant_id,
        sku: i.sku,
        name: i.name,
        quantity: i.quantity,
        unit_price: i.unit_price,
        tax_rate: i.tax_rate,
        total: i.total,
      })),
      subtotal: o.subtotal,
      shipping_total: o.shipping_total,
      discount_total: o.discount_total,
      tax_total: o.tax_total,
      total: o.total,
      payment_method: o.payment_method,
      shipping_method: o.shipping_method,
      notes: o.notes,
      labels: JSON.parse(o.labels) as string[],
      history: (history.get(o.id) ?? []).map((h) => ({
        from: h.from_status,
        to: h.to_status,
        note: h.note,
        at: h.at,
      })),
      awb: awb ? serializeAwb(awb) : null,
      invoice: invoice ? serializeInvoice(invoice) : null,
      created_at: o.created_at,
      updated_at: o.updated_at,
    };
  });
}

export const serializeOrder = (db: Db, row: OrderRow): Record<string, unknown> =>
  serializeOrders(db, [row])[0] ?? {};
