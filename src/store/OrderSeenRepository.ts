import type { SqlDatabase, SqlStatement } from './sql/SqlDatabase.js';

/**
 * queued: found by a poll, not decided yet (GET + import pending). The others are decisions:
 * imported (linked), parked, skipped (a status not imported), erp_origin (created by us).
 */
export type SeenOutcome = 'queued' | 'imported' | 'parked' | 'skipped' | 'erp_origin';

/**
 * Every platform order a poll has found. A poll records all it found in one transaction before
 * importing any, so the known orders are always every order up to the newest one a completed
 * scan saw: a page of known orders means nothing older is unknown, whatever was killed when.
 */
export class OrderSeenRepository {
  readonly #enqueue: SqlStatement<[number, string | null, string]>;
  readonly #setOutcome: SqlStatement<[number, string, string | null, string | null, string]>;
  readonly #queued: SqlStatement<[number], { platform_order_id: number }>;
  readonly #known: SqlStatement<[string], { id: number }>;
  readonly #queuedAmong: SqlStatement<[string], { id: number }>;
  readonly #count: SqlStatement<[], { outcome: string; n: number }>;

  constructor(private readonly db: SqlDatabase) {
    this.#enqueue = db.prepare(
      `INSERT INTO orders_seen (platform_order_id, outcome, status, platform_created_at, seen_at)
       VALUES (?, 'queued', NULL, ?, ?) ON CONFLICT (platform_order_id) DO NOTHING`,
    );
    this.#setOutcome = db.prepare(
      `INSERT INTO orders_seen (platform_order_id, outcome, status, platform_created_at, seen_at)
       VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (platform_order_id) DO UPDATE SET outcome = excluded.outcome, status = excluded.status`,
    );
    this.#queued = db.prepare(
      `SELECT platform_order_id FROM orders_seen WHERE outcome = 'queued'
       ORDER BY platform_order_id LIMIT ?`,
    );
    this.#known = db.prepare(
      `SELECT s.platform_order_id AS id FROM ${db.dialect.list('k', 'integer')}
       ${db.dialect.probe('orders_seen', 's', 's.platform_order_id = k.value')}`,
    );
    this.#queuedAmong = db.prepare(
      `SELECT s.platform_order_id AS id FROM ${db.dialect.list('k', 'integer')}
       ${db.dialect.probe('orders_seen', 's', "s.platform_order_id = k.value AND s.outcome = 'queued'")}`,
    );
    this.#count = db.prepare('SELECT outcome, count(*) AS n FROM orders_seen GROUP BY outcome');
  }

  /** Records what a scan found, all or nothing. */
  enqueue(orders: readonly { id: number; createdAt: string | null }[]): void {
    const now = new Date().toISOString();
    this.db.transaction(() => {
      for (const order of orders) this.#enqueue.run(order.id, order.createdAt, now);
    });
  }

  setOutcome(
    platformOrderId: number,
    outcome: SeenOutcome,
    status: string | null,
    createdAt: string | null = null,
  ): void {
    this.#setOutcome.run(platformOrderId, outcome, status, createdAt, new Date().toISOString());
  }

  /** Orders found but not decided yet, oldest first. */
  queued(limit = 100_000): number[] {
    return this.#queued.all(limit).map((r) => r.platform_order_id);
  }

  /** The ids among `ids` that a poll has already found. */
  known(ids: readonly number[]): Set<number> {
    const out = new Set<number>();
    for (const row of this.#known.all(JSON.stringify(ids))) out.add(row.id);
    return out;
  }

  /** The ids among `ids` found but not decided yet. */
  queuedAmong(ids: readonly number[]): Set<number> {
    const out = new Set<number>();
    for (const row of this.#queuedAmong.all(JSON.stringify(ids))) out.add(row.id);
    return out;
  }

  counts(): Record<string, number> {
    return Object.fromEntries(this.#count.all().map((r) => [r.outcome, r.n]));
  }
}
