import { toPlatformOrder } from '../../api/mappers.js';
import type { ApiOrder } from '../../api/schemas.js';
import { isErpSyncError } from '../../domain/errors.js';
import type { OrderStatus } from '../../domain/limits.js';
import type { PlatformOrder } from '../../domain/orders.js';
import { orderRepositoriesOf } from '../../store/createOrderRepositories.js';
import type { OrderLink, PendingOrderChange } from '../../store/OrderLinkRepository.js';
import { nextOrderChange, toOrderChange, withoutErpCaused, type OrderState } from './orderChanges.js';
import type { SyncContext } from '../frame/types.js';
import { requireErpOrderPart } from '../../erp/erpOrderPart.js';

/** States after which nothing more is expected from the platform for an order. */
const FINAL: readonly OrderStatus[] = ['cancelled', 'returned'];

export type CurrentState = OrderState;

/**
 * Brings the ERP up to date with an imported order's platform state, one update per change.
 * The change is recorded as pending before the adapter is called and committed after, so a run
 * killed in between delivers the same change (same seq, same file) again, never a second one.
 * Returns the number of changes delivered. `order` is fetched in full only when something changed.
 *
 * Echo guard: `listed` was read from the platform after the store's feedback sequence stood at
 * `mark`. An order feedback touched since (link's guardSeq above it) is left to the next poll,
 * since the listed state may predate what the ERP itself caused; states an ERP event in flight is
 * causing are not changes (withoutErpCaused); and the pending change is recorded only if feedback
 * did not touch the order between the link's read and that write (setPendingChange).
 */
export async function deliverOrderChanges(
  ctx: SyncContext,
  orderId: number,
  listed: CurrentState,
  mark: number,
  full?: ApiOrder,
): Promise<number> {
  const links = orderRepositoriesOf(ctx.store).links;
  let link = links.get(orderId);
  if (!link) return 0;
  let order: PlatformOrder | undefined;
  const fetchOrder = async () => (order ??= toPlatformOrder(full ?? (await ctx.client.orders.get(orderId))));
  let delivered = 0;
  if (link.pendingChange) {
    // Left pending by a killed run: delivered again as it is (same seq), whatever came since.
    await deliver(ctx, link, link.pendingChange, await fetchOrder());
    delivered += 1;
    link = links.get(orderId)!;
  }
  if (link.guardSeq > mark || !nextOrderChange(link, withoutErpCaused(link, listed))) return delivered;
  const latest = await fetchOrder();
  const current = withoutErpCaused(link, { status: latest.status, paymentStatus: latest.paymentStatus });
  const pending = nextOrderChange(link, current);
  if (!pending) return delivered;
  if (!links.setPendingChange(orderId, pending, link.guardSeq)) {
    ctx.logger.debug({ orderId }, 'order touched by feedback meanwhile; its change is decided next poll');
    return delivered;
  }
  await deliver(ctx, links.get(orderId)!, pending, latest);
  return delivered + 1;
}

/** One pending change to the adapter, then committed (a refusal by the ERP is a reject, and done). */
async function deliver(
  ctx: SyncContext,
  link: OrderLink,
  pending: PendingOrderChange,
  order: PlatformOrder,
): Promise<void> {
  const links = orderRepositoriesOf(ctx.store).links;
  try {
    await requireErpOrderPart(ctx.erp, 'import').updateOrder(order, toOrderChange(link, pending));
  } catch (error) {
    // The ERP answered no (e.g. a sale already shipping cannot be cancelled): final, not retried.
    // The refusal is a reject a person sees; the change is done with, so it is not delivered again.
    if (!isErpSyncError(error) || error.code !== 'erp_rejected') throw error;
    ctx.store.rejects.record({
      pipeline: 'orders',
      key: String(link.platformOrderId),
      reason: `the ERP refused the change to ${pending.status ?? pending.paymentStatus}: ${error.message}`,
    });
    ctx.logger.warn(
      { orderId: link.platformOrderId, seq: pending.seq, err: error.message },
      'order change refused by the ERP',
    );
  }
  links.commitChange(link.platformOrderId, pending);
  ctx.logger.info(
    {
      orderId: link.platformOrderId,
      seq: pending.seq,
      status: pending.status,
      paymentStatus: pending.paymentStatus,
    },
    'order change delivered to the ERP',
  );
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
  const mark = orderRepositoriesOf(ctx.store).links.guardMark();
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
      if (!openLinks.has(order.id) || !remaining.has(order.id)) continue;
      remaining.delete(order.id);
      delivered += await deliverOrderChanges(
        ctx,
        order.id,
        { status: order.status, paymentStatus: order.payment_status },
        mark,
      );
    }
    if (remaining.size === 0) break;
  }
  return { delivered, pagesRead };
}
