import { orderRepositoriesOf } from '../store/createOrderRepositories.js';
import type { Store } from '../store/index.js';

/**
 * The ids of orders' own import jobs (`order-import`), derived from the platform order id so that
 * BullMQ itself refuses a second such job of the same order. A parked order's retry carries its
 * attempt number: a new id per retry, never refused because the earlier attempt is retained. The
 * parked orders are read at once (one query, not one per order).
 */
export function importJobIds(store: Store, orderIds: readonly number[]): Map<number, string> {
  const attempts = new Map(
    orderRepositoriesOf(store)
      .parked.list()
      .map((p) => [p.platformOrderId, p.attempts]),
  );
  return new Map(
    orderIds.map((id) => {
      const parked = attempts.get(id);
      return [id, parked === undefined ? `order-${id}` : `order-${id}-retry-${parked}`];
    }),
  );
}
