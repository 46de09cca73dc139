import type { Store } from '../store/Store.js';

/** What the store tells /metrics at each scrape: the backlog an operator must act on. */
export interface StoreMetricsReader {
  /** Open (unresolved) rejects per pipeline; a pipeline without any may be absent. */
  openRejects(): ReadonlyMap<string, number>;
  parkedOrders(): number;
  /** First-parked time of the longest-parked order, or null when none is parked. */
  oldestParkedAt(): Date | null;
}

/** Reads the daemon's SQLite store: one small query per gauge and scrape. */
export function storeMetricsReader(store: Store): StoreMetricsReader {
  return {
    openRejects: () => store.rejects.countOpenByPipeline(),
    parkedOrders: () => store.orders.parked.count(),
    oldestParkedAt() {
      const oldest = store.orders.parked.oldestParkedAt();
      return oldest === null ? null : new Date(oldest);
    },
  };
}
