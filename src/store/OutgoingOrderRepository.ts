import type { SqlDatabase, SqlStatement } from './sql/SqlDatabase.js';

/**
 * pending: intent recorded, POST /orders may or may not have been sent.
 * unknown: POST sent, its answer lost. created: the platform order exists. rejected: 422.
 * A pending or unknown order is always looked up by source_order_id before any new POST.
 */
export type OutgoingState = 'pending' | 'unknown' | 'created' | 'rejected';

export interface OutgoingOrderRecord {
  sourceOrderId: string;
  state: OutgoingState;
  platformOrderId: number | null;
  contentHash: string | null;
  attempts: number;
  lastError: string | null;
  erpRecorded: boolean;
  createdAt: string;
  updatedAt: string;
}

interface OutgoingRow {
  source_order_id: string;
  state: string;
  platform_order_id: number | null;
  content_hash: string | null;
  attempts: number;
  last_error: string | null;
  erp_recorded: number;
  created_at: string;
  updated_at: string;
}

export class OutgoingOrderRepository {
  readonly #get: SqlStatement<[string], OutgoingRow>;
  readonly #intent: SqlStatement<[string, string, string, string]>;
  readonly #setState: SqlStatement<[string, number | null, string | null, string, string]>;
  readonly #attempt: SqlStatement<[string, string]>;
  readonly #erpRecorded: SqlStatement<[string, string]>;
  readonly #byPlatform: SqlStatement<[number], OutgoingRow>;
  readonly #knownSources: SqlStatement<[string], { source_order_id: string }>;
  readonly #createdAmong: SqlStatement<[string], { id: number }>;
  readonly #list: SqlStatement<[], OutgoingRow>;

  constructor(db: SqlDatabase) {
    this.#get = db.prepare('SELECT * FROM outgoing_orders WHERE source_order_id = ?');
    this.#intent = db.prepare(
      `INSERT INTO outgoing_orders (source_order_id, state, content_hash, created_at, updated_at)
       VALUES (?, 'pending', ?, ?, ?)
       ON CONFLICT (source_order_id) DO UPDATE SET state = 'pending', content_hash = excluded.content_hash,
         last_error = NULL, updated_at = excluded.updated_at
       WHERE outgoing_orders.state = 'rejected'`,
    );
    this.#setState = db.prepare(
      `UPDATE outgoing_orders SET state = ?, platform_order_id = coalesce(?, platform_order_id), last_error = ?,
         updated_at = ? WHERE source_order_id = ?`,
    );
    this.#attempt = db.prepare(
      'UPDATE outgoing_orders SET attempts = attempts + 1, updated_at = ? WHERE source_order_id = ?',
    );
    this.#erpRecorded = db.prepare(
      'UPDATE outgoing_orders SET erp_recorded = 1, updated_at = ? WHERE source_order_id = ?',
    );
    this.#byPlatform = db.prepare('SELECT * FROM outgoing_orders WHERE platform_order_id = ?');
    this.#knownSources = db.prepare(
      `SELECT o.source_order_id FROM ${db.dialect.list('k', 'text')}
       ${db.dialect.probe('outgoing_orders', 'o', 'o.source_order_id = k.value')}`,
    );
    this.#createdAmong = db.prepare(
      `SELECT o.platform_order_id AS id FROM ${db.dialect.list('k', 'integer')}
       ${db.dialect.probe('outgoing_orders', 'o', 'o.platform_order_id = k.value')}`,
    );
    this.#list = db.prepare('SELECT * FROM outgoing_orders ORDER BY created_at');
  }

  get(sourceOrderId: string): OutgoingOrderRecord | undefined {
    const row = this.#get.get(sourceOrderId);
    return row ? toRecord(row) : undefined;
  }

  /** Records the intent to create (before any POST). A rejected order may be tried again. */
  recordIntent(sourceOrderId: string, contentHash: string): void {
    const now = new Date().toISOString();
    this.#intent.run(sourceOrderId, contentHash, now, now);
  }

  /** Counted before each POST, so the store shows how often a create was attempted. */
  countAttempt(sourceOrderId: string): void {
    this.#attempt.run(new Date().toISOString(), sourceOrderId);
  }

  markUnknown(sourceOrderId: string, error: string): void {
    this.#setState.run('unknown', null, error, new Date().toISOString(), sourceOrderId);
  }

  markCreated(sourceOrderId: string, platformOrderId: number): void {
    this.#setState.run('created', platformOrderId, null, new Date().toISOString(), sourceOrderId);
  }

  markRejected(sourceOrderId: string, reason: string): void {
    this.#setState.run('rejected', null, reason, new Date().toISOString(), sourceOrderId);
  }

  markErpRecorded(sourceOrderId: string): void {
    this.#erpRecorded.run(new Date().toISOString(), sourceOrderId);
  }

  byPlatformOrderId(platformOrderId: number): OutgoingOrderRecord | undefined {
    const row = this.#byPlatform.get(platformOrderId);
    return row ? toRecord(row) : undefined;
  }

  /** Which of these source_order_ids are ERP orders we create (the poll must not import them back). */
  knownSources(sourceOrderIds: readonly string[]): Set<string> {
    // Most platform orders carry no source id: no statement for them (one per imported order).
    if (sourceOrderIds.length === 0) return new Set();
    return new Set(this.#knownSources.all(JSON.stringify(sourceOrderIds)).map((r) => r.source_order_id));
  }

  /** Which of these platform order ids are orders we created from the ERP: one statement for many. */
  createdAmong(platformOrderIds: readonly number[]): Set<number> {
    if (platformOrderIds.length === 0) return new Set();
    return new Set(this.#createdAmong.all(JSON.stringify(platformOrderIds)).map((r) => r.id));
  }

  list(): OutgoingOrderRecord[] {
    return this.#list.all().map(toRecord);
  }
}

function toRecord(row: OutgoingRow): OutgoingOrderRecord {
  return {
    sourceOrderId: row.source_order_id,
    state: row.state as OutgoingState,
    platformOrderId: row.platform_order_id,
    contentHash: row.content_hash,
    attempts: row.attempts,
    lastError: row.last_error,
    erpRecorded: row.erp_recorded === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
