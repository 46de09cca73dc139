import type { OrderStatus, PaymentStatus } from '../../domain/limits.js';
import type { OrderChange } from '../../domain/orders.js';
import type { OrderLink, PendingOrderChange } from '../../store/OrderLinkRepository.js';
import { LIFECYCLE } from './lifecycleWalk.js';

export interface OrderState {
  status: OrderStatus;
  paymentStatus: PaymentStatus;
}

/**
 * The next change of an imported order to deliver to the ERP: a change left pending by a killed
 * run first (the same seq again, so the ERP gets it once), otherwise the difference between the
 * state the ERP last received and the platform's current state. Null when the ERP is up to date.
 */
export function nextOrderChange(link: OrderLink, current: OrderState): PendingOrderChange | null {
  if (link.pendingChange) return link.pendingChange;
  if (link.status === current.status && link.paymentStatus === current.paymentStatus) return null;
  return {
    seq: link.changeSeq + 1,
    status: current.status,
    paymentStatus: current.paymentStatus,
    fromStatus: link.status,
    fromPaymentStatus: link.paymentStatus,
  };
}

/**
 * The platform's state with what an ERP event in flight is causing taken out (echo guard): while
 * feedback walks an order towards the ERP's status, every status on the way there (`confirmed`,
 * `processing` on the way to `shipped`) and the status itself are the ERP's own, as is the payment
 * status it asked for; such a field reads as the ERP has it. Anything else (the merchant cancels
 * meanwhile) is a platform-side change and stays.
 */
export function withoutErpCaused(link: OrderLink, current: OrderState): OrderState {
  const intent = link.erpIntent;
  if (!intent) return current;
  const out = { ...current };
  if (intent.status && onTheWay(link.status, current.status, intent.status)) out.status = link.status;
  if (intent.paymentStatus && current.paymentStatus === intent.paymentStatus)
    out.paymentStatus = link.paymentStatus;
  return out;
}

/** Whether `status` is `target`, or lies after `from` and before `target` on the lifecycle. */
function onTheWay(from: OrderStatus, status: OrderStatus, target: OrderStatus): boolean {
  if (status === target) return true;
  const at = LIFECYCLE.indexOf(status);
  return at >= 0 && at > LIFECYCLE.indexOf(from) && at < LIFECYCLE.indexOf(target);
}

/** The change as the ERP adapter receives it: only what moved, with what it moved from. */
export function toOrderChange(link: OrderLink, pending: PendingOrderChange): OrderChange {
  const change: OrderChange = { orderId: link.platformOrderId, erpRef: link.erpRef, seq: pending.seq };
  const fromStatus = pending.fromStatus ?? link.status;
  const fromPayment = pending.fromPaymentStatus ?? link.paymentStatus;
  if (pending.status !== fromStatus) {
    change.status = pending.status;
    change.previousStatus = fromStatus;
  }
  if (pending.paymentStatus !== fromPayment) {
    change.paymentStatus = pending.paymentStatus;
    change.previousPaymentStatus = fromPayment;
  }
  return change;
}
