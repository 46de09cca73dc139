/**
 * Where an imported platform order lives in the ERP, as the ERP itself holds it now (not as the
 * store remembers it): what `locateOrder` answers when the ERP has the order.
 */
export interface ErpOrderLocation {
  /** The reference the ERP knows it by, as `importOrder` returned it. */
  erpRef: string;
  /** Where it is, for a person: the outbox file's path, `erp_orders id=7`, `sale.sale 12`. */
  place: string;
  /** When it reached the ERP as the ERP records it (file time, staging row's timestamp, sale created), ISO; null when the ERP does not say. */
  at: string | null;
  /** What else the ERP holds of it, in the adapter's words (size, lines, changes, state, archived). */
  facts: Record<string, string | number | boolean | null>;
}
