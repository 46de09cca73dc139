import { orderRepositoriesOf } from '../../store/createOrderRepositories.js';
import type { Store } from '../../store/index.js';

/**
 * The marks an import takes off an order that went through (or is no longer to be imported): its
 * parked row and its open reject, and the ones it puts on an order the ERP refused.
 */
export interface OrderMarks {
  park(
    order: { platformOrderId: number; number: string | null; code: string; reason: string },
    parkedAt: Date,
    baseDelayMs: number,
  ): void;
  unpark(orderId: number): void;
  reject(orderId: number, reason: string): void;
  resolveReject(orderId: number): void;
}

/**
 * Where an import records its outcome in the store: each in its own transaction by default, or
 * gathered by ImportWrites and written for many orders in one.
 */
export type RecordOutcome = (write: (marks: OrderMarks) => void) => void;

type MarkStore = Pick<Store, 'transaction' | 'rejects' | 'orders'>;

/** Each outcome in a transaction of its own. */
export const recordAtOnce =
  (store: MarkStore): RecordOutcome =>
  (write) =>
    store.transaction(() => write(storeMarks(store)));

/** Every mark written as asked. */
function storeMarks(store: MarkStore, skip?: { parked: Set<number>; rejected: Set<string> }): OrderMarks {
  const parked = orderRepositoriesOf(store).parked;
  return {
    park(order, parkedAt, baseDelayMs) {
      parked.park(order, parkedAt, baseDelayMs);
      skip?.parked.add(order.platformOrderId);
    },
    unpark(orderId) {
      if (skip && !skip.parked.delete(orderId)) return;
      parked.unpark(orderId);
    },
    reject(orderId, reason) {
      store.rejects.record({ pipeline: 'orders', key: String(orderId), reason });
      skip?.rejected.add(String(orderId));
    },
    resolveReject(orderId) {
      const key = String(orderId);
      if (skip && !skip.rejected.delete(key)) return;
      store.rejects.resolve('orders', key);
    },
  };
}

/**
 * The outcomes of many imports, written in one transaction by flush(): one commit for a batch of
 * orders instead of one each. Every outcome is still written only after the ERP answered
 * (acknowledge before forgetting); a crash before the flush leaves the orders queued, and their
 * next import finds them in the ERP (the adapters' import is idempotent on the platform order id).
 * Given the orders' ids, the flush reads which of them are parked or have an open reject in its
 * transaction (two statements), and unparks or resolves only those: most orders of a batch never
 * were, and a statement each for nothing was most of the batch's writes.
 */
export class ImportWrites {
  #pending: ((marks: OrderMarks) => void)[] = [];

  constructor(
    private readonly store: MarkStore,
    private readonly orderIds?: readonly number[],
  ) {}

  readonly record: RecordOutcome = (write) => {
    this.#pending.push(write);
  };

  get size(): number {
    return this.#pending.length;
  }

  flush(): void {
    if (this.#pending.length === 0) return;
    const writes = this.#pending;
    this.#pending = [];
    this.store.transaction(() => {
      const ids = this.orderIds;
      const marks = storeMarks(
        this.store,
        ids && {
          parked: orderRepositoriesOf(this.store).parked.parkedAmong(ids),
          rejected: this.store.rejects.openAmong('orders', ids.map(String)),
        },
      );
      for (const write of writes) write(marks);
    });
  }
}
