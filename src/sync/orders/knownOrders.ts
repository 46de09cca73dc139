import type { ApiOrder } from '../../api/schemas.js';
import type { OrderRepositories } from '../../store/createOrderRepositories.js';
import type { OrderLink, OrderUnits } from '../../store/OrderLinkRepository.js';
import { erpOriginIds } from './erpOriginIds.js';

/**
 * What the store knows of a job's orders before any is imported: read in three statements for the
 * whole job, not in two or three per order. Read before the imports, so an order another process
 * links meanwhile is not seen linked: its import then finds it in the ERP (idempotent), as before.
 */
export interface KnownOrders {
  links: Map<number, OrderLink>;
  erpOrigin: Set<number>;
  /** The lines stored for the order (the poll's, from the same list record): rewritten only when they differ. */
  lines: Map<number, OrderUnits[]>;
}

export function readKnownOrders(repos: OrderRepositories, orders: readonly ApiOrder[]): KnownOrders {
  const ids = orders.map((order) => order.id);
  return {
    links: repos.links.getMany(ids),
    erpOrigin: erpOriginIds(
      repos.outgoing,
      orders.map((order) => ({ id: order.id, sourceOrderId: order.source_order_id ?? null })),
    ),
    lines: repos.links.linesOf(ids),
  };
}

/** Whether the stored lines are these (the same units in the same order); no stored lines and none listed are the same. */
export function sameUnits(stored: readonly OrderUnits[] | undefined, units: readonly OrderUnits[]): boolean {
  const lines = stored ?? [];
  return (
    lines.length === units.length &&
    lines.every((line, i) => line.sku === units[i]!.sku && line.quantity === units[i]!.quantity)
  );
}
