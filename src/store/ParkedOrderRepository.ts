import type { SqlDatabase, SqlStatement } from './sql/SqlDatabase.js';

/** An order that could not be imported (unknown SKU, refused customer): kept until it goes in. */
export interface ParkedOrder {
  platformOrderId: number;
  number: string | null;
  code: string;
  reason: string;
  attempts: number;
  firstParkedAt: string;
  lastAttemptAt: string;
  nextAttemptAt: string;
}

interface ParkedRow {
  platform_order_id: number;
  number: string | null;
  code: string;
  reason: string;
  attempts: number;
  first_parked_at: string;
  last_attempt_at: string;
  next_attempt_at: string;
}

/** Automatic retries back off up to this, and never stop: nothing is dropped after N attempts. */
const MAX_BACKOFF_MS = 60 * 60_000;

export function nextAttemptDelayMs(attempts: number, baseMs = 60_000): number {
  return Math.min(MAX_BACKOFF_MS, baseMs * 2 ** Math.max(0, Math.min(attempts - 1, 16)));
}

export class ParkedOrderRepository {
  readonly #park: SqlStatement<unknown[]>;
  readonly #remove: SqlStatement<[number]>;
  readonly #get: SqlStatement<[number], ParkedRow>;
  readonly #list: SqlStatement<[], ParkedRow>;
  readonly #due: SqlStatement<[string, number], ParkedRow>;
  readonly #count: SqlStatement<[], { n: number }>;
  readonly #oldest: SqlStatement<[], { oldest: string | null }>;
  readonly #makeDue: SqlStatement<[string, number]>;
  readonly #parkedAmong: SqlStatement<[string], { id: number }>;

  constructor(db: SqlDatabase) {
    this.#park = db.prepare(
      `INSERT INTO parked_orders (platform_order_id, number, code, reason, attempts, first_parked_at, last_attempt_at,
         next_attempt_at)
       VALUES (@id, @number, @code, @reason, 1, @now, @now, @next)
       ON CONFLICT (platform_order_id) DO UPDATE SET
         code = excluded.code, reason = excluded.reason, attempts = parked_orders.attempts + 1,
         last_attempt_at = excluded.last_attempt_at, number = coalesce(excluded.number, parked_orders.number),
         next_attempt_at = @nextAgain`,
    );
    this.#remove = db.prepare('DELETE FROM parked_orders WHERE platform_order_id = ?');
    this.#get = db.prepare('SELECT * FROM parked_orders WHERE platform_order_id = ?');
    this.#list = db.prepare('SELECT * FROM parked_orders ORDER BY platform_order_id');
    this.#due = db.prepare(
      'SELECT * FROM parked_orders WHERE next_attempt_at <= ? ORDER BY platform_order_id LIMIT ?',
    );
    this.#count = db.prepare('SELECT count(*) AS n FROM parked_orders');
    this.#oldest = db.prepare('SELECT min(first_parked_at) AS oldest FROM parked_orders');
    this.#makeDue = db.prepare('UPDATE parked_orders SET next_attempt_at = ? WHERE platform_order_id = ?');
    this.#parkedAmong = db.prepare(
      `SELECT p.platform_order_id AS id FROM ${db.dialect.list('i', 'integer')}
       ${db.dialect.probe('parked_orders', 'p', 'p.platform_order_id = i.value')}`,
    );
  }

  /** Parks the order, or records one more failed attempt with the latest reason. */
  park(
    order: { platformOrderId: number; number: string | null; code: string; reason: string },
    now = new Date(),
    baseDelayMs = 60_000,
  ): void {
    const existing = this.get(order.platformOrderId);
    const attempts = (existing?.attempts ?? 0) + 1;
    this.#park.run({
      id: order.platformOrderId,
      number: order.number,
      code: order.code,
      reason: order.reason,
      now: now.toISOString(),
      next: new Date(now.getTime() + nextAttemptDelayMs(1, baseDelayMs)).toISOString(),
      nextAgain: new Date(now.getTime() + nextAttemptDelayMs(attempts, baseDelayMs)).toISOString(),
    });
  }

  unpark(platformOrderId: number): void {
    this.#remove.run(platformOrderId);
  }

  /** Which of these orders are parked: one statement for many. */
  parkedAmong(ids: readonly number[]): Set<number> {
    if (ids.length === 0) return new Set();
    return new Set(this.#parkedAmong.all(JSON.stringify(ids)).map((row) => Number(row.id)));
  }

  get(platformOrderId: number): ParkedOrder | undefined {
    const row = this.#get.get(platformOrderId);
    return row ? toParked(row) : undefined;
  }

  list(): ParkedOrder[] {
    return this.#list.all().map(toParked);
  }

  /** Parked orders whose next automatic retry is due. */
  due(now = new Date(), limit = 100): ParkedOrder[] {
    return this.#due.all(now.toISOString(), limit).map(toParked);
  }

  /** `orders retry`: makes the orders due at once (all when no id is given). */
  makeDue(ids?: readonly number[]): number {
    const targets = ids && ids.length > 0 ? ids : this.list().map((p) => p.platformOrderId);
    let changed = 0;
    const epoch = new Date(0).toISOString();
    for (const id of targets) changed += this.#makeDue.run(epoch, id).changes;
    return changed;
  }

  count(): number {
    return this.#count.get()!.n;
  }

  /** When the longest-parked order was first parked (ISO time), or null when none is parked. */
  oldestParkedAt(): string | null {
    return this.#oldest.get()!.oldest;
  }
}

function toParked(row: ParkedRow): ParkedOrder {
  return {
    platformOrderId: row.platform_order_id,
    number: row.number,
    code: row.code,
    reason: row.reason,
    attempts: row.attempts,
    firstParkedAt: row.first_parked_at,
    lastAttemptAt: row.last_attempt_at,
    nextAttemptAt: row.next_attempt_at,
  };
}
