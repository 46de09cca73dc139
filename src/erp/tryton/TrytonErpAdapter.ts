import type { FeedbackResult, OrderChange, OrderEvent, PlatformOrder } from '../../domain/orders.js';
import type { PriceRecord, ProductRecord, StockRecord } from '../../domain/records.js';
import type { Logger } from '../../logger.js';
import type { AdapterCheck, Checkpointed, ErpAdapter, ImportResult } from '../ErpAdapter.js';
import type { ErpCapabilities } from '../ErpCapabilities.js';
import type { ErpOrderLocation } from '../ErpOrderLocation.js';
import { asReadReceipt, erpRead, erpReadGroups, type ErpRead, type ReadReceipt } from '../ErpRead.js';
import { describeError } from '../../domain/errors.js';
import { readTrytonEvents } from './readTrytonEvents.js';
import { readTrytonPrices } from './readTrytonPrices.js';
import { readTrytonProducts } from './readTrytonProducts.js';
import { readTrytonStock } from './readTrytonStock.js';
import { missingTrytonAccess, saleButtons } from './trytonAccess.js';
import { TrytonClient } from './TrytonClient.js';
import type { TrytonErpConfig } from './trytonConfigSchema.js';
import { TrytonError } from './TrytonError.js';
import { TrytonOrders } from './TrytonOrders.js';

type StateKey = 'stock' | 'prices';

interface Receipt {
  key: StateKey;
  next: string;
  /** When the last full read began (erp-sync's clock, ISO); absent in receipts of older versions. */
  fullAt?: string;
}

/**
 * The ERP adapter for Tryton 6.0 over JSON-RPC. Stock and prices are read incrementally (stock
 * moves, template write dates) since the last committed read's receipt, which the pipelines keep
 * in the store and hand back (`stock(after)`);
 * orders become sales whose reference is the platform order id; shipments done and invoices
 * posted come back as events.
 */
export class TrytonErpAdapter implements ErpAdapter {
  readonly kind = 'tryton';
  readonly capabilities: ErpCapabilities;
  readonly #rpc: TrytonClient;
  #warehouseIds: number[] = [];
  #orders: TrytonOrders | null = null;

  constructor(
    readonly config: TrytonErpConfig,
    private readonly logger: Logger,
  ) {
    this.#rpc = new TrytonClient({
      url: config.url,
      database: config.database,
      user: config.user,
      password: config.password,
      context: config.company === undefined ? {} : { company: config.company },
      timeoutMs: config.timeoutMs,
      logger,
    });
    this.capabilities = {
      reads: {
        stock: config.stock.incremental ? 'delta' : 'snapshot',
        prices: config.prices.incremental ? 'delta' : 'snapshot',
        products: 'snapshot',
      },
      fullReadEveryMinutes: {
        stock: config.stock.fullEveryMinutes,
        prices: config.prices.fullEveryMinutes,
      },
      // The forecast counts a confirmed sale's moves from the confirmation on; a quotation has none.
      stockSubtractsImportedOrders: config.stock.field === 'forecast_quantity' && config.orders.confirm,
      // Sales made in Tryton stay in Tryton: no orders born in the ERP are sent to the platform.
      orders: { import: true, events: true, outgoing: false },
      // Tryton on SQLite refuses concurrent writes (a party code taken twice): one at a time unless
      // orders.concurrency says the server (on PostgreSQL) takes more.
      importsAtOnce: 1,
    };
  }

  /** Logs in, loads the user's context (company) and resolves the warehouse codes. */
  async open(): Promise<void> {
    await this.#rpc.login();
    await this.#rpc.loadPreferences();
    const codes = [...this.config.warehouses, this.config.orders.warehouse ?? this.config.warehouses[0]!];
    const found = await this.#rpc.model<{ id: number; code: string }[]>('stock.location', 'search_read', [
      [
        ['type', '=', 'warehouse'],
        ['code', 'in', [...new Set(codes)]],
      ],
      0,
      null,
      null,
      ['code'],
    ]);
    const byCode = new Map(found.map((w) => [w.code, w.id]));
    const missing = [...new Set(codes)].filter((code) => !byCode.has(code));
    if (missing.length > 0) {
      throw new TrytonError(
        'config_invalid',
        `erp.warehouses: no Tryton warehouse with the code ${missing.join(', ')}`,
        {
          missing,
        },
      );
    }
    this.#warehouseIds = this.config.warehouses.map((code) => byCode.get(code)!);
    const orderWarehouse = byCode.get(this.config.orders.warehouse ?? this.config.warehouses[0]!)!;
    this.#orders = new TrytonOrders(
      this.#rpc,
      { confirm: this.config.orders.confirm, warehouseId: orderWarehouse },
      this.logger,
    );
  }

  stock(after?: ReadReceipt | null): ErpRead<StockRecord> {
    const { field, overlapSeconds } = this.config.stock;
    return erpReadGroups<StockRecord>((setReceipt) => {
      const { since, fullAt } = this.#readFrom(after, 'stock');
      return readTrytonStock(
        this.#rpc,
        { warehouseIds: this.#opened().warehouseIds, field, overlapSeconds },
        since,
        (next) => next && setReceipt(receipt({ key: 'stock', next: next.toISOString(), fullAt })),
      );
    });
  }

  prices(after?: ReadReceipt | null): ErpRead<PriceRecord> {
    const { overlapSeconds, addTaxes } = this.config.prices;
    return erpReadGroups<PriceRecord>((setReceipt) => {
      const { since, fullAt } = this.#readFrom(after, 'prices');
      return readTrytonPrices(
        this.#rpc,
        { overlapSeconds, addTaxes },
        since,
        (next) => next && setReceipt(receipt({ key: 'prices', next: next.toISOString(), fullAt })),
      );
    });
  }

  /**
   * Where a read starts (null: a full read) and when the last full read began. A full read when
   * the kind is not incremental, on the first read, and once `fullEveryMinutes` passed since the
   * last one: what the incremental read cannot see (a deleted move) arrives then.
   */
  #readFrom(after: ReadReceipt | null | undefined, key: StateKey): { since: Date | null; fullAt: string } {
    const now = new Date();
    const { incremental, fullEveryMinutes } = this.config[key];
    const last = incremental ? checkpointOf(after, key) : null;
    const due =
      !last?.fullAt ||
      (fullEveryMinutes > 0 && now.getTime() - Date.parse(last.fullAt) >= fullEveryMinutes * 60_000);
    if (!last || due) {
      if (last) this.logger.debug({ kind: key, lastFullRead: last.fullAt ?? null }, `full ${key} read due`);
      return { since: null, fullAt: now.toISOString() };
    }
    return { since: last.since, fullAt: last.fullAt! };
  }

  products(): ErpRead<ProductRecord> {
    return erpRead<ProductRecord>(() => readTrytonProducts(this.#rpc, this.config.prices.addTaxes));
  }

  /** Nothing to finish in Tryton: the pipelines keep the read's receipt and hand it to the next read. */
  async commit(): Promise<void> {}

  importOrder(order: PlatformOrder): Promise<ImportResult> {
    return this.#opened().orders.importOrder(order);
  }

  /** Read only: the sale whose reference is the platform order id (see TrytonOrders.locateOrder). */
  locateOrder(platformOrderId: number): Promise<ErpOrderLocation | null> {
    return this.#opened().orders.locateOrder(platformOrderId);
  }

  updateOrder(order: PlatformOrder, change: OrderChange): Promise<void> {
    return this.#opened().orders.updateOrder(order, change);
  }

  orderEvents(checkpoint: string | null): AsyncIterable<Checkpointed<OrderEvent>> {
    return readTrytonEvents(this.#rpc, checkpoint, this.config.orders.eventsOverlapSeconds);
  }

  /** Tryton's shipment and invoice already hold what the platform answered: nothing to write. */
  async recordFeedback(result: FeedbackResult): Promise<void> {
    this.logger.debug({ orderId: result.orderId, kind: result.kind }, 'feedback acknowledged');
  }

  /**
   * Logs in, counts the products with a code and proves the user's rights for everything the
   * adapter reads and creates (missingTrytonAccess: asked, nothing written).
   */
  async check(): Promise<AdapterCheck> {
    const where = `Tryton ${this.#rpc.endpoint} as ${this.config.user}`;
    try {
      if (!this.#orders) await this.open();
      const skus = await this.#rpc.model<number>('product.product', 'search_count', [[['code', '!=', null]]]);
      const prefs = await this.#rpc.loadPreferences();
      const groups = Array.isArray(prefs.groups) ? prefs.groups.filter((g) => typeof g === 'number') : [];
      const missing = await missingTrytonAccess(this.#rpc, groups, saleButtons(this.config.orders.confirm));
      const head = `${where}: ${skus} products with a code, warehouses ${this.config.warehouses.join(', ')}`;
      if (missing.length === 0)
        return { ok: true, details: `${head}\nrights: every model and sale button the adapter uses` };
      return {
        ok: false,
        details: `${head}\nrights MISSING for erp-sync's user: ${missing.join(', ')} (docs/tryton-adapter.md: the groups)`,
      };
    } catch (error) {
      return { ok: false, details: `${where}: ${describeError(error)}` };
    }
  }

  async close(): Promise<void> {
    await this.#rpc.close();
  }

  #opened(): { warehouseIds: number[]; orders: TrytonOrders } {
    if (!this.#orders) throw new TrytonError('internal', 'the Tryton adapter was used before open()');
    return { warehouseIds: this.#warehouseIds, orders: this.#orders };
  }
}

/** The checkpoint a receipt of this adapter carries for `key`; null for none (a full read). */
function checkpointOf(
  after: ReadReceipt | null | undefined,
  key: StateKey,
): { since: Date; fullAt: string | undefined } | null {
  if (!after) return null;
  try {
    const parsed = JSON.parse(after) as Partial<Receipt>;
    if (parsed.key !== key || typeof parsed.next !== 'string' || Number.isNaN(Date.parse(parsed.next)))
      return null;
    const fullAt =
      typeof parsed.fullAt === 'string' && !Number.isNaN(Date.parse(parsed.fullAt))
        ? parsed.fullAt
        : undefined;
    return { since: new Date(parsed.next), fullAt };
  } catch {
    return null;
  }
}

function receipt(value: Receipt): ReadReceipt {
  return asReadReceipt(JSON.stringify(value));
}
