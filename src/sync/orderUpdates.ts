import { toPlatformOrder } from '../api/mappers.js';
import type { ApiOrder } from '../api/schemas.js';
import { isErpSyncError } from '../domain/errors.js';
import type { OrderStatus, PaymentStatus } from '../domain/limits.js';
import { orderRepositoriesOf } from '../store/createOrderRepositories.js';
import type { OrderLink } from '../store/OrderLinkRepository.js';
import { nextOrderChange, toOrderChange } from './orderChanges.js';
import type { SyncContext } from './types.js';

/** States after which nothing more is expected from the platform for an order. */
const FINAL: readonly OrderStatus[] = ['cancelled', 'returned'];

export interface CurrentState {
  status: OrderStatus;
  paymentStatus: PaymentStatus;
}

/**
 * Brings the ERP up to date with an imported order's platform state, one update per change.
 * The change is recorded as pending before the adapter is called and committed after, so a run
 * killed in between delivers the same change (same seq, same file) again, never a second one.
 * Returns the number of changes delivered. `order` is fetched in full only when something changed.
 */
export async function deliverOrderChanges(
  ctx: SyncContext,
  link: OrderLink,
  current: CurrentState,
  full?: ApiOrder,
): Promise<number> {
  const links = orderRepositoriesOf(ctx.store).links;
  let pending = nextOrderChange(link, current);
  if (!pending) return 0;
  const order = toPlatformOrder(full ?? (await ctx.client.orders.get(link.platformOrderId)));
  const latest: CurrentState = { status: order.status, paymentStatus: order.paymentStatus };
  let delivered = 0;
  let state = link;
  pending = nextOrderChange(state, latest);
  while (pending) {
    if (!state.pendingChange) links.setPendingChange(state.platformOrderId, pending);
    try {
      await ctx.erp.updateOrder(order, toOrderChange(state, pending));
    } catch (error) {
      // The ERP answered no (e.g. a sale already shipping cannot be cancelled): final, not retried.
      // The refusal is a reject a person sees; the change is done with, so it is not delivered again.
      if (!isErpSyncError(error) || error.code !== 'erp_rejected') throw error;
      ctx.store.rejects.record({
        pipeline: 'orders',
        key: String(state.platformOrderId),
        reason: `the ERP refused the change to ${pending.status ?? pending.paymentStatus}: ${error.message}`,
      });
      ctx.logger.warn(
        { orderId: state.platformOrderId, seq: pending.seq, err: error.message },
        'order change refused by the ERP',
      );
    }
    links.commitChange(state.platformOrderId, pending);
    delivered += 1;
    ctx.logger.info(
      {
        orderId: state.platformOrderId,
        seq: pending.seq,
        status: pending.status,
        paymentStatus: pending.paymentStatus,
      },
      'order change delivered to the ERP',
    );
    state = links.get(state.platformOrderId)!;
    pending = nextOrderChange(state, latest);
  }
  return delivered;
}

/** Whether a linked order may still change in a way the ERP must hear about. */
export function isOpen(link: OrderLink): boolean {
  return !FINAL.includes(link.status) || link.pendingChange !== null;
}

/**
 * Compares linked orders with the platform, reading the order list from its newest end until
 * every open link imported within the look-back window has been seen. Used on a schedule (and
 * with --full); the import poll already checks the orders on the pages it reads for free.
 */
export async function sweepOrderChanges(
  ctx: SyncContext,
  openLinks: Map<number, OrderLink>,
): Promise<{ delivered: number; pagesRead: number }> {
  let delivered = 0;
  let pagesRead = 0;
  if (openLinks.size === 0) return { delivered, pagesRead };
  const remaining = new Set(openLinks.keys());
  const first = await ctx.client.orders.list({ per_page: 100, page: 1 });
  pagesRead += 1;
  const last = Math.max(1, first.meta.last_page);
  const firstIds = first.data.map((o) => o.id);
  const newestFirst = firstIds.length < 2 || firstIds[0]! > firstIds[firstIds.length - 1]!;
  const pages = newestFirst
    ? Array.from({ length: last }, (_, i) => i + 1)
    : Array.from({ length: last }, (_, i) => last - i);
  for (const page of pages) {
    const data = page === 1 ? first.data : (await ctx.client.orders.list({ per_page: 100, page })).data;
    if (page !== 1) pagesRead += 1;
    for (const order of data) {
      const link = openLinks.get(order.id);
      if (!link || !remaining.has(order.id)) continue;
      remaining.delete(order.id);
      delivered += await deliverOrderChanges(ctx, link, {
        status: order.status,
        paymentStatus: order.payment_status,
      });
    }
    if (remaining.size === 0) break;
  }
  return { delivered, pagesRead };
}
