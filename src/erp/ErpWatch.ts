/**
 * What an adapter's watch reports as changed, named after the port method whose answer changed:
 * the daemon maps each to the pipeline that reads it (products to catalog, orderEvents to
 * feedback, outgoingOrders to erp-orders).
 */
export const ERP_CHANGES = ['stock', 'prices', 'products', 'orderEvents', 'outgoingOrders'] as const;
export type ErpChange = (typeof ERP_CHANGES)[number];

/** A running watch: stop() ends it; no change is reported once it has resolved. */
export interface ErpWatch {
  stop(): Promise<void>;
}

/** Whether a watch sees changes right now (a database watch loses its connection and reconnects). */
export interface ErpWatchState {
  watching: boolean;
  /** Why not, when not watching: the daemon logs and shows it; the schedules still run. */
  reason?: string;
}
