import type { OrderCustomer, OrderLine, PlatformOrder } from '../domain/orders.js';
import { customerAddressOf } from './customerAddress.js';
import type { ApiOrder, ApiOrderItem, ApiOrderSummary } from './schemas.js';

const orNull = <T>(value: T | null | undefined): T | null => value ?? null;

function toLine(item: ApiOrderItem): OrderLine {
  return {
    productId: orNull(item.product_id),
    variantId: orNull(item.variant_id),
    sku: orNull(item.sku),
    name: orNull(item.name),
    quantity: item.quantity,
    unitPrice: item.unit_price,
    taxRate: orNull(item.tax_rate),
    total: item.total,
  };
}

function toCustomer(order: ApiOrder): OrderCustomer {
  const customer = order.customer ?? {};
  return {
    id: customer.id ?? order.customer_id ?? null,
    name: customer.name ?? '',
    email: orNull(customer.email),
    phone: orNull(customer.phone),
    companyName: orNull(customer.company_name),
    cui: orNull(customer.cui),
    regCom: orNull(customer.reg_com),
    address: customerAddressOf(order),
  };
}

/** An API order (validated by apiOrderSchema) as the daemon works with it; `raw` is the record as received. */
export function toPlatformOrder(order: ApiOrder): PlatformOrder {
  return {
    id: order.id,
    number: String(order.number),
    status: order.status,
    paymentStatus: order.payment_status,
    currency: order.currency,
    sourceOrderId: orNull(order.source_order_id),
    customer: toCustomer(order),
    items: order.items.map(toLine),
    subtotal: order.subtotal,
    shippingTotal: order.shipping_total,
    discountTotal: order.discount_total,
    taxTotal: order.tax_total,
    total: order.total,
    awbNumber: order.awb ? String(order.awb.number) : null,
    invoiceNumber: order.invoice ? String(order.invoice.number) : null,
    createdAt: order.created_at,
    updatedAt: order.updated_at,
    raw: order,
  };
}

/**
 * The record as a full order when it carries its lines and totals (a list of full orders, as the
 * sandbox answers), else null: the caller then fetches `GET /orders/{id}`.
 */
export function fullOrder(order: ApiOrderSummary): ApiOrder | null {
  // The summary schema checked every field's type already: what apiOrderSchema asks beyond it is
  // only that these are there, so no second parse of each listed order (mappers.test.ts holds
  // the two to the same answer).
  const full =
    order.items != null &&
    order.number != null &&
    order.currency != null &&
    order.updated_at != null &&
    FULL_ORDER_TOTALS.every((field) => order[field] != null);
  return full ? (order as ApiOrder) : null;
}

/** The totals a full order carries and a summary may leave out. */
const FULL_ORDER_TOTALS = ['subtotal', 'shipping_total', 'discount_total', 'tax_total', 'total'] as const;
