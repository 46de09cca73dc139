import type { ErpRow, PriceRecord, ProductRecord, StockRecord } from '../domain/records.js';
import type {
  FeedbackResult,
  OrderChange,
  OrderEvent,
  OutgoingOrder,
  PlatformOrder,
} from '../domain/orders.js';

export interface ImportResult {
  erpRef: string;
  /** True when the adapter found an earlier import of the same platform order and did nothing. */
  alreadyImported: boolean;
}

/** One item of a checkpointed stream: the row and the checkpoint to store once it is handled. */
export interface Checkpointed<T> {
  row: ErpRow<T>;
  checkpoint: string;
}

export interface AdapterCheck {
  ok: boolean;
  details: string;
}

/**
 * The port every ERP adapter implements (file, SQL, RPC). It speaks only domain types.
 * Streams are async iterables so that a million rows never sit in memory.
 */
export interface ErpAdapter {
  readonly kind: string;
  stock(): AsyncIterable<ErpRow<StockRecord>>;
  prices(): AsyncIterable<ErpRow<PriceRecord>>;
  products(): AsyncIterable<ErpRow<ProductRecord>>;

  /** Idempotent on order.id: a second call for the same order finds the first import. */
  importOrder(order: PlatformOrder): Promise<ImportResult>;
  /** A change made on the platform after import (cancelled, paid, returned). Idempotent per change. */
  updateOrder(order: PlatformOrder, change: OrderChange): Promise<void>;

  /** Fulfilment facts after the checkpoint (null: from the beginning). */
  orderEvents(checkpoint: string | null): AsyncIterable<Checkpointed<OrderEvent>>;
  /** The platform's answer to an event (AWB number, invoice), written back to the ERP. */
  recordFeedback(result: FeedbackResult): Promise<void>;

  /** Orders born in the ERP, after the checkpoint. */
  outgoingOrders(checkpoint: string | null): AsyncIterable<Checkpointed<OutgoingOrder>>;
  /** Tells the ERP which platform order its order became. */
  recordOutgoingOrder(sourceOrderId: string, platformOrderId: number): Promise<void>;

  /** Called after a pipeline's successful run (the file adapter archives its input then). */
  commit(pipeline: 'stock' | 'prices' | 'products'): Promise<void>;
  check(): Promise<AdapterCheck>;
  close(): Promise<void>;
}
