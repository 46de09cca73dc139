import type {
  FeedbackResult,
  OrderChange,
  OrderEvent,
  OutgoingOrder,
  PlatformOrder,
} from '../../src/domain/orders.js';
import type { ErpRow, PriceRecord, ProductRecord, StockRecord } from '../../src/domain/records.js';
import type { AdapterCheck, Checkpointed, ErpAdapter, ImportResult } from '../../src/erp/ErpAdapter.js';
import type { ErpCapabilities, ReadMode } from '../../src/erp/ErpCapabilities.js';
import type { ErpOrderLocation } from '../../src/erp/ErpOrderLocation.js';
import { asReadReceipt, erpRead, type ErpRead, type ReadReceipt } from '../../src/erp/ErpRead.js';
import { ErpUnavailableError } from '../../src/erp/ErpUnavailableError.js';
import { ErpRowMapper } from '../../src/erp/mapping/ErpRowMapper.js';
import type { RecordKind } from '../../src/erp/mapping/fields.js';
import { toOrderEvent } from '../../src/erp/mapping/toOrderEvent.js';
import { toOutgoingOrder } from '../../src/erp/mapping/toOutgoingOrder.js';
import { OrderRefusedError } from '../../src/erp/OrderRefusedError.js';

/** The reference the memory ERP gives an imported platform order. */
const memoryErpRef = (platformOrderId: number): string => `M-${platformOrderId}`;

/** One ERP row as a database would hand it over: column name -> value. */
export type MemoryRow = Record<string, unknown>;

/**
 * The ERP itself, in memory: what a database holds. Several adapter instances may share one
 * (two processes over one ERP); tests seed it and look at what the adapters did to it.
 */
export class MemoryErp {
  readonly tables: Record<RecordKind, MemoryRow[]> = { stock: [], prices: [], products: [] };
  /** Rows of each table already consumed by a committed delta read (delta mode only). */
  readonly consumed: Record<RecordKind, number> = { stock: 0, prices: 0, products: 0 };
  /** Fulfilment events, in ERP terms (order_id, erp_ref, event, courier, ...), in the order they happened. */
  readonly events: MemoryRow[] = [];
  /** Orders born in the ERP, as the ERP writes them (source_order_id, customer, items, ...). */
  readonly outgoing: MemoryRow[] = [];
  /** Platform orders imported, by platform order id. */
  readonly imported = new Map<number, PlatformOrder>();
  /** When each platform order was imported (ISO), by platform order id. */
  readonly importedAt = new Map<number, string>();
  /** Changes delivered, keyed `<order id>-<seq>`: the first delivery stands. */
  readonly updates = new Map<string, OrderChange>();
  readonly feedback: FeedbackResult[] = [];
  /** Which platform order each ERP order became, as the ERP was told. */
  readonly recorded = new Map<string, number>();
  /** SKUs the ERP refuses in an order (an import with one is refused: the order is parked). */
  readonly refusedSkus = new Set<string>();
  /** Calls made to the port, by method name, across every instance. */
  readonly calls = new Map<string, number>();
  /** When set, every call fails as an ERP that cannot be reached. */
  down = false;
  /** The next N calls of a method fail as an ERP that cannot be reached (a crash mid-run). */
  readonly failNext = new Map<string, number>();

  count(method: string): number {
    return this.calls.get(method) ?? 0;
  }
}

export interface MemoryErpAdapterOptions {
  /** How its reads relate to the ERP: `snapshot` (default) or `delta` (only rows since the last commit). */
  reads?: ReadMode;
  /** Yields every outgoing order whatever the checkpoint (as a folder-as-queue adapter may). */
  ignoresCheckpoint?: boolean;
  /** The capability of that name (default false). */
  stockSubtractsImportedOrders?: boolean;
}

/**
 * A second, complete implementation of the ErpAdapter port over a MemoryErp: the pipelines'
 * tests run against it besides the file adapter, and it passes the same contract suite. It
 * keeps no state of its own between calls: everything lives in the MemoryErp or travels with
 * the item (receipts, checkpoints, the outgoing order).
 */
export class MemoryErpAdapter implements ErpAdapter {
  readonly kind = 'memory';
  readonly capabilities: ErpCapabilities;
  #opened = false;

  constructor(
    readonly erp: MemoryErp = new MemoryErp(),
    private readonly options: MemoryErpAdapterOptions = {},
  ) {
    const mode = options.reads ?? 'snapshot';
    this.capabilities = {
      reads: { stock: mode, prices: mode, products: mode },
      fullReadEveryMinutes: { stock: 0, prices: 0 },
      stockSubtractsImportedOrders: options.stockSubtractsImportedOrders ?? false,
      orders: { import: true, events: true, outgoing: true },
      importsAtOnce: 4,
    };
  }

  async open(): Promise<void> {
    this.#call('open');
    this.#opened = true;
  }

  stock(): ErpRead<StockRecord> {
    return this.#read<StockRecord>('stock');
  }

  prices(): ErpRead<PriceRecord> {
    return this.#read<PriceRecord>('prices');
  }

  products(): ErpRead<ProductRecord> {
    return this.#read<ProductRecord>('products');
  }

  #read<T>(kind: RecordKind): ErpRead<T> {
    const erp = this.erp;
    const delta = this.capabilities.reads[kind] === 'delta';
    const call = () => this.#call(kind);
    return erpRead<T>((setReceipt) =>
      (async function* () {
        call();
        const from = delta ? erp.consumed[kind] : 0;
        const rows = erp.tables[kind].slice(from);
        if (delta) setReceipt(asReadReceipt(JSON.stringify({ kind, upTo: from + rows.length })));
        const mapper = new ErpRowMapper<T>(kind, { decimalComma: false });
        for (const [i, row] of rows.entries()) yield mapper.map(row, { row: `${kind}#${from + i + 1}` });
      })(),
    );
  }

  async commit(receipt: ReadReceipt): Promise<void> {
    this.#call('commit');
    const { kind, upTo } = JSON.parse(receipt) as { kind: RecordKind; upTo: number };
    this.erp.consumed[kind] = Math.max(this.erp.consumed[kind], upTo);
  }

  async importOrder(order: PlatformOrder): Promise<ImportResult> {
    this.#call('importOrder');
    const erpRef = memoryErpRef(order.id);
    if (this.erp.imported.has(order.id)) return { erpRef, alreadyImported: true };
    const refused = order.items.filter((line) => !line.sku || this.erp.refusedSkus.has(line.sku));
    if (refused.length > 0) {
      throw new OrderRefusedError(
        `unknown SKU in the ERP: ${refused.map((l) => l.sku ?? '(no SKU)').join(', ')}`,
        {
          orderId: order.id,
        },
      );
    }
    this.erp.imported.set(order.id, order);
    this.erp.importedAt.set(order.id, new Date().toISOString());
    return { erpRef, alreadyImported: false };
  }

  async locateOrder(platformOrderId: number): Promise<ErpOrderLocation | null> {
    this.#call('locateOrder');
    if (!this.erp.imported.has(platformOrderId)) return null;
    const changes = [...this.erp.updates.keys()].filter((key) => key.startsWith(`${platformOrderId}-`));
    return {
      erpRef: memoryErpRef(platformOrderId),
      place: `memory imported #${platformOrderId}`,
      at: this.erp.importedAt.get(platformOrderId) ?? null,
      facts: { changes: changes.length },
    };
  }

  async updateOrder(order: PlatformOrder, change: OrderChange): Promise<void> {
    this.#call('updateOrder');
    const key = `${order.id}-${change.seq ?? `${change.status ?? ''}-${change.paymentStatus ?? ''}`}`;
    if (!this.erp.updates.has(key)) this.erp.updates.set(key, change);
  }

  /** The checkpoint is the number of events consumed. */
  async *orderEvents(checkpoint: string | null): AsyncIterable<Checkpointed<OrderEvent>> {
    this.#call('orderEvents');
    const from = checkpoint === null ? 0 : Number(checkpoint);
    for (let i = from; i < this.erp.events.length; i++) {
      const row: ErpRow<OrderEvent> = toOrderEvent(this.erp.events[i]!, { row: `events#${i + 1}` }, false);
      yield { row, checkpoint: String(i + 1) };
    }
  }

  async recordFeedback(result: FeedbackResult): Promise<void> {
    this.#call('recordFeedback');
    this.erp.feedback.push(result);
  }

  /** The checkpoint is the number of ERP orders consumed; each order's source names its row. */
  async *outgoingOrders(checkpoint: string | null): AsyncIterable<Checkpointed<OutgoingOrder>> {
    this.#call('outgoingOrders');
    const from = checkpoint === null || this.options.ignoresCheckpoint ? 0 : Number(checkpoint);
    for (let i = from; i < this.erp.outgoing.length; i++) {
      yield {
        row: toOutgoingOrder(this.erp.outgoing[i], { row: `orders#${i + 1}` }),
        checkpoint: String(i + 1),
      };
    }
  }

  async recordOutgoingOrder(order: OutgoingOrder, platformOrderId: number): Promise<void> {
    this.#call('recordOutgoingOrder');
    this.erp.recorded.set(order.sourceOrderId, platformOrderId);
  }

  async check(): Promise<AdapterCheck> {
    this.#call('check');
    const sizes = Object.entries(this.erp.tables).map(([kind, rows]) => `${kind}: ${rows.length} row(s)`);
    return { ok: true, details: `memory ERP\n${sizes.join('\n')}` };
  }

  async close(): Promise<void> {
    this.#call('close');
    this.#opened = false;
  }

  #call(method: string): void {
    this.erp.calls.set(method, this.erp.count(method) + 1);
    if (method === 'close') return;
    if (!this.#opened && method !== 'open') throw new Error(`${method}() before open()`);
    const failures = this.erp.failNext.get(method) ?? 0;
    if (failures > 0) this.erp.failNext.set(method, failures - 1);
    if (this.erp.down || failures > 0) throw new ErpUnavailableError(`the memory ERP is down (${method})`);
  }
}
