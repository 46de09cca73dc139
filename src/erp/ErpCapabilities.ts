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
}
