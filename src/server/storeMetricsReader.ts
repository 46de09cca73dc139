import type { Store } from '../store/Store.js';

/** What the store tells /metrics at each scrape: the backlog an operator must act on. */
export interface StoreMetricsReader {
  /** Open (unresolved) rejects per pipeline; a pipeline without any may be absent. */
  openRejects(): ReadonlyMap<string, number>;
  parkedOrders(): number;
  /** First-parked time of the longest-parked order, or null when none is parked. */
  oldestParkedAt(): Date | null;
  /** When each pipeline's last ERP read (full or incremental) was committed: every item of it acknowledged. */
  erpReadsCommittedAt(): ReadonlyMap<string, Date>;
}

/** The store's cursor of a pipeline's committed ERP read (see sync/erpReadCommit.ts). */
const ERP_READ_CURSOR = /^erp-read:(.+)$/;

/** Reads the daemon's SQLite store: one small query per gauge and scrape. */
export function storeMetricsReader(store: Store): StoreMetricsReader {
  return {
    openRejects: () => store.rejects.countOpenByPipeline(),
    parkedOrders: () => store.orders.parked.count(),
    oldestParkedAt() {
      const oldest = store.orders.parked.oldestParkedAt();
      return oldest === null ? null : new Date(oldest);
    },
    erpReadsCommittedAt() {
      const committed = new Map<string, Date>();
      for (const cursor of store.cursors.all()) {
        const pipeline = ERP_READ_CURSOR.exec(cursor.name)?.[1];
        if (pipeline) committed.set(pipeline, new Date(cursor.updatedAt));
      }
      return committed;
    },
  };
}
