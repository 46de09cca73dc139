import { orderRepositoriesOf } from '../store/createOrderRepositories.js';
import type { Store } from '../store/index.js';

/**
 * The id of an order's own import job (`order-import`), derived from the platform order id so that
 * BullMQ itself refuses a second such job of the same order. A parked order's retry carries its
 * attempt number: a new id per retry, never refused because the earlier attempt is retained.
 */
export function importJobId(store: Store, orderId: number): string {
  const parked = orderRepositoriesOf(store).parked.get(orderId);
  return parked ? `order-${orderId}-retry-${parked.attempts}` : `order-${orderId}`;
}
