import type { Db } from '../db/openDatabase.js';
import { stmt, updateRow } from '../db/statements.js';
import { noUpdatableField, notFound, validationError } from '../http/apiError.js';
import { definedOnly, Fields, Issues, type Obj } from '../http/fields.js';
import { isoSeconds } from '../http/time.js';
import { syncVariableStock, touchProducts } from '../products/productRepo.js';
import { ORDER_STATUSES, PAYMENT_STATUSES, STATUS_MOVES, type OrderStatus } from './orderMath.js';
import { orderById, type ItemRow, type OrderRow } from './orderRepo.js';

/** Gives back the stock an order's lines took when it was created. */
function restock(db: Db, orderId: number, at: string): void {
  const items = stmt<[number], ItemRow>(
    db,
    'SELECT * FROM order_items WHERE order_id = ? AND stock_taken > 0',
  ).all(orderId);
  const touched = new Set<number>();
  for (const item of items) {
    if (item.variant_id !== null) {
      stmt(db, 'UPDATE variants SET stock_quantity = stock_quantity + ? WHERE id = ?').run(
        item.stock_taken,
        item.variant_id,
      );
      syncVariableStock(db, item.product_id);
    } else {
      stmt(db, 'UPDATE products SET stock_quantity = stock_quantity + ? WHERE id = ?').run(
        item.stock_taken,
        item.product_id,
      );
    }
    touched.add(item.product_id);
  }
  stmt(db, 'UPDATE order_items SET stock_taken = 0 WHERE order_id = ?').run(orderId);
  touchProducts(db, touched, at);
}

/**
 * PATCH /orders/{id}. A status move goes through the flow: allowed moves only, a history entry
 * `{from, to, note, at}`, a notification, and a restock on cancel. The same status is a no-op.
 */
export function updateOrder(db: Db, companyId: number, id: number, body: Obj): OrderRow {
  const order = orderById(db, companyId, id);
  if (!order) throw notFound('Order');
  const issues = new Issues();
  const f = new Fields(body, issues);
  const status = f.oneOf('status', ORDER_STATUSES);
  const note = f.string('note', { nullable: true, max: 500 }) ?? null;
  const columns = definedOnly({
    payment_status: f.oneOf('payment_status', PAYMENT_STATUSES),
    payment_method: f.string('payment_method', { nullable: true, max: 191 }),
    shipping_method: f.string('shipping_method', { nullable: true, max: 191 }),
    notes: f.string('notes', { nullable: true, max: 65_535 }),
  });
  const labels = f.stringArray('labels', { maxItem: 60 });
  if (labels !== undefined) columns.labels = JSON.stringify(labels);
  if (f.has('note') && !f.has('status')) issues.add('note', 'accompanies a status change: send status too');
  if (issues.count === 0 && status === undefined && Object.keys(columns).length === 0)
    throw noUpdatableField();
  const from = order.status as OrderStatus;
  if (status !== undefined && status !== from && !STATUS_MOVES[from].includes(status))
    issues.add('status', `cannot move from ${from} to ${status}`);
  issues.throwIfAny();

  const now = isoSeconds();
  if (status !== undefined && status !== from) {
    columns.status = status;
    stmt(
      db,
      'INSERT INTO order_history (order_id, from_status, to_status, note, at) VALUES (?, ?, ?, ?, ?)',
    ).run(id, from, status, note, now);
    stmt(
      db,
      'INSERT INTO notifications (company_id, order_id, type, payload, created_at) VALUES (?, ?, ?, ?, ?)',
    ).run(companyId, id, 'order.status_changed', JSON.stringify({ from, to: status, note }), now);
    if (status === 'cancelled') restock(db, id, now);
  }
  if (Object.keys(columns).length > 0) updateRow(db, 'orders', id, columns, now);
  return orderById(db, companyId, id) as OrderRow;
}

export function refuseCancelled(order: OrderRow, what: string): void {
  if (order.status === 'cancelled')
    throw validationError({ order: [`a cancelled order cannot get ${what}`] });
}
