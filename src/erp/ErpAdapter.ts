import type { ErpRow, PriceRecord, ProductRecord, StockRecord } from '../domain/records.js';
import type {
  FeedbackResult,
  OrderChange,
  OrderEvent,
  OutgoingOrder,
  PlatformOrder,
} from '../domain/orders.js';
import type { ErpCapabilities } from './ErpCapabilities.js';
import type { ErpOrderLocation } from './ErpOrderLocation.js';
import type { ErpRead, ReadReceipt } from './ErpRead.js';
import type { ErpChange, ErpWatch, ErpWatchState } from './ErpWatch.js';

export interface ImportResult {
  erpRef: string;
  /** True when the adapter found an earlier import of the same platform order and did nothing. */
  alreadyImported: boolean;
}

/**
 * One item of a checkpointed stream: the row and the checkpoint to store once it (and every
 * item before it) is handled. The caller passes the stored checkpoint to the next read.
 */
export interface Checkpointed<T> {
  row: ErpRow<T>;
  checkpoint: string;
}

export interface AdapterCheck {
  ok: boolean;
  details: string;
}

/** Platform orders into the ERP (the orders pipeline): `capabilities.orders.import`. */
export interface ErpOrderImport {
  /** Idempotent on order.id: a second call for the same order finds the first import. */
  importOrder(order: PlatformOrder): Promise<ImportResult>;
  /** A change made on the platform after import (cancelled, paid, returned). Idempotent per change. */
  updateOrder(order: PlatformOrder, change: OrderChange): Promise<void>;
  /**
   * Optional, read only: where the platform order an earlier `importOrder` wrote lives in the ERP
   * now (null: the ERP has no such order), so that `explain order` can tell "imported" from "the
   * ERP has it". Looks where `importOrder` would find an earlier import, and writes nothing.
   * Throws (`erp_unavailable`) when the ERP cannot be asked: never null for that.
   */
  locateOrder?(platformOrderId: number): Promise<ErpOrderLocation | null>;
}

/** Fulfilment facts back to the platform (the feedback pipeline): `capabilities.orders.events`. */
export interface ErpOrderEvents {
  /** Fulfilment facts after the checkpoint (null: from the beginning). */
  orderEvents(checkpoint: string | null): AsyncIterable<Checkpointed<OrderEvent>>;
  /** The platform's answer to an event (AWB number, invoice), written back to the ERP. */
  recordFeedback(result: FeedbackResult): Promise<void>;
}

/** Orders born in the ERP (the erp-orders pipeline): `capabilities.orders.outgoing`. */
export interface ErpOutgoingOrders {
  /**
   * Orders born in the ERP, after the checkpoint (null: from the beginning). An adapter may
   * yield an order again (the pipeline knows it), but never skips one not yet recorded.
   */
  outgoingOrders(checkpoint: string | null): AsyncIterable<Checkpointed<OutgoingOrder>>;
  /** Tells the ERP which platform order its order (as outgoingOrders yielded it) became. */
  recordOutgoingOrder(order: OutgoingOrder, platformOrderId: number): Promise<void>;
}

/** The three parts of the order exchange, by their name in `capabilities.orders`. */
export interface ErpOrderParts {
  import: ErpOrderImport;
  events: ErpOrderEvents;
  outgoing: ErpOutgoingOrders;
}

/**
 * The port every ERP adapter implements (file, SQL, RPC). It speaks only domain types.
 * Streams are async iterables so that a million rows never sit in memory.
 *
 * No hidden state between calls: whatever an adapter needs to finish an item travels with the
 * item (an outgoing order's `source`, a read's `receipt`, a checkpoint), so the call that
 * finishes it may come from another instance or another process.
 *
 * A row that cannot be read is a reject (`ok: false`), never an exception. When its key (SKU,
 * order id) cannot be read either, it is keyed by `describeSource(source)`, so that the
 * pipeline can close that reject once the same row reads well.
 *
 * The order exchange comes in three parts (ErpOrderParts); an adapter implements the parts its
 * `capabilities.orders` says it does and leaves the others out, and the pipelines ask
 * `erpOrderPart` for the part they need.
 */
export interface ErpAdapter
  extends Partial<ErpOrderImport>, Partial<ErpOrderEvents>, Partial<ErpOutgoingOrders> {
  /** The configuration's `erp.type`, for logs and `check`. */
  readonly kind: string;
  readonly capabilities: ErpCapabilities;

  /** Logs in or connects; called once by whoever created the adapter, before any other call. */
  open(): Promise<void>;

  /**
   * One read of a record stream. `after` is the receipt of the last committed read of the same
   * kind, which the pipelines keep in the store (null or absent: read everything). An adapter
   * whose reads are `delta` reads only what changed since then; a `snapshot` adapter ignores it.
   */
  stock(after?: ReadReceipt | null): ErpRead<StockRecord>;
  prices(after?: ReadReceipt | null): ErpRead<PriceRecord>;
  products(after?: ReadReceipt | null): ErpRead<ProductRecord>;
  /**
   * After a pipeline's successful run over a complete read: finishes that read (the file
   * adapter archives the file it read, when `archive` is on). Harmless when repeated.
   */
  commit(receipt: ReadReceipt): Promise<void>;

  /**
   * Optional: reports each completed change in the ERP (a new export, an events drop) as soon as
   * it is seen, so that the daemon runs the pipeline that reads it at once instead of at the next
   * cron tick. Only a trigger: the run reads as a scheduled one does, so a missed report costs
   * only the wait until the schedule. Resolves once watching; adapters without it keep their
   * schedule alone. `onState` hears when watching stops and resumes (a lost database connection).
   */
  watch?(onChange: (change: ErpChange) => void, onState?: (state: ErpWatchState) => void): Promise<ErpWatch>;

  check(): Promise<AdapterCheck>;
  close(): Promise<void>;
}
