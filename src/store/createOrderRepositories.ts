import type { SqlDatabase } from './sql/SqlDatabase.js';
import { AppliedEventRepository } from './AppliedEventRepository.js';
import { OrderLinkRepository } from './OrderLinkRepository.js';
import { OrderSeenRepository } from './OrderSeenRepository.js';
import { OutgoingOrderRepository } from './OutgoingOrderRepository.js';
import { ParkedOrderRepository } from './ParkedOrderRepository.js';

/** The order pipelines' part of the store (tables of ORDERS_MIGRATION). */
export interface OrderRepositories {
  links: OrderLinkRepository;
  seen: OrderSeenRepository;
  parked: ParkedOrderRepository;
  events: AppliedEventRepository;
  outgoing: OutgoingOrderRepository;
}

export function createOrderRepositories(db: SqlDatabase): OrderRepositories {
  return {
    links: new OrderLinkRepository(db),
    seen: new OrderSeenRepository(db),
    parked: new ParkedOrderRepository(db),
    events: new AppliedEventRepository(db),
    outgoing: new OutgoingOrderRepository(db),
  };
}

/** The order repositories of an open store. */
export function orderRepositoriesOf(store: { orders: OrderRepositories }): OrderRepositories {
  return store.orders;
}
