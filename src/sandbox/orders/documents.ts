import type { Db } from '../db/openDatabase.js';
import { stmt } from '../db/statements.js';
import { notFound } from '../http/apiError.js';
import { Fields, Issues, type Obj } from '../http/fields.js';
import { isoSeconds } from '../http/time.js';
import { orderById, type AwbRow, type InvoiceRow } from './orderRepo.js';
import { refuseCancelled } from './updateOrder.js';

export const COURIERS = [
  'fan',
  'sameday',
  'cargus',
  'dpd',
  'gls',
  'dragonstar',
  'urgent',
  'posta',
  'other',
] as const;

/**
 * POST /orders/{id}/awb: idempotent (an existing AWB is returned with created=false). With no
 * connected courier of that name, a local test AWB numbered TEST… is issued.
 */
export function issueAwb(
  db: Db,
  companyId: number,
  orderId: number,
  body: Obj,
): { awb: AwbRow; created: boolean } {
  const order = orderById(db, companyId, orderId);
  if (!order) throw notFound('Order');
  const existing = stmt<[number], AwbRow>(db, 'SELECT * FROM awbs WHERE order_id = ?').get(orderId);
  if (existing) return { awb: existing, created: false };
  const issues = new Issues();
  const f = new Fields(body, issues);
  const courier = f.oneOf('courier', COURIERS) ?? 'fan';
  const weight = f.number('weight', { min: 0 }) ?? 1;
  const parcels = f.integer('parcels', { min: 1 }) ?? 1;
  const cod = f.number('cod_amount', { min: 0 }) ?? (order.payment_status === 'paid' ? 0 : order.total);
  issues.throwIfAny();
  refuseCancelled(order, 'an AWB');
  const connected = stmt<[number, string]>(
    db,
    "SELECT 1 FROM connections WHERE company_id = ? AND kind = 'courier' AND code = ? AND status = 'connected'",
  ).get(companyId, courier);
  const now = isoSeconds();
  const id = Number(
    stmt(
      db,
      'INSERT INTO awbs (order_id, number, courier, weight, parcels, cod_amount, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ).run(orderId, 'pending', courier, weight, parcels, cod, now).lastInsertRowid,
  );
  const number = connected
    ? `${courier.toUpperCase()}${7000000000 + id}`
    : `TEST${String(id).padStart(10, '0')}`;
  stmt(db, 'UPDATE awbs SET number = ? WHERE id = ?').run(number, id);
  stmt(db, 'UPDATE orders SET updated_at = ? WHERE id = ?').run(now, orderId);
  return {
    awb: stmt<[number], AwbRow>(db, 'SELECT * FROM awbs WHERE id = ?').get(id) as AwbRow,
    created: true,
  };
}

/** POST /orders/{id}/invoice: the company's series with its next number; idempotent. */
export function issueInvoice(
  db: Db,
  companyId: number,
  orderId: number,
): { invoice: InvoiceRow; created: boolean } {
  const order = orderById(db, companyId, orderId);
  if (!order) throw notFound('Order');
  const existing = stmt<[number], InvoiceRow>(db, 'SELECT * FROM invoices WHERE order_id = ?').get(orderId);
  if (existing) return { invoice: existing, created: false };
  refuseCancelled(order, 'an invoice');
  const series = stmt<[number], { invoice_series: string; next_invoice_number: number }>(
    db,
    'UPDATE companies SET next_invoice_number = next_invoice_number + 1 WHERE id = ? RETURNING invoice_series, next_invoice_number',
  ).get(companyId);
  const now = isoSeconds();
  const id = stmt(
    db,
    'INSERT INTO invoices (order_id, series, number, total, issued_at) VALUES (?, ?, ?, ?, ?)',
  ).run(
    orderId,
    series?.invoice_series ?? 'INV',
    (series?.next_invoice_number ?? 2) - 1,
    order.total,
    now,
  ).lastInsertRowid;
  stmt(db, 'UPDATE orders SET updated_at = ? WHERE id = ?').run(now, orderId);
  return {
    invoice: stmt<[number], InvoiceRow>(db, 'SELECT * FROM invoices WHERE id = ?').get(
      Number(id),
    ) as InvoiceRow,
    created: true,
  };
}
