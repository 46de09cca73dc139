import {
  ORDER_STATUSES,
  PAYMENT_STATUSES,
  type OrderStatus,
  type PaymentStatus,
} from '../../domain/limits.js';
import type { OutgoingOrder } from '../../domain/orders.js';
import { describeSource, type ErpRow, type RecordSource } from '../../domain/records.js';

/**
 * One order born in the ERP, as the ERP writes it (`source_order_id`, `customer_id` or
 * `customer {name, email, phone, company_name, cui, reg_com}`, `items [{sku, quantity,
 * unit_price?, tax_rate?}]`, optional `status`, `payment_status`, `currency`, `shipping_total`,
 * `discount_total`), to an OutgoingOrder or the reason it cannot be one; every adapter uses it.
 * A reject is keyed by its source_order_id, or by its source when it has none.
 */
export function toOutgoingOrder(raw: unknown, source: RecordSource): ErpRow<OutgoingOrder> {
  const fail = (reason: string, key = describeSource(source)): ErpRow<OutgoingOrder> => ({
    ok: false,
    key,
    reason,
    source,
  });
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return fail('not a JSON object');
  const o = raw as Record<string, unknown>;
  const sourceId = o.source_order_id;
  if ((typeof sourceId !== 'string' && typeof sourceId !== 'number') || String(sourceId).trim() === '') {
    return fail('missing source_order_id');
  }
  const sourceOrderId = String(sourceId).trim();
  const failKeyed = (reason: string) => fail(reason, sourceOrderId);
  const order: OutgoingOrder = { sourceOrderId, items: [], source };

  if (o.customer_id !== undefined && o.customer_id !== null) {
    if (!Number.isInteger(o.customer_id)) return failKeyed('customer_id is not an integer');
    order.customerId = o.customer_id as number;
  } else if (typeof o.customer === 'object' && o.customer !== null) {
    const c = o.customer as Record<string, unknown>;
    if (typeof c.name !== 'string' || c.name.trim() === '') return failKeyed('customer.name is required');
    order.customer = { name: c.name.trim() };
    for (const [from, to] of [
      ['email', 'email'],
      ['phone', 'phone'],
      ['company_name', 'companyName'],
      ['cui', 'cui'],
      ['reg_com', 'regCom'],
    ] as const) {
      if (typeof c[from] === 'string' && c[from] !== '') order.customer[to] = c[from];
    }
  } else {
    return failKeyed('customer or customer_id is required');
  }

  if (!Array.isArray(o.items) || o.items.length === 0) return failKeyed('items must hold at least one line');
  for (const [i, item] of (o.items as unknown[]).entries()) {
    if (typeof item !== 'object' || item === null) return failKeyed(`items.${i} is not an object`);
    const line = item as Record<string, unknown>;
    if (typeof line.sku !== 'string' || line.sku.trim() === '')
      return failKeyed(`items.${i}.sku is required`);
    if (!Number.isInteger(line.quantity) || (line.quantity as number) < 1) {
      return failKeyed(`items.${i}.quantity must be an integer >= 1`);
    }
    const out: OutgoingOrder['items'][number] = { sku: line.sku.trim(), quantity: line.quantity as number };
    if (typeof line.unit_price === 'number') out.unitPrice = line.unit_price;
    if (typeof line.tax_rate === 'number') out.taxRate = line.tax_rate;
    order.items.push(out);
  }
  if (o.status !== undefined) {
    if (!(ORDER_STATUSES as readonly unknown[]).includes(o.status))
      return failKeyed(`unknown status "${String(o.status)}"`);
    order.status = o.status as OrderStatus;
  }
  if (o.payment_status !== undefined) {
    if (!(PAYMENT_STATUSES as readonly unknown[]).includes(o.payment_status)) {
      return failKeyed(`unknown payment_status "${String(o.payment_status)}"`);
    }
    order.paymentStatus = o.payment_status as PaymentStatus;
  }
  if (typeof o.currency === 'string') order.currency = o.currency;
  if (typeof o.shipping_total === 'number') order.shippingTotal = o.shipping_total;
  if (typeof o.discount_total === 'number') order.discountTotal = o.discount_total;
  return { ok: true, record: order, source };
}
