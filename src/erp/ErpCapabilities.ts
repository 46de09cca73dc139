/**
 * What one read of a record stream holds.
 * - `snapshot`: the ERP's whole list, every time. After a complete read, a key that is not in it
 *   is no longer in the ERP: its open reject is over.
 * - `delta`: only what changed since the last committed read (e.g. a drop file archived after
 *   each run). A key that is not in it says nothing.
 */
export type ReadMode = 'snapshot' | 'delta';

/** What the pipelines need to know about an adapter, instead of asking which adapter it is. */
export interface ErpCapabilities {
  reads: { stock: ReadMode; prices: ReadMode; products: ReadMode };
  /**
   * For `delta` reads: the adapter reads everything anyway at least this often (minutes; 0: only
   * on `--full`). A change its delta read cannot see (a deleted row, a date that passed) reaches
   * the platform within this bound.
   */
  fullReadEveryMinutes: { stock: number; prices: number };
  /**
   * The stock quantity already subtracts a platform order from the moment `importOrder` returned
   * (Tryton's forecast of a confirmed sale): the oversell guard does not hold an imported order
   * again, only one imported after the stock read began. False: held until the ERP acknowledges
   * the order (any event about it) or the guard's window passes.
   */
  stockSubtractsImportedOrders: boolean;
  /**
   * The parts of the order exchange the adapter does (ErpOrderParts): `import` (platform orders
   * into the ERP), `events` (fulfilment facts back), `outgoing` (orders born in the ERP). A part
   * it does not do has no methods on the adapter, and its pipeline has nothing to do.
   */
  orders: { import: boolean; events: boolean; outgoing: boolean };
  /**
   * Platform orders imported at once when `orders.concurrency` is not set: what the ERP's side of
   * an import takes without queueing or refusing. An import mostly waits (the store, Redis, the
   * ERP's write), so more at once is faster up to this bound.
   */
  importsAtOnce: number;
}
