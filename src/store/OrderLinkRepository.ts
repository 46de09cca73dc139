import type { SqlDatabase, SqlStatement } from './sql/SqlDatabase.js';
import type { OrderStatus, PaymentStatus } from '../domain/limits.js';

/** A platform order the ERP confirmed, and the state of it the ERP last received. */
export interface OrderLink {
  platformOrderId: number;
  erpRef: string;
  number: string | null;
  status: OrderStatus;
  paymentStatus: PaymentStatus;
  changeSeq: number;
  pendingChange: PendingOrderChange | null;
  platformCreatedAt: string | null;
  importedAt: string;
  acknowledgedAt: string | null;
  updatedAt: string;
  /** What an ERP event is having done to the order on the platform right now (echo guard). */
  erpIntent: ErpIntent | null;
  /** The store-wide feedback sequence at the last feedback touch of this order (0: never). */
  guardSeq: number;
}

/**
 * A change being delivered to the ERP: redone as it is after a crash, so one change = one seq.
 * `fromStatus`/`fromPaymentStatus`: the state the ERP had when it was computed (absent in changes
 * stored before the echo guard).
 */
export interface PendingOrderChange {
  seq: number;
  status: OrderStatus;
  paymentStatus: PaymentStatus;
  fromStatus?: OrderStatus;
  fromPaymentStatus?: PaymentStatus;
}

/** The state an ERP event asks the platform for, recorded before the platform call. */
export interface ErpIntent {
  eventId: string;
  status?: OrderStatus;
  paymentStatus?: PaymentStatus;
}

/** Which imported (linked) orders the oversell guard still holds, besides those not imported yet. */
export interface HeldImports {
  /** Those imported at or after this time (ISO 8601). */
  since: string;
  /** Only while no ERP event acknowledged them. */
  untilAcknowledged: boolean;
}

/** The guard's rule (order_lines l, orders_seen s, order_links k): three bindings, see heldBindings. */
const HELD_WHERE = `((s.outcome IN ('queued', 'parked') AND coalesce(s.status, '') NOT IN ('cancelled', 'returned'))
  OR (k.platform_order_id IS NOT NULL AND k.imported_at >= ? AND (? = 0 OR k.acknowledged_at IS NULL)
      AND k.status NOT IN ('cancelled', 'returned')))`;

function heldBindings(rule: HeldImports): [string, number] {
  return [rule.since, rule.untilAcknowledged ? 1 : 0];
}

export interface NewOrderLink {
  platformOrderId: number;
  erpRef: string;
  number: string | null;
  status: OrderStatus;
  paymentStatus: PaymentStatus;
  platformCreatedAt: string | null;
  /** The units the oversell guard holds; null keeps the lines stored for the order (found by linesOf). */
  lines: OrderUnits[] | null;
}

/** One line of an order as the oversell guard counts it. */
export interface OrderUnits {
  sku: string;
  quantity: number;
}

interface LinkRow {
  platform_order_id: number;
  erp_ref: string;
  number: string | null;
  status: string;
  payment_status: string;
  change_seq: number;
  pending_change: string | null;
  platform_created_at: string | null;
  imported_at: string;
  acknowledged_at: string | null;
  updated_at: string;
  erp_intent: string | null;
  guard_seq: number;
}

export class OrderLinkRepository {
  readonly #insert: SqlStatement<unknown[]>;
  readonly #deleteLines: SqlStatement<[number]>;
  readonly #insertLine: SqlStatement<[number, number, string, number]>;
  readonly #get: SqlStatement<[number], LinkRow>;
  readonly #byErpRef: SqlStatement<[string], LinkRow>;
  readonly #getMany: SqlStatement<[string], LinkRow>;
  readonly #linesOf: SqlStatement<[string], { id: number; sku: string; quantity: number }>;
  readonly #list: SqlStatement<[number, number], LinkRow>;
  readonly #count: SqlStatement<[], { n: number }>;
  readonly #open: SqlStatement<[string], LinkRow>;
  readonly #held: SqlStatement<[string, number], { sku: string; units: number }>;
  readonly #setPending: SqlStatement<[string, string, number, number]>;
  readonly #commitChange: SqlStatement<Record<string, string | number>>;
  readonly #beginErpChange: SqlStatement<[string, string, number]>;
  readonly #endErpChange: SqlStatement<Record<string, string | number | null>>;
  readonly #guardMark: SqlStatement<[], { mark: number }>;
  readonly #acknowledge: SqlStatement<[string, string, number]>;

  constructor(private readonly db: SqlDatabase) {
    this.#insert = db.prepare(
      `INSERT INTO order_links (platform_order_id, erp_ref, number, status, payment_status, platform_created_at,
         imported_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (platform_order_id) DO NOTHING`,
    );
    this.#deleteLines = db.prepare('DELETE FROM order_lines WHERE platform_order_id = ?');
    this.#insertLine = db.prepare(
      'INSERT INTO order_lines (platform_order_id, line, sku, quantity) VALUES (?, ?, ?, ?)',
    );
    this.#get = db.prepare('SELECT * FROM order_links WHERE platform_order_id = ?');
    this.#byErpRef = db.prepare(
      'SELECT * FROM order_links WHERE erp_ref = ? ORDER BY platform_order_id LIMIT 1',
    );
    this.#getMany = db.prepare(
      `SELECT l.* FROM ${db.dialect.list('k', 'integer')}
       ${db.dialect.probe('order_links', 'l', 'l.platform_order_id = k.value')}`,
    );
    this.#linesOf = db.prepare(
      `SELECT l.platform_order_id AS id, l.sku AS sku, l.quantity AS quantity FROM ${db.dialect.list('k', 'integer')}
       ${db.dialect.probe('order_lines', 'l', 'l.platform_order_id = k.value')}
       ORDER BY l.platform_order_id, l.line`,
    );
    this.#list = db.prepare('SELECT * FROM order_links ORDER BY platform_order_id DESC LIMIT ? OFFSET ?');
    this.#count = db.prepare('SELECT count(*) AS n FROM order_links');
    // Orders whose units the ERP's stock does not reflect yet: found but not imported (queued,
    // parked), or imported and still held by the rule (HeldImports); never cancelled ones.
    this.#held = db.prepare(
      `SELECT l.sku AS sku, sum(l.quantity) AS units
       FROM order_lines AS l
       JOIN orders_seen AS s ON s.platform_order_id = l.platform_order_id
       LEFT JOIN order_links AS k ON k.platform_order_id = l.platform_order_id
       WHERE ${HELD_WHERE}
       GROUP BY l.sku`,
    );
    this.#open = db.prepare(
      `SELECT * FROM order_links
       WHERE (status NOT IN ('cancelled', 'returned') OR pending_change IS NOT NULL) AND imported_at >= ?`,
    );
    // Only while no feedback touched the order since the caller read it (same guard_seq), and
    // no other change is being delivered: one statement, so two processes cannot both pass.
    this.#setPending = db.prepare(
      `UPDATE order_links SET pending_change = ?, updated_at = ?
       WHERE platform_order_id = ? AND guard_seq = ? AND pending_change IS NULL`,
    );
    // Each field takes the delivered value unless feedback moved it meanwhile (the ERP's own, later).
    this.#commitChange = db.prepare(
      `UPDATE order_links SET change_seq = @seq,
         status = CASE WHEN status = @fromStatus THEN @status ELSE status END,
         payment_status = CASE WHEN payment_status = @fromPayment THEN @payment ELSE payment_status END,
         pending_change = NULL, updated_at = @now
       WHERE platform_order_id = @id`,
    );
    const nextSeq = '(SELECT coalesce(max(guard_seq), 0) + 1 FROM order_links)';
    this.#beginErpChange = db.prepare(
      `UPDATE order_links SET erp_intent = ?, guard_seq = ${nextSeq}, updated_at = ?
       WHERE platform_order_id = ?`,
    );
    this.#endErpChange = db.prepare(
      `UPDATE order_links SET
         status = CASE WHEN CAST(@ifStatus AS TEXT) IS NULL OR status = @ifStatus THEN coalesce(@status, status) ELSE status END,
         payment_status = coalesce(@payment, payment_status),
         erp_intent = NULL, guard_seq = ${nextSeq}, updated_at = @now
       WHERE platform_order_id = @id`,
    );
    this.#guardMark = db.prepare('SELECT coalesce(max(guard_seq), 0) AS mark FROM order_links');
    this.#acknowledge = db.prepare(
      `UPDATE order_links SET acknowledged_at = coalesce(acknowledged_at, ?), updated_at = ?
       WHERE platform_order_id = ?`,
    );
  }

  /** Links an order the ERP confirmed; a second call for the same order keeps the first link. */
  link(link: NewOrderLink, now = new Date().toISOString()): void {
    this.db.transaction(() => {
      const inserted = this.#insert.run(
        link.platformOrderId,
        link.erpRef,
        link.number,
        link.status,
        link.paymentStatus,
        link.platformCreatedAt,
        now,
        now,
      ).changes;
      if (inserted === 0 || link.lines === null) return;
      this.#replaceLines(link.platformOrderId, link.lines);
    });
  }

  /** Lines of an order not linked yet (parked): the oversell guard holds their units too. */
  replaceLines(platformOrderId: number, lines: OrderUnits[]): void {
    this.db.transaction(() => this.#replaceLines(platformOrderId, lines));
  }

  #replaceLines(platformOrderId: number, lines: OrderUnits[]): void {
    this.#deleteLines.run(platformOrderId);
    lines.forEach((line, index) => this.#insertLine.run(platformOrderId, index, line.sku, line.quantity));
  }

  get(platformOrderId: number): OrderLink | undefined {
    const row = this.#get.get(platformOrderId);
    return row ? toLink(row) : undefined;
  }

  byErpRef(erpRef: string): OrderLink | undefined {
    const row = this.#byErpRef.get(erpRef);
    return row ? toLink(row) : undefined;
  }

  getMany(ids: readonly number[]): Map<number, OrderLink> {
    const out = new Map<number, OrderLink>();
    for (const row of this.#getMany.all(JSON.stringify(ids))) out.set(row.platform_order_id, toLink(row));
    return out;
  }

  /** The stored lines of these orders (linked or not), in their order; an order without lines is absent. */
  linesOf(ids: readonly number[]): Map<number, OrderUnits[]> {
    const out = new Map<number, OrderUnits[]>();
    if (ids.length === 0) return out;
    for (const row of this.#linesOf.all(JSON.stringify(ids))) {
      const lines = out.get(row.id);
      const units = { sku: row.sku, quantity: row.quantity };
      if (lines) lines.push(units);
      else out.set(row.id, [units]);
    }
    return out;
  }

  list(limit = 100, offset = 0): OrderLink[] {
    return this.#list.all(limit, offset).map(toLink);
  }

  /** Links that may still change (not cancelled or returned), imported since `sinceIso`. */
  open(sinceIso: string): Map<number, OrderLink> {
    return new Map(this.#open.all(sinceIso).map((row) => [row.platform_order_id, toLink(row)]));
  }

  /** Units per SKU held back from stock pushes (oversell guard), imported orders by `rule`. */
  heldUnits(rule: HeldImports): Map<string, number> {
    return new Map(this.#held.all(...heldBindings(rule)).map((row) => [row.sku, row.units]));
  }

  /** The orders behind `heldUnits` for some SKUs (`erp-sync explain`): order, SKU, units. */
  holders(
    rule: HeldImports,
    skus: readonly string[],
  ): { platformOrderId: number; sku: string; units: number }[] {
    return this.db
      .prepare<[string, string, number], { platformOrderId: number; sku: string; units: number }>(
        `SELECT l.platform_order_id AS "platformOrderId", l.sku AS sku, sum(l.quantity) AS units
         FROM order_lines AS l
         JOIN orders_seen AS s ON s.platform_order_id = l.platform_order_id
         LEFT JOIN order_links AS k ON k.platform_order_id = l.platform_order_id
         WHERE l.sku IN (SELECT k.value FROM ${this.db.dialect.list('k', 'text')}) AND ${HELD_WHERE}
         GROUP BY l.platform_order_id, l.sku ORDER BY l.platform_order_id`,
      )
      .all(JSON.stringify(skus), ...heldBindings(rule));
  }

  count(): number {
    return this.#count.get()!.n;
  }

  /**
   * Records the change about to be delivered, unless feedback touched the order since the caller
   * read its link (`guardSeq` moved) or another change is pending: false then, and nothing is
   * delivered (the next poll decides again from fresh state).
   */
  setPendingChange(platformOrderId: number, change: PendingOrderChange, guardSeq: number): boolean {
    return (
      this.#setPending.run(JSON.stringify(change), new Date().toISOString(), platformOrderId, guardSeq)
        .changes === 1
    );
  }

  /**
   * The ERP confirmed the change: its state becomes the one the ERP has, field by field, unless
   * feedback delivered a newer state of that field meanwhile.
   */
  commitChange(platformOrderId: number, change: PendingOrderChange): void {
    const link = this.get(platformOrderId);
    if (!link) return;
    this.#commitChange.run({
      id: platformOrderId,
      seq: change.seq,
      status: change.status,
      payment: change.paymentStatus,
      fromStatus: change.fromStatus ?? link.status,
      fromPayment: change.fromPaymentStatus ?? link.paymentStatus,
      now: new Date().toISOString(),
    });
  }

  /**
   * The high-water mark of the feedback sequence: read before reading the platform's order list,
   * so a link whose `guardSeq` is above it was touched by feedback after that read.
   */
  guardMark(): number {
    return this.#guardMark.get()!.mark;
  }

  /**
   * Feedback is about to ask the platform for `intent` (before the call): until `endErpChange`,
   * the states on the way there are the ERP's own and are not delivered back to it.
   */
  beginErpChange(platformOrderId: number, intent: ErpIntent): void {
    this.#beginErpChange.run(JSON.stringify(intent), new Date().toISOString(), platformOrderId);
  }

  /**
   * Feedback is done with the order: the state the platform reached because of the ERP itself
   * (`delivered`, possibly empty) is recorded as delivered, so it is never echoed back. With
   * `ifStatus`, the status is recorded only while the ERP still has that one (a status the orders
   * pipeline delivered meanwhile is newer than a walk refused half-way).
   */
  endErpChange(
    platformOrderId: number,
    delivered: { status?: OrderStatus | undefined; paymentStatus?: PaymentStatus | undefined },
    ifStatus?: OrderStatus,
  ): void {
    this.#endErpChange.run({
      id: platformOrderId,
      status: delivered.status ?? null,
      payment: delivered.paymentStatus ?? null,
      ifStatus: ifStatus ?? null,
      now: new Date().toISOString(),
    });
  }

  /** The ERP showed it has the order (an event about it): its units are in the ERP's stock now. */
  acknowledge(platformOrderId: number): void {
    const now = new Date().toISOString();
    this.#acknowledge.run(now, now, platformOrderId);
  }
}

function toLink(row: LinkRow): OrderLink {
  return {
    platformOrderId: row.platform_order_id,
    erpRef: row.erp_ref,
    number: row.number,
    status: row.status as OrderStatus,
    paymentStatus: row.payment_status as PaymentStatus,
    changeSeq: row.change_seq,
    pendingChange: row.pending_change ? (JSON.parse(row.pending_change) as PendingOrderChange) : null,
    platformCreatedAt: row.platform_created_at,
    importedAt: row.imported_at,
    acknowledgedAt: row.acknowledged_at,
    updatedAt: row.updated_at,
    erpIntent: row.erp_intent ? (JSON.parse(row.erp_intent) as ErpIntent) : null,
    guardSeq: row.guard_seq,
  };
}
