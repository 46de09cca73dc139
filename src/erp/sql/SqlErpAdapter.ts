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
import { erpRead, type ErpRead } from '../ErpRead.js';
import type { RecordKind } from '../mapping/fields.js';
import { ErpRowMapper } from '../mapping/ErpRowMapper.js';
import { connectSql } from './connectSql.js';
import type { SqlErpConfig } from './sqlConfigSchema.js';
import { toSqlError } from './SqlErpError.js';
import { SqlOrderStaging } from './SqlOrderStaging.js';
import { sqlOrderEvents, sqlOutgoingOrders } from './sqlOrderReads.js';
import { queryRows, streamQuery, type Bindings, type QuerySource } from './streamQuery.js';

/**
 * The ERP as a SQL database (PostgreSQL, MySQL/MariaDB, SQL Server, SQLite): the integrator's
 * queries read stock, prices, products, events and ERP-origin orders, streamed and mapped by the
 * same column mapping as the file adapter; orders go into staging tables.
 */
export class SqlErpAdapter implements ErpAdapter {
  readonly kind = 'sql';
  readonly capabilities: ErpCapabilities = {
    reads: { stock: 'snapshot', prices: 'snapshot', products: 'snapshot' },
  };
  readonly #db: Knex;
  readonly #staging: SqlOrderStaging;
  readonly #source: QuerySource;

  constructor(
    readonly config: SqlErpConfig,
    private readonly logger: Logger,
  ) {
    this.#db = connectSql(config, logger);
    this.#staging = new SqlOrderStaging(this.#db, config);
    this.#source = { db: this.#db, client: config.client, filename: config.connection.filename };
  }

  /** Connects once, so that a wrong host or password is said at start and not at the first read. */
  async open(): Promise<void> {
    try {
      await this.#db.raw('select 1 as ok');
    } catch (error) {
      throw toSqlError(error, 'connecting');
    }
  }

  stock(): ErpRead<StockRecord> {
    return this.#rows<StockRecord>('stock');
  }

  prices(): ErpRead<PriceRecord> {
    return this.#rows<PriceRecord>('prices');
  }

  products(): ErpRead<ProductRecord> {
    return this.#rows<ProductRecord>('products');
  }

  #rows<T>(kind: RecordKind, bindings: Bindings = {}): ErpRead<T> {
    return erpRead<T>(() => this.#mapped<T>(kind, bindings));
  }

  async *#mapped<T>(kind: RecordKind, bindings: Bindings): AsyncIterable<ErpRow<T>> {
    const sql = this.config.queries[kind];
    if (!sql) {
      this.logger.debug({ kind }, `no ${kind} query configured: nothing to read`);
      return;
    }
    const file = `${kind} query`;
    const mapper = new ErpRowMapper<T>(kind, {
      decimalComma: this.config.decimalComma,
      columns: this.config.columns,
    });
    for await (const batch of streamQuery(this.#source, kind, sql, bindings)) {
      for (const row of batch) yield mapper.map(row.fields, { file, line: row.line });
    }
  }

  importOrder(order: PlatformOrder): Promise<ImportResult> {
    return this.#staging.importOrder(order);
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
    await queryRows(this.#db, 'feedback', sql, {
      event_id: result.eventId,
      order_id: result.orderId,
      erp_ref: result.erpRef ?? null,
      kind: result.kind,
      status: result.status ?? null,
      awb_number: result.awb?.number ?? null,
      awb_courier: result.awb?.courier ?? null,
      invoice_series: result.invoice?.series ?? null,
      invoice_number: result.invoice ? String(result.invoice.number) : null,
    });
  }

  outgoingOrders(checkpoint: string | null): AsyncIterable<Checkpointed<OutgoingOrder>> {
    return sqlOutgoingOrders(this.#source, this.config, checkpoint);
  }

  async recordOutgoingOrder(order: OutgoingOrder, platformOrderId: number): Promise<void> {
    const sql = this.config.statements.outgoingOrderCreated;
    if (!sql) return;
    await queryRows(this.#db, 'outgoingOrderCreated', sql, {
      source_order_id: order.sourceOrderId,
      platform_order_id: platformOrderId,
    });
  }

  /** Nothing to archive: a database read leaves nothing behind. */
  async commit(): Promise<void> {}

  async check(): Promise<AdapterCheck> {
    const c = this.config;
    const where =
      c.client === 'sqlite'
        ? c.connection.filename
        : `${c.connection.host}${c.connection.port ? `:${c.connection.port}` : ''}/${c.connection.database ?? ''}`;
    const lines = [`${c.client} database ${where}`];
    try {
      await this.#db.raw('select 1 as ok');
    } catch (error) {
      return { ok: false, details: `${lines[0]}: ${toSqlError(error, 'connecting').message}` };
    }
    let ok = true;
    const queries = Object.entries(c.queries).filter(([, sql]) => sql);
    lines.push(`queries: ${queries.length ? queries.map(([name]) => name).join(', ') : 'none configured'}`);
    for (const { table } of [c.staging.orders, c.staging.lines, c.staging.changes]) {
      const exists = await this.#db.schema.hasTable(table).catch(() => false);
      if (!exists) ok = false;
      lines.push(
        `staging table ${table}: ${exists ? 'present' : 'MISSING (erp-sync erp init-staging --apply)'}`,
      );
    }
    return { ok, details: lines.join('\n') };
  }

  async close(): Promise<void> {
    await this.#db.destroy();
  }
}
