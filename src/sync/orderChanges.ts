import type { OrderStatus, PaymentStatus } from '../domain/limits.js';
import type { OrderChange } from '../domain/orders.js';
import type { OrderLink, PendingOrderChange } from '../store/OrderLinkRepository.js';

/**
 * The next change of an imported order to deliver to the ERP: a change left pending by a killed
 * run first (the same seq again, so the ERP gets it once), otherwise the difference between the
 * state the ERP last received and the platform's current state. Null when the ERP is up to date.
 */
export function nextOrderChange(
  link: OrderLink,
  current: { status: OrderStatus; paymentStatus: PaymentStatus },
): PendingOrderChange | null {
  if (link.pendingChange) return link.pendingChange;
  if (link.status === current.status && link.paymentStatus === current.paymentStatus) return null;
  return { seq: link.changeSeq + 1, status: current.status, paymentStatus: current.paymentStatus };
}

/** The change as the ERP adapter receives it: only what moved, with what it moved from. */
export function toOrderChange(link: OrderLink, pending: PendingOrderChange): OrderChange {
  const change: OrderChange = { orderId: link.platformOrderId, erpRef: link.erpRef, seq: pending.seq };
  if (pending.status !== link.status) {
    change.status = pending.status;
    change.previousStatus = link.status;
  }
  if (pending.paymentStatus !== link.paymentStatus) {
    change.paymentStatus = pending.paymentStatus;
    change.previousPaymentStatus = link.paymentStatus;
  }
  return change;
}
