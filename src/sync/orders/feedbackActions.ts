import type { AwbInput, OrderUpdateInput } from '../../api/inputs.js';
import type { Courier, OrderStatus } from '../../domain/limits.js';
import { LIMITS } from '../../domain/limits.js';
import type { OrderEvent } from '../../domain/orders.js';

/** What one ERP event does on the platform. */
export type FeedbackAction =
  | { type: 'update'; input: OrderUpdateInput; status?: OrderStatus }
  | { type: 'awb'; input: AwbInput }
  | { type: 'invoice' };

const STATUS_EVENTS: Partial<Record<OrderEvent['kind'], OrderStatus>> = {
  confirmed: 'confirmed',
  processing: 'processing',
  shipped: 'shipped',
  cancelled: 'cancelled',
  returned: 'returned',
};

/**
 * Maps an ERP event to its API action. Each action is idempotent in effect on the platform
 * (the same status is a no-op, AWB and invoice return the existing document), which is what makes
 * a redo after a crash between the call and the store's record harmless.
 */
export function feedbackActionFor(event: OrderEvent, defaultCourier: Courier): FeedbackAction {
  const status = STATUS_EVENTS[event.kind];
  if (status) {
    const input: OrderUpdateInput = { status };
    if (event.note) input.note = event.note.slice(0, LIMITS.orderStatusNoteMax);
    addCommon(input, event);
    return { type: 'update', input, status };
  }
  if (event.kind === 'paid') {
    const input: OrderUpdateInput = { payment_status: event.paymentStatus ?? 'paid' };
    addCommon(input, event);
    return { type: 'update', input };
  }
  if (event.kind === 'awb') {
    const input: AwbInput = { courier: event.courier ?? defaultCourier };
    if (event.weight !== undefined) input.weight = event.weight;
    if (event.parcels !== undefined) input.parcels = event.parcels;
    if (event.codAmount !== undefined) input.cod_amount = event.codAmount;
    return { type: 'awb', input };
  }
  return { type: 'invoice' };
}

function addCommon(input: OrderUpdateInput, event: OrderEvent): void {
  if (event.labels && event.labels.length > 0)
    input.labels = event.labels.map((l) => l.slice(0, LIMITS.orderLabelMax));
  if (event.notes) input.notes = event.notes;
  if (event.paymentStatus && input.payment_status === undefined) input.payment_status = event.paymentStatus;
}
