import type { Knex } from 'knex';
import type { OrderChange, PlatformOrder } from '../../domain/orders.js';
import type { ImportResult } from '../ErpAdapter.js';
import type { ErpOrderLocation } from '../ErpOrderLocation.js';
import { OrderRefusedError } from '../OrderRefusedError.js';
import type { SqlErpConfig } from './sqlConfigSchema.js';
import { isUniqueViolation, SqlQueryError, toSqlError } from './SqlErpError.js';
import { queryRows } from './streamQuery.js';
import { ADDRESS_COLUMNS, tableNames } from './stagingTables.js';

/**
 * Orders into the staging tables: one transaction per order (header and lines, or nothing),
 * idempotent on the platform order id through the header's unique key. When two workers race,
 * the loser's insert hits the key and it answers with the winner's row.
 */
export class SqlOrderStaging {
  readonly #orders;
  readonly #lines;
  readonly #changes;
  /** The address columns the header table has, looked up once. */
  #addressColumns: Promise<Set<string>> | undefined;

  constructor(
    private readonly db: Knex,
    private readonly config: SqlErpConfig,
    /** Which database, for errors (describeSqlDatabase). */
    private readonly database?: string,
  ) {
    this.#orders = tableNames(config.staging.orders);
    this.#lines = tableNames(config.staging.lines);
    this.#changes = tableNames(config.staging.changes);
  }

  async importOrder(order: PlatformOrder): Promise<ImportResult> {
    const earlier = await this.#find(order.id);
    if (earlier) return { erpRef: earlier, alreadyImported: true };
    await this.#checkSkus(order);
    try {
      const erpRef = await this.db.transaction(async (trx) => {
        const id = await this.#insertHeader(trx, order);
        if (order.items.length) await trx(this.#lines.table).insert(this.#lineRows(id, order));
        return String(id);
      });
      return { erpRef, alreadyImported: false };
    } catch (error) {
      if (isUniqueViolation(error)) {
        const winner = await this.#find(order.id);
        if (winner) return { erpRef: winner, alreadyImported: true };
      }
      throw toSqlError(error, `importing order ${order.id} into ${this.#orders.table}`, this.database);
    }
  }

  /** One row per change, unique on (order, seq): the same change delivered twice is one row. */
  async updateOrder(order: PlatformOrder, change: OrderChange): Promise<void> {
    const c = this.#changes;
    const seq = change.seq ?? 0;
    try {
      const exists = await this.db(c.table)
        .first(c.col('id'))
        .where(c.col('platform_order_id'), order.id)
        .andWhere(c.col('seq'), seq);
      if (exists) return;
      await this.db(c.table).insert(this.#changeRow(order, change));
    } catch (error) {
      if (isUniqueViolation(error)) return;
      throw toSqlError(error, `recording change ${seq} of order ${order.id} in ${c.table}`, this.database);
    }
  }

  /**
   * For `check`: what an import and a change write (a header, a line, a change row) and read back,
   * in one transaction that is then rolled back, so every privilege they need is used for real
   * (INSERT and SELECT on the three tables, PostgreSQL's USAGE on their id sequences) and nothing
   * stays. Throws the database's refusal, naming the table; a table that kept a rolled-back row
   * (not transactional: MySQL MyISAM) is an error too, and the row is removed when the role may.
   */
  async probeWrites(): Promise<void> {
    const order = probeOrder();
    const trx = await this.db.transaction();
    let doing = `inserting into ${this.#orders.table}`;
    try {
      const id = await this.#insertHeader(trx, order);
      doing = `inserting into ${this.#lines.table}`;
      await trx(this.#lines.table).insert(this.#lineRows(id, order));
      doing = `inserting into ${this.#changes.table}`;
      await trx(this.#changes.table).insert(
        this.#changeRow(order, { orderId: order.id, erpRef: String(id), seq: 1 }),
      );
      doing = `reading ${this.#orders.table}, ${this.#lines.table} and ${this.#changes.table}`;
      await this.#probeReads(trx, id, order.id);
    } catch (error) {
      throw toSqlError(error, `${doing} (a test order, rolled back)`, this.database);
    } finally {
      await trx.rollback();
    }
    if ((await this.#find(order.id)) === undefined) return;
    const o = this.#orders;
    await this.db(o.table)
      .where(o.col('platform_order_id'), order.id)
      .delete()
      .catch(() => undefined);
    throw new SqlQueryError(
      `the ERP database (${this.database ?? this.config.client}) kept a row of ${o.table} written in a rolled-back transaction: the staging tables must be transactional (MySQL: InnoDB); remove the order with platform_order_id ${order.id} if it is still there`,
    );
  }

  async #probeReads(trx: Knex.Transaction, id: number, platformOrderId: number): Promise<void> {
    const [o, l, c] = [this.#orders, this.#lines, this.#changes];
    await trx(o.table).first(o.col('id')).where(o.col('platform_order_id'), platformOrderId);
    await trx(l.table).count({ n: '*' }).where(l.col('order_id'), id);
    await trx(c.table).first(c.col('id')).where(c.col('platform_order_id'), platformOrderId);
  }

  #changeRow(order: PlatformOrder, change: OrderChange): Record<string, unknown> {
    const c = this.#changes;
    return {
      [c.col('platform_order_id')]: order.id,
      [c.col('erp_ref')]: change.erpRef,
      [c.col('seq')]: change.seq ?? 0,
      [c.col('status')]: change.status ?? null,
      [c.col('payment_status')]: change.paymentStatus ?? null,
      [c.col('previous_status')]: change.previousStatus ?? null,
      [c.col('previous_payment_status')]: change.previousPaymentStatus ?? null,
      [c.col('created_at')]: new Date().toISOString(),
    };
  }

  /**
   * Read only: the staging header of an earlier import, its timestamp, and how many line and
   * change rows the ERP holds for it.
   */
  async locateOrder(platformOrderId: number): Promise<ErpOrderLocation | null> {
    const [o, l, c] = [this.#orders, this.#lines, this.#changes];
    try {
      const header = (await this.db(o.table)
        .first(o.col('id'), o.col('imported_at'))
        .where(o.col('platform_order_id'), platformOrderId)) as Record<string, unknown> | undefined;
      if (!header) return null;
      const id = header[o.col('id')];
      const lines = await this.#count(l.table, l.col('order_id'), id);
      const changes = await this.#count(c.table, c.col('platform_order_id'), platformOrderId);
      const at = header[o.col('imported_at')];
      return {
        erpRef: String(id),
        place: `${o.table} ${o.col('id')}=${String(id)}`,
        at: at instanceof Date ? at.toISOString() : at == null ? null : String(at),
        facts: { table: o.table, key: String(id), lines, changes },
      };
    } catch (error) {
      throw toSqlError(error, `looking up order ${platformOrderId} in ${o.table}`, this.database);
    }
  }

  async #count(table: string, column: string, value: unknown): Promise<number> {
    const row = (await this.db(table)
      .count({ n: '*' })
      .where(column, value as Knex.Value)
      .first()) as { n: number | string } | undefined;
    return Number(row?.n ?? 0);
  }

  async #find(platformOrderId: number): Promise<string | undefined> {
    const o = this.#orders;
    try {
      const row = (await this.db(o.table)
        .first(o.col('id'))
        .where(o.col('platform_order_id'), platformOrderId)) as Record<string, unknown> | undefined;
      return row ? String(row[o.col('id')]) : undefined;
    } catch (error) {
      throw toSqlError(error, `looking up order ${platformOrderId} in ${o.table}`, this.database);
    }
  }

  async #insertHeader(trx: Knex.Transaction, order: PlatformOrder): Promise<number> {
    const o = this.#orders;
    const c = order.customer;
    const header = {
      [o.col('platform_order_id')]: order.id,
      [o.col('order_number')]: order.number,
      [o.col('status')]: order.status,
      [o.col('payment_status')]: order.paymentStatus,
      [o.col('currency')]: order.currency,
      [o.col('customer_name')]: c.name,
      [o.col('customer_email')]: c.email,
      [o.col('customer_phone')]: c.phone,
      [o.col('company_name')]: c.companyName,
      [o.col('cui')]: c.cui,
      [o.col('reg_com')]: c.regCom,
      [o.col('subtotal')]: order.subtotal,
      [o.col('shipping_total')]: order.shippingTotal,
      [o.col('discount_total')]: order.discountTotal,
      [o.col('tax_total')]: order.taxTotal,
      [o.col('total')]: order.total,
      [o.col('placed_at')]: order.createdAt,
      [o.col('imported_at')]: new Date().toISOString(),
      [o.col('payload')]: JSON.stringify(order.raw),
    };
    const address = c.address;
    const parts: Record<(typeof ADDRESS_COLUMNS)[number], string | null> = {
      customer_street: address?.street ?? null,
      customer_city: address?.city ?? null,
      customer_postal_code: address?.postalCode ?? null,
      customer_county: address?.county ?? null,
      customer_country: address?.country ?? null,
    };
    const present = await this.#presentAddressColumns(trx);
    for (const part of ADDRESS_COLUMNS) if (present.has(part)) header[o.col(part)] = parts[part];
    // mysql has no RETURNING: it answers with the insert id (and knex warns when asked).
    const insert = trx(o.table).insert(header);
    const inserted: unknown[] =
      this.config.client === 'mysql' ? await insert : await insert.returning(o.col('id'));
    const first = inserted[0];
    // pg, mssql and SQLite return the row ({id}); mysql returns the insert id.
    const id =
      typeof first === 'object' && first !== null ? (first as Record<string, unknown>)[o.col('id')] : first;
    return Number(id);
  }

  #presentAddressColumns(trx: Knex.Transaction): Promise<Set<string>> {
    const o = this.#orders;
    this.#addressColumns ??= (async () => {
      const present = new Set<string>();
      for (const part of ADDRESS_COLUMNS)
        if (await trx.schema.hasColumn(o.table, o.col(part))) present.add(part);
      return present;
    })().catch((error: unknown) => {
      this.#addressColumns = undefined;
      throw error;
    });
    return this.#addressColumns;
  }

  #lineRows(orderId: number, order: PlatformOrder): Record<string, unknown>[] {
    const l = this.#lines;
    return order.items.map((line, index) => ({
      [l.col('order_id')]: orderId,
      [l.col('line_no')]: index + 1,
      [l.col('sku')]: line.sku,
      [l.col('name')]: line.name,
      [l.col('quantity')]: line.quantity,
      [l.col('unit_price')]: line.unitPrice,
      [l.col('tax_rate')]: line.taxRate,
      [l.col('total')]: line.total,
    }));
  }

  /** With a `knownSku` query, an order with a SKU the ERP does not know is refused (parked). */
  async #checkSkus(order: PlatformOrder): Promise<void> {
    const sql = this.config.queries.knownSku;
    if (!sql) return;
    const unknown: string[] = [];
    for (const sku of new Set(order.items.map((line) => line.sku))) {
      if (sku === null) {
        unknown.push('(a line without SKU)');
        continue;
      }
      const rows = await queryRows(this.db, 'knownSku', sql, { sku }, this.database);
      if (rows.length === 0) unknown.push(sku);
    }
    if (unknown.length) {
      throw new OrderRefusedError(`unknown SKU in the ERP: ${unknown.join(', ')}`, {
        orderId: order.id,
        skus: unknown,
      });
    }
  }
}

/** `check`'s test order: a platform order id no platform hands out, rolled back anyway. */
export const PROBE_ORDER_ID = -424242;

function probeOrder(): PlatformOrder {
  const now = new Date().toISOString();
  return {
    id: PROBE_ORDER_ID,
    number: 'ERP-SYNC-CHECK',
    status: 'new',
    paymentStatus: 'unpaid',
    currency: 'RON',
    sourceOrderId: null,
    customer: {
      id: null,
      name: 'erp-sync check',
      email: null,
      phone: null,
      companyName: null,
      cui: null,
      regCom: null,
      address: null,
    },
    items: [
      {
        productId: null,
        variantId: null,
        sku: 'ERP-SYNC-CHECK',
        name: 'erp-sync check',
        quantity: 1,
        unitPrice: 1,
        taxRate: 19,
        total: 1,
      },
    ],
    subtotal: 1,
    shippingTotal: 0,
    discountTotal: 0,
    taxTotal: 0,
    total: 1,
    awbNumber: null,
    invoiceNumber: null,
    createdAt: now,
    updatedAt: now,
    raw: { check: true },
  };
}
