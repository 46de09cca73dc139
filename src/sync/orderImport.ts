import { NotFoundError } from '../api/errors.js';
import { toPlatformOrder } from '../api/mappers.js';
import { describeError, isErpSyncError } from '../domain/errors.js';
import type { PlatformOrder } from '../domain/orders.js';
import { orderRepositoriesOf } from '../store/createOrderRepositories.js';
import type { SyncContext } from './types.js';

export type ImportOutcome = 'imported' | 'already_in_erp' | 'parked' | 'skipped' | 'erp_origin' | 'gone';

/** Units per SKU of an order's lines, as the oversell guard counts them. */
export function unitsOf(order: PlatformOrder): { sku: string; quantity: number }[] {
  return order.items.filter((line) => line.sku).map((line) => ({ sku: line.sku!, quantity: line.quantity }));
}

/**
 * Fetches one platform order in full and decides about it: import through the adapter (the link
 * is written only after the adapter confirmed), park it when the ERP refuses it, or remember why
 * it is not imported. A transient failure leaves it queued for the next run.
 */
export async function importPlatformOrder(ctx: SyncContext, orderId: number): Promise<ImportOutcome> {
  const repos = orderRepositoriesOf(ctx.store);
  let order: PlatformOrder;
  try {
    order = toPlatformOrder(await ctx.client.orders.get(orderId));
  } catch (error) {
    if (error instanceof NotFoundError) {
      ctx.store.transaction(() => {
        repos.seen.setOutcome(orderId, 'skipped', null);
        repos.parked.unpark(orderId);
      });
      return 'gone';
    }
    throw error;
  }

  if (isErpOrigin(ctx, order)) {
    // Its units are in the ERP's stock already: no lines left for the oversell guard to hold.
    ctx.store.transaction(() => {
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
    ctx.store.transaction(() => {
      repos.parked.unpark(order.id);
      repos.links.replaceLines(order.id, []);
      repos.seen.setOutcome(order.id, 'skipped', order.status, order.createdAt);
      ctx.store.rejects.resolve('orders', String(order.id));
    });
    return 'skipped';
  }

  let result;
  try {
    result = await ctx.erp.importOrder(order);
  } catch (error) {
    if (isErpSyncError(error) && error.code === 'erp_rejected') {
      ctx.store.transaction(() => {
        repos.parked.park(
          { platformOrderId: order.id, number: order.number, code: error.code, reason: error.message },
          new Date(),
          ctx.config.orders.parkedRetryMinutes * 60_000,
        );
        repos.links.replaceLines(order.id, unitsOf(order));
        repos.seen.setOutcome(order.id, 'parked', order.status, order.createdAt);
        ctx.store.rejects.record({
          pipeline: 'orders',
          key: String(order.id),
          reason: `parked: ${error.message}`,
        });
      });
      ctx.logger.warn(
        { orderId: order.id, reason: describeError(error) },
        'order parked: the ERP refused it',
      );
      return 'parked';
    }
    throw error;
  }

  ctx.store.transaction(() => {
    repos.links.link({
      platformOrderId: order.id,
      erpRef: result.erpRef,
      number: order.number,
      status: order.status,
      paymentStatus: order.paymentStatus,
      platformCreatedAt: order.createdAt,
      lines: unitsOf(order),
    });
    repos.seen.setOutcome(order.id, 'imported', order.status, order.createdAt);
    repos.parked.unpark(order.id);
    ctx.store.rejects.resolve('orders', String(order.id));
  });
  return result.alreadyImported ? 'already_in_erp' : 'imported';
}

function isErpOrigin(ctx: SyncContext, order: PlatformOrder): boolean {
  const outgoing = orderRepositoriesOf(ctx.store).outgoing;
  if (outgoing.byPlatformOrderId(order.id)) return true;
  return order.sourceOrderId !== null && outgoing.knownSources([order.sourceOrderId]).size > 0;
}
