import type { OutgoingOrderRepository } from '../../store/OutgoingOrderRepository.js';

/**
 * Which of these platform orders we created from the ERP (erp-orders): by platform id, or by a
 * source_order_id we hold an intent for (also when the POST's answer was lost).
 */
export function erpOriginIds(
  outgoing: OutgoingOrderRepository,
  orders: readonly { id: number; sourceOrderId: string | null }[],
): Set<number> {
  const sources = outgoing.knownSources(orders.flatMap((o) => (o.sourceOrderId ? [o.sourceOrderId] : [])));
  const out = outgoing.createdAmong(orders.map((order) => order.id));
  for (const order of orders) if (order.sourceOrderId && sources.has(order.sourceOrderId)) out.add(order.id);
  return out;
}
