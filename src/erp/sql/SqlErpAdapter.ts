import type { Knex } from 'knex';
import type {
  FeedbackResult,
  OrderChange,
  OrderEvent,
  OutgoingOrder,
  PlatformOrder,
} from '../../domain/orders.js';
import type { ErpRow, PriceRecord, ProductRecord, StockRecord } from '../../domain/records.js';
import type { Logger } from '../../logger.js';
import type { AdapterCheck, Checkpointed, ErpAdapter, ImportResult } from '../ErpAdapter.js';
import type { ErpCapabilities } from '../ErpCapabilities.js';
import type { ErpOrderLocation } from '../ErpOrderLocation.js';
import { erpReadGroups, type ErpRead, type ReadReceipt } from '../ErpRead.js';
import type { RecordKind } from '../mapping/fields.js';
import { ErpRowMapper } from '../mapping/ErpRowMapper.js';
import type { ErpChange, ErpWatch, ErpWatchState } from '../ErpWatch.js';
import { checkSqlDatabase } from './checkSqlDatabase.js';
import { connectSql } from './connectSql.js';
import { describeSqlDatabase } from './describeSqlDatabase.js';
import { listenForChanges } from './listenForChanges.js';
import { queryParameters } from './namedParameters.js';
import {
  databaseClock,
  dayIn,
  parseReadMark,
  readMarkReceipt,
  sinceBinding,
  type SqlReadMark,
} from './sqlReadMark.js';
import type { SqlErpConfig } from './sqlConfigSchema.js';
import { toSqlError } from './SqlErpError.js';
import { SqlOrderStaging } from './SqlOrderStaging.js';
import { sqlOrderEvents, sqlOutgoingOrders } from './sqlOrderReads.js';
import { queryRows, streamQuery, type Bindings, type QuerySource } from './streamQuery.js';

/** The query reading the changes since the last committed read, for the kinds that have one. */
const CHANGES_QUERY: Partial<Record<RecordKind, 'stockChanges' | 'pricesChanges'>> = {
  stock: 'stockChanges',
  prices: 'pricesChanges',
};

/**
 * The ERP as a SQL database (PostgreSQL, MySQL/MariaDB, SQL Server, SQLite): the integrator's
 * queries read stock, prices, products, events and ERP-origin orders, streamed and mapped by the
 * same column mapping as the file adapter; orders go into staging tables.
 */
export class SqlErpAdapter implements ErpAdapter {
  readonly kind = 'sql';
  readonly capabilities: ErpCapabilities;
  readonly #db: Knex;
  readonly #staging: SqlOrderStaging;
  readonly #source: QuerySource;
  /** Which database, in errors and `check` (no password). */
  readonly #database: string;
  /** PostgreSQL with `listen`: LISTEN for the integrator's trigger notifications. */
  readonly watch?: (
    onChange: (change: ErpChange) => void,
    onState?: (state: ErpWatchState) => void,
  ) => Promise<ErpWatch>;

  constructor(
    readonly config: SqlErpConfig,
    private readonly logger: Logger,
  ) {
    this.#db = connectSql(config, logger);
    this.#database = describeSqlDatabase(config);
    this.#staging = new SqlOrderStaging(this.#db, config, this.#database);
    this.#source = {
      db: this.#db,
      client: config.client,
      filename: config.connection.filename,
      database: this.#database,
    };
    // With a query for changes, a read after a committed one holds only what changed since.
    this.capabilities = {
      reads: {
        stock: config.queries.stockChanges ? 'delta' : 'snapshot',
        prices: config.queries.pricesChanges ? 'delta' : 'snapshot',
        products: 'snapshot',
      },
      fullReadEveryMinutes: {
        stock: config.incremental.fullEveryMinutes,
        prices: config.incremental.fullEveryMinutes,
      },
      stockSubtractsImportedOrders: config.stockSubtractsImportedOrders,
      // A part without its query or statement reads or writes nothing.
      orders: { import: true, events: true, outgoing: true },
      // Each import holds a connection of the pool for its statement: no more at once than it has.
      importsAtOnce: config.client === 'sqlite' ? 1 : config.pool.max,
    };
    const listen = config.client === 'pg' ? config.listen : undefined;
    if (listen) {
      this.watch = (onChange, onState) =>
        listenForChanges({
          config: { ...config, listen },
          changes: readChanges(config),
          onChange,
          ...(onState ? { onState } : {}),
          logger: this.logger,
        });
    }
  }

  /** Connects once, so that a wrong host or password is said at start and not at the first read. */
  async open(): Promise<void> {
    try {
      await this.#db.raw('select 1 as ok');
    } catch (error) {
      throw toSqlError(error, 'connecting', this.#database);
    }
  }

  stock(after?: ReadReceipt | null): ErpRead<StockRecord> {
    return this.#rows<StockRecord>('stock', after);
  }

  prices(after?: ReadReceipt | null): ErpRead<PriceRecord> {
    return this.#rows<PriceRecord>('prices', after);
  }

  products(): ErpRead<ProductRecord> {
    return this.#rows<ProductRecord>('products', null);
  }

  #rows<T>(kind: RecordKind, after: ReadReceipt | null | undefined): ErpRead<T> {
    return erpReadGroups<T>((setReceipt) => this.#mapped<T>(kind, parseReadMark(after), setReceipt));
  }

  /**
   * The full query, or the query for changes since the last committed read (less the overlap)
   * when there is one and no full read is due (by period, or because the business day changed).
   * The receipt, set once the read reached its end, carries the database's clock at its start:
   * the next read starts there.
   */
  async *#mapped<T>(
    kind: RecordKind,
    last: SqlReadMark | null,
    setReceipt: (receipt: ReadReceipt) => void,
  ): AsyncIterable<ErpRow<T>[]> {
    const full = this.config.queries[kind];
    const changesQuery = CHANGES_QUERY[kind];
    const changes = changesQuery && this.config.queries[changesQuery];
    if (!full) {
      this.logger.debug({ kind }, `no ${kind} query configured: nothing to read`);
      return;
    }
    const usesToday = [full, changes].some((sql) => sql && queryParameters(sql).named.includes('today'));
    const clock = changes || usesToday ? await databaseClock(this.#db, this.config.client) : undefined;
    const today =
      clock && (this.config.timeZone === 'database' ? clock.today : dayIn(this.config.timeZone, clock.now));
    const due = changes ? this.#fullReadDue(last, clock!.now, today!) : null;
    const incremental = changes !== undefined && due === null;
    const name = incremental ? `${kind}Changes` : kind;
    const sql = incremental ? changes : full;
    const bindings: Bindings = {};
    if (incremental) {
      const sinceMs = Date.parse(last!.mark) - this.config.incremental.overlapSeconds * 1000;
      const offset = clock!.offsetMinutes;
      bindings.since = sinceBinding(this.config.client, sinceMs, last!.offsetMinutes ?? offset, offset);
    }
    if (today && queryParameters(sql).named.includes('today')) bindings.today = today;
    if (changes)
      this.logger.debug({ kind, incremental, fullReadBecause: due, ...bindings }, `reading ${name}`);
    const file = `${name} query`;
    const mapper = new ErpRowMapper<T>(kind, {
      decimalComma: this.config.decimalComma,
      columns: this.config.columns,
    });
    for await (const batch of streamQuery(this.#source, name, sql, bindings)) {
      yield batch.map((row) => mapper.mapNamed(row.fields, row.columns, { file, line: row.line }));
    }
    if (clock && changes)
      setReceipt(
        readMarkReceipt({
          mark: clock.now,
          fullAt: incremental ? last!.fullAt : clock.now,
          offsetMinutes: clock.offsetMinutes,
          day: today!,
        }),
      );
  }

  /** Why the read starting at `now` must be a full one (null: the query for changes will do). */
  #fullReadDue(last: SqlReadMark | null, now: string, today: string): string | null {
    if (!last) return 'first read';
    const { fullEveryMinutes, fullAtDayChange } = this.config.incremental;
    if (fullEveryMinutes > 0 && Date.parse(now) - Date.parse(last.fullAt) >= fullEveryMinutes * 60_000)
      return `the last full read is older than ${fullEveryMinutes} minutes`;
    if (fullAtDayChange && last.day !== undefined && last.day !== today)
      return `the day changed (${last.day} -> ${today})`;
    return null;
  }

  importOrder(order: PlatformOrder): Promise<ImportResult> {
    return this.#staging.importOrder(order);
  }

  /** Read only: the staging header row of an earlier import (see SqlOrderStaging.locateOrder). */
  locateOrder(platformOrderId: number): Promise<ErpOrderLocation | null> {
    return this.#staging.locateOrder(platformOrderId);
  }

  updateOrder(order: PlatformOrder, change: OrderChange): Promise<void> {
    return this.#staging.updateOrder(order, change);
  }

  orderEvents(checkpoint: string | null): AsyncIterable<Checkpointed<OrderEvent>> {
    return sqlOrderEvents(this.#source, this.config, checkpoint);
  }

  async recordFeedback(result: FeedbackResult): Promise<void> {
    const sql = this.config.statements.feedback;
    if (!sql) return;
    await queryRows(
      this.#db,
      'feedback',
      sql,
      {
        event_id: result.eventId,
        order_id: result.orderId,
        erp_ref: result.erpRef ?? null,
        kind: result.kind,
        status: result.status ?? null,
        awb_number: result.awb?.number ?? null,
        awb_courier: result.awb?.courier ?? null,
        invoice_series: result.invoice?.series ?? null,
        invoice_number: result.invoice ? String(result.invoice.number) : null,
      },
      this.#database,
    );
  }

  outgoingOrders(checkpoint: string | null): AsyncIterable<Checkpointed<OutgoingOrder>> {
    return sqlOutgoingOrders(this.#source, this.config, checkpoint);
  }

  async recordOutgoingOrder(order: OutgoingOrder, platformOrderId: number): Promise<void> {
    const sql = this.config.statements.outgoingOrderCreated;
    if (!sql) return;
    await queryRows(
      this.#db,
      'outgoingOrderCreated',
      sql,
      { source_order_id: order.sourceOrderId, platform_order_id: platformOrderId },
      this.#database,
    );
  }

  /** Nothing to archive: a database read leaves nothing behind. */
  async commit(): Promise<void> {}

  /** What a run will need, proven: see checkSqlDatabase. */
  check(): Promise<AdapterCheck> {
    return checkSqlDatabase(this.#db, this.config, this.#database, this.#staging);
  }

  async close(): Promise<void> {
    await this.#db.destroy();
  }
}

/** The parts of the ERP this configuration reads (a query for each). */
function readChanges(config: SqlErpConfig): ErpChange[] {
  const q = config.queries;
  const reads: [ErpChange, string | undefined][] = [
    ['stock', q.stock],
    ['prices', q.prices],
    ['products', q.products],
    ['orderEvents', q.events],
    ['outgoingOrders', q.outgoingOrders],
  ];
  return reads.filter(([, sql]) => sql !== undefined).map(([change]) => change);
}
