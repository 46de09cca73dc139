import type { Knex } from 'knex';
import type { OrderChange, PlatformOrder } from '../../domain/orders.js';
import type { ImportResult } from '../ErpAdapter.js';
import type { ErpOrderLocation } from '../ErpOrderLocation.js';
import { OrderRefusedError } from '../OrderRefusedError.js';
import type { SqlErpConfig } from './sqlConfigSchema.js';
import { isUniqueViolation, toSqlError } from './SqlErpError.js';
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
      throw toSqlError(error, `importing order ${order.id} into ${this.#orders.table}`);
    }
  }

  /** One row per change, unique on (order, seq): the same change delivered twice is one row. */
  async updateOrder(order: PlatformOrder, change: OrderChange): Promise<void> {
    const c = this.#changes;
    const seq = change.seq ?? 0;
    const row = {
      [c.col('platform_order_id')]: order.id,
      [c.col('erp_ref')]: change.erpRef,
      [c.col('seq')]: seq,
      [c.col('status')]: change.status ?? null,
      [c.col('payment_status')]: change.paymentStatus ?? null,
      [c.col('previous_status')]: change.previousStatus ?? null,
      [c.col('previous_payment_status')]: change.previousPaymentStatus ?? null,
      [c.col('created_at')]: new Date().toISOString(),
    };
    try {
      const exists = await this.db(c.table)
        .first(c.col('id'))
        .where(c.col('platform_order_id'), order.id)
        .andWhere(c.col('seq'), seq);
      if (exists) return;
      await this.db(c.table).insert(row);
    } catch (error) {
      if (isUniqueViolation(error)) return;
      throw toSqlError(error, `recording change ${seq} of order ${order.id} in ${c.table}`);
    }
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
      throw toSqlError(error, `looking up order ${platformOrderId} in ${o.table}`);
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
      throw toSqlError(error, `looking up order ${platformOrderId} in ${o.table}`);
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
      const rows = await queryRows(this.db, 'knownSku', sql, { sku });
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
