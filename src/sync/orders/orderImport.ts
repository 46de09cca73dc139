import { NotFoundError, SchemaError } from '../../api/errors.js';
import { toPlatformOrder } from '../../api/mappers.js';
import type { ApiOrder } from '../../api/schemas.js';
import { describeError, isErpSyncError } from '../../domain/errors.js';
import type { PlatformOrder } from '../../domain/orders.js';
import { orderRepositoriesOf } from '../../store/createOrderRepositories.js';
import { erpOriginIds } from './erpOriginIds.js';
import type { ItemCounts, SyncContext } from '../frame/types.js';
import { unitsOf } from './unitsOf.js';
import { requireErpOrderPart } from '../../erp/erpOrderPart.js';
import { recordAtOnce, type RecordOutcome } from './importWrites.js';
import { sameUnits, type KnownOrders } from './knownOrders.js';

export type ImportOutcome = 'imported' | 'already_in_erp' | 'parked' | 'skipped' | 'erp_origin' | 'gone';

/** How an import's outcome counts among the pipeline's items (inline runs and import jobs alike). */
export function importItemCounts(outcome: ImportOutcome): ItemCounts {
  if (outcome === 'imported' || outcome === 'already_in_erp') return { applied: 1 };
  if (outcome === 'parked') return { rejected: 1 };
  return {};
}

/**
 * Decides about one platform order: import through the adapter (the link is written only after
 * the adapter confirmed), park it when the ERP refuses it, or remember why it is not imported.
 * `listed` is the order in full as the list carried it; without it the order is fetched
 * (`GET /orders/{id}`), and an order whose record the platform answers in a shape that cannot be
 * read is parked with the field named (retried like any parked order). A transient failure leaves
 * it queued for the next run. `record` writes the outcome (default: a transaction of its own; an
 * import job of many orders gathers them into one). `known`: the store's links, ERP-origin orders and
 * stored lines of a job's orders, read once for the job (without it, read for this order).
 */
export async function importPlatformOrder(
  ctx: SyncContext,
  orderId: number,
  listed?: ApiOrder,
  record: RecordOutcome = recordAtOnce(ctx.store),
  known?: KnownOrders,
): Promise<ImportOutcome> {
  const repos = orderRepositoriesOf(ctx.store);
  const linked = known ? known.links.get(orderId) : repos.links.get(orderId);
  if (linked) {
    // The ERP confirmed it before (a second job for the order, after BullMQ pruned the first one's
    // id, or a poll that listed it while it was being imported): no GET, no second import.
    record(() => repos.seen.setOutcome(orderId, 'imported', linked.status, linked.platformCreatedAt));
    return 'already_in_erp';
  }
  let order: PlatformOrder;
  try {
    order = toPlatformOrder(listed ?? (await ctx.client.orders.get(orderId)));
  } catch (error) {
    if (error instanceof NotFoundError) {
      record((marks) => {
        repos.seen.setOutcome(orderId, 'skipped', null);
        marks.unpark(orderId);
      });
      return 'gone';
    }
    if (error instanceof SchemaError) return parkUnreadable(ctx, orderId, error, record);
    throw error;
  }

  const erpOrigin = known ? known.erpOrigin : erpOriginIds(repos.outgoing, [order]);
  if (erpOrigin.has(order.id)) {
    // Its units are in the ERP's stock already: no lines left for the oversell guard to hold.
    record(() => {
      repos.seen.setOutcome(order.id, 'erp_origin', order.status, order.createdAt);
      repos.links.replaceLines(order.id, []);
    });
    return 'erp_origin';
  }
  // Queued and parked orders were in an imported status when found. One that moved on since
  // (confirmed -> processing) is still a sale the ERP must get; one cancelled before the ERP ever
  // had it is not.
  const over = order.status === 'cancelled' || order.status === 'returned';
  if (over && !ctx.config.orders.importStatuses.includes(order.status)) {
    record((marks) => {
      marks.unpark(order.id);
      repos.links.replaceLines(order.id, []);
      repos.seen.setOutcome(order.id, 'skipped', order.status, order.createdAt);
      marks.resolveReject(order.id);
    });
    return 'skipped';
  }

  // Fetched lines are held for the oversell guard now, whatever the ERP answers this run.
  if (!listed) repos.links.replaceLines(order.id, unitsOf(order.items));
  let result;
  try {
    result = await requireErpOrderPart(ctx.erp, 'import').importOrder(order);
  } catch (error) {
    if (isErpSyncError(error) && error.code === 'erp_rejected') {
      const parkedAt = new Date();
      record((marks) => {
        marks.park(
          { platformOrderId: order.id, number: order.number, code: error.code, reason: error.message },
          parkedAt,
          ctx.config.orders.parkedRetryMinutes * 60_000,
        );
        repos.links.replaceLines(order.id, unitsOf(order.items));
        repos.seen.setOutcome(order.id, 'parked', order.status, order.createdAt);
        marks.reject(order.id, `parked: ${error.message}`);
      });
      ctx.logger.warn(
        { orderId: order.id, reason: describeError(error) },
        'order parked: the ERP refused it',
      );
      return 'parked';
    }
    throw error;
  }

  const units = unitsOf(order.items);
  // The poll stored the lines of the same list record: no delete and insert again at the link.
  const lines = known && sameUnits(known.lines.get(order.id), units) ? null : units;
  record((marks) => {
    repos.links.link({
      platformOrderId: order.id,
      erpRef: result.erpRef,
      number: order.number,
      status: order.status,
      paymentStatus: order.paymentStatus,
      platformCreatedAt: order.createdAt,
      lines,
    });
    repos.seen.setOutcome(order.id, 'imported', order.status, order.createdAt);
    marks.unpark(order.id);
    marks.resolveReject(order.id);
  });
  return result.alreadyImported ? 'already_in_erp' : 'imported';
}

/** The platform's record of the order cannot be read: parked with the field, so a person can look. */
function parkUnreadable(
  ctx: SyncContext,
  orderId: number,
  error: SchemaError,
  record: RecordOutcome,
): ImportOutcome {
  const repos = orderRepositoriesOf(ctx.store);
  const reason = `the platform's order record cannot be read: ${error.message}`;
  const parkedAt = new Date();
  record((marks) => {
    marks.park(
      { platformOrderId: orderId, number: null, code: error.code, reason },
      parkedAt,
      ctx.config.orders.parkedRetryMinutes * 60_000,
    );
    repos.seen.setOutcome(orderId, 'parked', null);
    marks.reject(orderId, `parked: ${reason}`);
  });
  ctx.logger.warn({ orderId, field: error.field, reason: error.message }, 'order parked: unreadable record');
  return 'parked';
}
