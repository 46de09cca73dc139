import { ApiValidationError, SchemaError } from '../../api/errors.js';
import type { OrderUpdateInput } from '../../api/inputs.js';
import { LIMITS, type OrderStatus, type PaymentStatus } from '../../domain/limits.js';
import type { FeedbackResult, OrderEvent } from '../../domain/orders.js';
import type { FeedbackAction } from './feedbackActions.js';
import { isRefusal } from './ordersPipelineRun.js';
import type { SyncContext } from '../frame/types.js';

/**
 * The canonical forward lifecycle of an order; `cancelled` is off it and only equals itself.
 * Platforms differ in which moves they allow along it (the spec does not publish them).
 */
export const LIFECYCLE: readonly OrderStatus[] = ['new', 'confirmed', 'processing', 'shipped', 'returned'];

/** A status move is "already passed" when the order is at the requested status or further along. */
export function statusReached(current: OrderStatus, requested: OrderStatus): boolean {
  if (current === requested) return true;
  const at = LIFECYCLE.indexOf(current);
  const wanted = LIFECYCLE.indexOf(requested);
  return at >= 0 && wanted >= 0 && at >= wanted;
}

/** The statuses strictly between `current` and `target` along the lifecycle ([] when target is not ahead). */
export function stepsTowards(current: OrderStatus, target: OrderStatus): OrderStatus[] {
  const at = LIFECYCLE.indexOf(current);
  const to = LIFECYCLE.indexOf(target);
  if (at < 0 || to <= at) return [];
  return LIFECYCLE.slice(at + 1, to);
}

/** The history note of an intermediate step: says who made it and why. */
export function stepNote(target: OrderStatus, event: OrderEvent): string {
  return `erp-sync: step towards ${target} (ERP event ${event.eventId})`.slice(0, LIMITS.orderStatusNoteMax);
}

/** What became of one feedback event's action on the platform. */
export type EventOutcome =
  | {
      kind: 'applied';
      /** direct: the action went through as asked; the others after a refused status move. */
      how: 'direct' | 'alreadyPassed' | 'walked';
      /** PATCH requests the walk made (intermediate steps plus the last); 0 otherwise. */
      steps: number;
      result: FeedbackResult;
      /** The state the ERP caused on the platform (never echoed back to it as a change). */
      delivered: { status?: OrderStatus | undefined; paymentStatus?: PaymentStatus | undefined };
    }
  /** `reached`: the status a walk left the order at before the refusal (the ERP's doing too). */
  | { kind: 'refused'; reason: string; reached?: OrderStatus };

/**
 * `PATCH /orders/{id}`, returning the order's status after it. The platform answered 2xx; an answer
 * whose shape cannot be read does not undo that, so it is taken as the status asked for.
 */
export async function updateOrder(
  ctx: SyncContext,
  orderId: number,
  input: OrderUpdateInput,
): Promise<OrderStatus | undefined> {
  try {
    return (await ctx.client.orders.update(orderId, input)).status;
  } catch (error) {
    if (!(error instanceof SchemaError)) throw error;
    ctx.logger.warn(
      { orderId, field: error.field },
      'order updated on the platform; its answer cannot be read, the status asked for is assumed',
    );
    return input.status;
  }
}

/**
 * After the platform refused an event's status move (422), decided from the order's state on the
 * platform (read again, so a redo after a crash starts where the order is):
 * - at or past the requested status: in effect applied; the event's other fields (labels, notes,
 *   payment status) are sent without the status;
 * - behind it on the lifecycle: walked forward one PATCH per step (a short erp-sync note on each
 *   intermediate step), the last PATCH being the event's own (its note, labels, payment status);
 * - off the lifecycle (cancelled): a contradiction, refused with a reason naming the state.
 * Null when the original refusal stands as it is.
 */
export async function afterRefusedMove(
  ctx: SyncContext,
  action: FeedbackAction,
  event: OrderEvent,
  orderId: number,
  error: unknown,
): Promise<EventOutcome | null> {
  if (action.type !== 'update' || !action.status || !(error instanceof ApiValidationError)) return null;
  const target = action.status;
  const current = (await ctx.client.orders.get(orderId)).status;
  const base: FeedbackResult = { eventId: event.eventId, orderId, kind: event.kind };
  if (event.erpRef) base.erpRef = event.erpRef;

  if (statusReached(current, target)) {
    const { status: _status, note: _note, ...rest } = action.input;
    let status = current;
    if (Object.keys(rest).length > 0) {
      try {
        status = (await updateOrder(ctx, orderId, rest)) ?? current;
      } catch (restError) {
        if (isRefusal(restError)) return null;
        throw restError;
      }
    }
    ctx.logger.info(
      { orderId, event: event.kind, status: current },
      'feedback status already reached on the platform; not a reject',
    );
    return {
      kind: 'applied',
      how: 'alreadyPassed',
      steps: 0,
      result: { ...base, status },
      delivered: rest.payment_status ? { paymentStatus: rest.payment_status } : {},
    };
  }

  if (!LIFECYCLE.includes(current)) {
    return {
      kind: 'refused',
      reason: `the order is ${current} on the platform; "${target}" contradicts it (${error.message})`,
    };
  }
  const steps = stepsTowards(current, target);
  if (steps.length === 0) return null;
  let reached: OrderStatus | undefined;
  for (const step of steps) {
    try {
      await updateOrder(ctx, orderId, { status: step, note: stepNote(target, event) });
      reached = step;
    } catch (stepError) {
      if (!isRefusal(stepError)) throw stepError;
      const refused = {
        kind: 'refused' as const,
        reason: `walking from ${current} towards ${target}, the platform refused ${step}: ${stepError.message}`,
      };
      return reached ? { ...refused, reached } : refused;
    }
  }
  let status: OrderStatus;
  try {
    status = (await updateOrder(ctx, orderId, action.input)) ?? target;
  } catch (lastError) {
    if (!isRefusal(lastError)) throw lastError;
    return {
      kind: 'refused',
      reason: `walked from ${current} to ${steps.at(-1)}, then the platform refused ${target}: ${lastError.message}`,
      reached: steps.at(-1)!,
    };
  }
  ctx.logger.info(
    { orderId, event: event.kind, from: current, steps: [...steps, target] },
    'feedback status reached by walking the order along its lifecycle',
  );
  return {
    kind: 'applied',
    how: 'walked',
    steps: steps.length + 1,
    result: { ...base, status },
    delivered: { status: target, paymentStatus: action.input.payment_status },
  };
}
