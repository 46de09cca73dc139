export const round2 = (x: number): number => Math.round((x + Number.EPSILON) * 100) / 100;

export interface LineInput {
  quantity: number;
  unit_price: number;
  tax_rate: number;
}

export interface Totals {
  subtotal: number;
  shipping_total: number;
  discount_total: number;
  tax_total: number;
  total: number;
}

export const lineTotal = (line: LineInput): number => round2(line.unit_price * line.quantity);

/**
 * Prices include VAT. `tax_total` is the VAT contained in the lines (rate/(100+rate) of each line
 * total); `total` = subtotal + shipping - discount.
 */
export function orderTotals(lines: LineInput[], shipping: number, discount: number): Totals {
  const subtotal = round2(lines.reduce((sum, l) => sum + lineTotal(l), 0));
  const tax = round2(lines.reduce((sum, l) => sum + (lineTotal(l) * l.tax_rate) / (100 + l.tax_rate), 0));
  return {
    subtotal,
    shipping_total: round2(shipping),
    discount_total: round2(discount),
    tax_total: tax,
    total: round2(subtotal + shipping - discount),
  };
}

export const ORDER_STATUSES = ['new', 'confirmed', 'processing', 'shipped', 'cancelled', 'returned'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
export const PAYMENT_STATUSES = ['unpaid', 'paid', 'partial', 'refunded'] as const;

/** The allowed status moves; the same status is a no-op, everything else is refused. */
export const STATUS_MOVES: Record<OrderStatus, readonly OrderStatus[]> = {
  new: ['confirmed', 'processing', 'cancelled'],
  confirmed: ['processing', 'cancelled'],
  processing: ['shipped', 'cancelled'],
  shipped: ['returned'],
  cancelled: [],
  returned: [],
};

/** The chain of statuses an order passes through to reach `status` (used by the demo seed). */
export function statusPath(status: OrderStatus): OrderStatus[] {
  switch (status) {
    case 'new':
      return ['new'];
    case 'confirmed':
      return ['new', 'confirmed'];
    case 'processing':
      return ['new', 'confirmed', 'processing'];
    case 'shipped':
      return ['new', 'confirmed', 'processing', 'shipped'];
    case 'returned':
      return ['new', 'confirmed', 'processing', 'shipped', 'returned'];
    case 'cancelled':
      return ['new', 'confirmed', 'cancelled'];
  }
}
